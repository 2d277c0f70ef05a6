#!/usr/bin/env bash
# Runs the Prisma CLI offline: the JS engine needs no binaries, so point the
# binary variables at an existing file and Prisma never tries to download them.
set -euo pipefail
# shellcheck source=scripts/node-runtime.sh
source "$(dirname "$0")/node-runtime.sh"
rein_use_node
export PRISMA_SCHEMA_ENGINE_BINARY=/bin/false
export PRISMA_QUERY_ENGINE_LIBRARY=/bin/false
export PRISMA_HIDE_UPDATE_MESSAGE=1
export CHECKPOINT_DISABLE=1
export DATABASE_URL="${DATABASE_URL:-file:./data/rein.db}"
# SQLite creates the database file but not its folder (a fresh clone has no ./data).
if [[ "$DATABASE_URL" == file:* ]]; then
  db_file="${DATABASE_URL#file:}"
  mkdir -p "$(dirname "${db_file%%\?*}")"
fi
exec "$(dirname "$0")/../node_modules/.bin/prisma" "$@"
