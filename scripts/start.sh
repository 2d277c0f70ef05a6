#!/usr/bin/env bash
# `npm start`: runs an already built Rein (scripts/start.mjs) on a Node Rein supports.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/node-runtime.sh
source scripts/node-runtime.sh
rein_use_node
exec node scripts/start.mjs "$@"
