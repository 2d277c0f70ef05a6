#!/usr/bin/env bash
# `npm run db:migrate`: applies the migrations DATABASE_URL still needs, then
# the backfills that fill what they added, in batches (server/db/backfill.ts);
# --schema-only leaves those to the caller, which shows their progress.
# SQLite: Prisma's migrate deploy. PostgreSQL: Rein's own migrator over the
# derived SQL (server/db/migrate-postgres.ts), which Prisma cannot yet do
# offline through its PostgreSQL driver adapter.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
rein_use_node
case "${DATABASE_URL:-}" in
  postgres://*|postgresql://*) node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON server/db/migrate-postgres.ts ;;
  *) bash scripts/prisma.sh migrate deploy ;;
esac
[[ "${1:-}" == --schema-only ]] && exit 0
exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON server/db/backfill.ts
