#!/usr/bin/env bash
# Builds Rein for production: the Prisma client, the Next.js app (.next) and
# the custom server bundled into dist/server.mjs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export NEXT_TELEMETRY_DISABLED=1
# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
rein_use_node

# A failed build must not leave an older server behind that looks current.
rm -f dist/server.mjs dist/sandbox-worker.mjs dist/terminal-worker.mjs dist/policy-worker.mjs dist/device/rein-device.tgz

echo "[build] prisma generate"
bash scripts/prisma.sh generate

echo "[build] next build"
node_modules/.bin/next build
node scripts/js-budget.mjs

# The server and its worker threads, each bundled the same way. Workers load
# their own entries from beside the server's bundle: the runtime-tool sandbox
# (server/improve/sandbox/pool.ts), the terminals' headless screens
# (server/realtime/terminal-worker-client.ts) and the policy's reader of long
# shell command lines (server/policy/reader.ts).
bundle() {
  local entry="$1" out="$2"
  echo "[build] esbuild $entry -> $out"
  node_modules/.bin/esbuild "$entry" \
    --bundle \
    --platform=node \
    --format=esm \
    --packages=external \
    --target=node22 \
    --tsconfig=tsconfig.json \
    --log-level=warning \
    --outfile="$out"
}
bundle server/improve/sandbox/worker.ts dist/sandbox-worker.mjs
bundle server/realtime/terminal-worker.ts dist/terminal-worker.mjs
bundle server/policy/parse-worker.ts dist/policy-worker.mjs
bundle server.ts dist/server.mjs

# The device agent (docs/devices.md#the-agent-package): one file with no
# dependencies, packed as the npm tarball Rein serves at /api/devices/agent.tgz.
node_modules/.bin/tsx packages/device/build.ts
mkdir -p dist/device
packed="$(npm pack ./packages/device --pack-destination dist/device --silent | tail -n 1)"
mv "dist/device/$packed" dist/device/rein-device.tgz
echo "[build] npm pack packages/device -> dist/device/rein-device.tgz"

echo "[build] done"
