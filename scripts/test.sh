#!/usr/bin/env bash
# `npm test`: every stage runs even when an earlier one failed:
#   deps (scripts/ensure-deps.sh test), typecheck (tsc), lint (eslint, prettier --check), build (scripts/build.sh),
#   vitest (unit and integration tests), playwright (browser tests on the build).
# Then scripts/test-summary.mjs prints per-stage results and a last line
# "N passed, N failed[, N skipped]", and decides the exit code.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

export NEXT_TELEMETRY_DISABLED=1
# Vite warns about a future config loader on every run; it does not concern us.
export VITE_CONFIG_NATIVE_IGNORE_WARNING=true

# Every stage runs on a Node Rein supports (Node 24 LTS, fetched into .rein/node
# when this machine's is older than 22). Without one nothing can run.
# shellcheck source=scripts/node-runtime.sh
if ! { source scripts/node-runtime.sh && rein_use_node; }; then
  echo "0 passed, 1 failed (no supported Node.js)"
  exit 1
fi
[[ "$(command -v node)" == */.rein/node/bin/node ]] || echo "[node] tests run on this machine's Node $(node -v)"

reports=test-results
vitest_json="$reports/vitest.json"
playwright_json="$reports/playwright.json"
export PLAYWRIGHT_JSON_OUTPUT_FILE="$playwright_json"
mkdir -p "$reports"
vitest_run_report="$reports/vitest-run.json"
rm -f "$vitest_json" "$vitest_run_report" "$reports/vitest.log" "$playwright_json"

stage_args=()

# How fast the machine is when the tests start and when they end (scripts/machine-speed.mjs): a run
# that was slow because the machine was slowed or crowded says so in the summary.
machine_start="$reports/machine-start.json"
machine_end="$reports/machine-end.json"
rm -f "$machine_start" "$machine_end"
node scripts/machine-speed.mjs >"$machine_start" 2>/dev/null || rm -f "$machine_start"

# run_stage NAME COMMAND... : runs a stage, records its exit code and duration.
run_stage() {
  local name="$1"
  shift
  printf '\n===== %s =====\n' "$name"
  local start=$SECONDS rc=0
  "$@" || rc=$?
  local took=$((SECONDS - start))
  printf '===== %s: %s (%ss) =====\n' "$name" "$([[ $rc == 0 ]] && echo ok || echo "FAILED, exit code $rc")" "$took"
  last_rc=$rc
  last_seconds=$took
}

# ESLint's few bug-finding rules and Prettier's layout (docs/development.md#lint-and-format);
# both run, the caches in .cache/ keep a second run short.
lint() {
  local rc=0
  node_modules/.bin/eslint --cache --cache-location .cache/eslint/ --cache-strategy content --max-warnings 0 . || rc=$?
  node_modules/.bin/prettier --check --cache --cache-location .cache/prettier --log-level warn . || rc=$?
  return "$rc"
}

# tsc and ESLint are one thread each: the lint runs beside the type check, on the other core,
# and its output is printed as a stage of its own once the type check is done.
lint_log="$reports/lint.log"
lint_status="$reports/lint.status"
typecheck() {
  # On a fresh clone next-env.d.ts and .next/types (route and CSS-module types)
  # do not exist yet; `next typegen` writes them without a build. Both checks read them.
  if [[ -d app ]]; then
    node_modules/.bin/next typegen || return
  fi
  (
    start=$SECONDS rc=0
    lint >"$lint_log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$lint_status"
  ) &
  lint_pid=$!
  node_modules/.bin/tsc --noEmit
}

run_stage deps bash scripts/ensure-deps.sh test
stage_args+=(--stage "deps=$last_rc:$last_seconds")

rm -f "$lint_log" "$lint_status"
lint_pid=""
run_stage typecheck typecheck
stage_args+=(--stage "typecheck=$last_rc:$last_seconds")

printf '\n===== lint =====\n'
if [[ -n "$lint_pid" ]]; then
  wait "$lint_pid"
  cat "$lint_log"
  read -r lint_rc lint_seconds <"$lint_status" || { lint_rc=1 lint_seconds=0; }
else
  echo "not run: next typegen failed"
  lint_rc=1 lint_seconds=0
fi
printf '===== lint: %s (%ss, beside the type check) =====\n' "$([[ $lint_rc == 0 ]] && echo ok || echo "FAILED, exit code $lint_rc")" "$lint_seconds"
# Its time is not added to the total: it ran within the type check's.
stage_args+=(--stage "lint=$lint_rc:$lint_seconds:overlap")

# The build checks the types again unless the type check stage just passed.
typecheck_rc=$last_rc
[[ $typecheck_rc == 0 ]] && export REIN_TYPES_CHECKED=1
# A page whose first-load JavaScript is over its budget fails the build here (scripts/js-budget.mjs).
export REIN_JS_BUDGET=enforce
run_stage build bash scripts/build.sh
unset REIN_TYPES_CHECKED REIN_JS_BUDGET
stage_args+=(--stage "build=$last_rc:$last_seconds")

# Vitest's own output is kept too: an unhandled error fails the run without
# failing a test, and the summary names it from this log.
vitest_log="$reports/vitest.log"
# The run report (test/reporters/run-report.ts) adds each file's time and the tests passed only on a retry.
vitest_stage() {
  REIN_VITEST_RUN_REPORT="$vitest_run_report" node_modules/.bin/vitest run --reporter=default --reporter=json \
    --reporter=./test/reporters/run-report.ts --outputFile.json="$vitest_json" 2>&1 | tee "$vitest_log"
}
run_stage vitest vitest_stage
stage_args+=(--vitest "$vitest_json" --vitest-log "$vitest_log" --vitest-report "$vitest_run_report")
stage_args+=(--vitest-exit "$last_rc" --vitest-seconds "$last_seconds")

run_stage playwright node_modules/.bin/playwright test --reporter=list,json
stage_args+=(--playwright "$playwright_json" --playwright-exit "$last_rc" --playwright-seconds "$last_seconds")

node scripts/machine-speed.mjs >"$machine_end" 2>/dev/null || rm -f "$machine_end"
stage_args+=(--machine-start "$machine_start" --machine-end "$machine_end")

node scripts/test-summary.mjs "${stage_args[@]}" --elapsed "$SECONDS"
