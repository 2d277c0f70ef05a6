#!/usr/bin/env bash
# `npm run up`: installs what is missing, migrates the database, builds when
# the sources changed, then runs the server in the foreground.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export NEXT_TELEMETRY_DISABLED=1

# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
rein_use_node

bash scripts/ensure-deps.sh up

# The database: DATABASE_URL, or <REIN_DATA_DIR>/rein.db (REIN_DATA_DIR defaults
# to ./data), the same rule the server applies.
data_dir="${REIN_DATA_DIR:-./data}"
mkdir -p "$data_dir"
if [[ -n "${DATABASE_URL:-}" ]]; then
  db_url="$DATABASE_URL"
else
  db_url="file:$(cd "$data_dir" && pwd)/rein.db"
fi

echo "[up] applying database migrations"
if ! migrate_log="$(DATABASE_URL="$db_url" bash scripts/db-migrate.sh --schema-only 2>&1)"; then
  printf '%s\n' "$migrate_log" >&2
  echo "[up] the database migrations failed (database: ${db_url%%\?*})" >&2
  exit 1
fi
# Rewrites of large tables that an upgrade needs, in batches, saying how far they are (docs/operations.md#upgrades).
if ! DATABASE_URL="$db_url" node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON server/db/backfill.ts; then
  echo "[up] rewriting a table for this upgrade failed (database: ${db_url%%\?*}); run npm run up again to go on" >&2
  exit 1
fi

# Rebuild when an output is missing or any source is newer than it.
needs_build=""
if [[ ! -f dist/server.mjs || ! -f dist/sandbox-worker.mjs || ! -f dist/terminal-worker.mjs || ! -f dist/policy-worker.mjs || ! -f .next/BUILD_ID ]]; then
  needs_build="no build yet"
else
  sources=()
  for p in app components server lib prisma public server.ts next.config.ts tsconfig.json package-lock.json; do
    [[ -e "$p" ]] && sources+=("$p")
  done
  for stamp in dist/server.mjs .next/BUILD_ID; do
    if [[ -n "$(find "${sources[@]}" -newer "$stamp" -print -quit 2>/dev/null)" ]]; then
      needs_build="sources changed"
      break
    fi
  done
fi
if [[ -n "$needs_build" ]]; then
  echo "[up] building ($needs_build)"
  bash scripts/build.sh
else
  echo "[up] build is up to date"
fi

export NODE_ENV=production
exec node dist/server.mjs
