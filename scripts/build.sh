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
rm -f dist/server.mjs dist/sandbox-worker.mjs

echo "[build] prisma generate"
bash scripts/prisma.sh generate

echo "[build] next build"
node_modules/.bin/next build

# The runtime-tool sandbox runs in worker threads, which load their own entry
# from beside the server's bundle (server/improve/sandbox/pool.ts).
echo "[build] esbuild server/improve/sandbox/worker.ts -> dist/sandbox-worker.mjs"
node_modules/.bin/esbuild server/improve/sandbox/worker.ts \
  --bundle \
  --platform=node \
  --format=esm \
  --packages=external \
  --target=node22 \
  --tsconfig=tsconfig.json \
  --log-level=warning \
  --outfile=dist/sandbox-worker.mjs

# The policy reads long shell command lines in worker threads, which load
# their own entry from beside the server's bundle (server/policy/reader.ts).
rm -f dist/policy-worker.mjs
echo "[build] esbuild server/policy/parse-worker.ts -> dist/policy-worker.mjs"
node_modules/.bin/esbuild server/policy/parse-worker.ts \
  --bundle \
  --platform=node \
  --format=esm \
  --packages=external \
  --target=node22 \
  --tsconfig=tsconfig.json \
  --log-level=warning \
  --outfile=dist/policy-worker.mjs

echo "[build] esbuild server.ts -> dist/server.mjs"
node_modules/.bin/esbuild server.ts \
  --bundle \
  --platform=node \
  --format=esm \
  --packages=external \
  --target=node22 \
  --tsconfig=tsconfig.json \
  --log-level=warning \
  --outfile=dist/server.mjs

echo "[build] done"
