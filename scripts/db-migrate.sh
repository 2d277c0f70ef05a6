#!/usr/bin/env bash
# `npm run db:migrate`: applies the migrations DATABASE_URL still needs.
# SQLite: Prisma's migrate deploy. PostgreSQL: Rein's own migrator over the
# derived SQL (server/db/migrate-postgres.ts), which Prisma cannot yet do
# offline through its PostgreSQL driver adapter.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
rein_use_node
case "${DATABASE_URL:-}" in
  postgres://*|postgresql://*) exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON server/db/migrate-postgres.ts ;;
  *) exec bash scripts/prisma.sh migrate deploy ;;
esac
