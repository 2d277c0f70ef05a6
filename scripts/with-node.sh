#!/usr/bin/env bash
# Runs a command with a Node Rein supports first on PATH (scripts/node-runtime.sh):
# every npm script that runs Node goes through here, so the CLI, the benchmarks
# and the dev server use the same Node (and native modules) as npm run up.
set -euo pipefail
# shellcheck source=scripts/node-runtime.sh
source "$(dirname "${BASH_SOURCE[0]}")/node-runtime.sh"
rein_use_node
exec "$@"
