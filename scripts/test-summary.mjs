// Summarises a `npm test` run (scripts/test.sh): the exit codes of the plain
// stages and the JSON reports of Vitest and Playwright.
//
//   node scripts/test-summary.mjs \
//     --stage deps=0:12 --stage typecheck=0:31 --stage lint=0:70 --stage build=1:80 \
//     --vitest test-results/vitest.json --vitest-log test-results/vitest.log \
//     --vitest-exit 0 --vitest-seconds 20 --vitest-report test-results/vitest-run.json \
//     --playwright test-results/playwright.json --playwright-exit 0 --playwright-seconds 60 \
//     --elapsed 400
//
// A failed plain stage counts as 1 failed test. A test stage counts its tests;
// a missing or unreadable report, a test file that failed to load, or an exit
// code that the report does not explain each count as 1 failed.
// It names every Vitest test that passed only on a retry, as Playwright's flaky
// tests are named, and lists the slowest test files of both. The time in all is
// --elapsed (the whole run, waits included) when given, else the stages' sum.
// --machine-start and --machine-end (scripts/machine-speed.mjs's readings) add a line on how fast
// the machine was, so that a run slowed by its machine is not read as a slower suite.
// The last line printed is "N passed, N failed" (", N skipped" when some were).
// Exits 1 when anything failed or no test ran at all.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    stage: { type: "string", multiple: true, default: [] },
    vitest: { type: "string" },
    "vitest-exit": { type: "string" },
    "vitest-log": { type: "string" },
    "vitest-seconds": { type: "string" },
    "vitest-report": { type: "string" },
    playwright: { type: "string" },
    "playwright-exit": { type: "string" },
    "playwright-seconds": { type: "string" },
    elapsed: { type: "string" },
    "machine-start": { type: "string" },
    "machine-end": { type: "string" },
  },
});

/** @typedef {{ name: string, passed: number, failed: number, skipped: number, notes: string[], seconds?: number, plain?: boolean, overlap?: boolean }} Stage */

/** How long each test file took, by stage: the slowest are listed at the end. @type {Array<{ stage: string, file: string, seconds: number }>} */
const fileTimes = [];

/** How many of the slowest files the summary lists. */
const SLOWEST = 15;

/** @returns {any | undefined} */
function readJson(file, notes) {
  if (!file) {
    notes.push("no report file given");
    return undefined;
  }
  if (!fs.existsSync(file)) {
    notes.push(`no report written (${file})`);
    return undefined;
  }
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    notes.push(`unreadable report ${file}: ${err.message}`);
    return undefined;
  }
}

function toNumber(v) {
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** Vitest's JSON reporter writes Jest's format (numPassedTests, testResults...). */
function vitestStage(file, exitCode, seconds, logFile, reportFile) {
  /** @type {Stage} */
  const s = { name: "vitest", passed: 0, failed: 0, skipped: 0, notes: [], seconds };
  const r = readJson(file, s.notes);
  if (r) {
    s.passed = r.numPassedTests ?? 0;
    s.failed = r.numFailedTests ?? 0;
    s.skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // A file that fails to import or whose hooks throw has no failed test.
    for (const file of r.testResults ?? []) {
      const failedResults = (file.assertionResults ?? []).filter((a) => a.status === "failed");
      const rel = path.relative(process.cwd(), file.name);
      // Name each failed test, so the last lines of a CI log say what broke.
      for (const a of failedResults.slice(0, 10)) {
        const why = firstLine((a.failureMessages ?? [])[0]);
        s.notes.push(`${rel} › ${a.fullName ?? a.title}${why ? `: ${why}` : ""}`);
      }
      const failedTests = failedResults.length;
      if (file.status === "failed" && failedTests === 0) {
        s.failed += 1;
        const why = String(file.message ?? "").split("\n")[0];
        s.notes.push(`${path.relative(process.cwd(), file.name)}: failed outside a test${why ? `: ${why}` : ""}`);
      }
    }
  } else {
    s.failed += 1;
  }
  // The run report (test/reporters/run-report.ts): file times, and tests that passed only on a retry.
  const report = reportFile && fs.existsSync(reportFile) ? readJson(reportFile, s.notes) : undefined;
  if (report) {
    for (const f of report.files ?? []) fileTimes.push({ stage: "vitest", file: f.file, seconds: f.seconds });
    const flaky = (report.retried ?? []).filter((t) => t.state === "passed");
    if (flaky.length > 0) s.notes.push(`${flaky.length} flaky (passed on retry)`);
    for (const t of (report.retried ?? []).slice(0, 10)) {
      s.notes.push(`retried ${t.retries}× (${t.state}): ${t.file} › ${t.test}`);
    }
  }
  if (exitCode !== undefined && exitCode !== 0 && s.failed === 0) {
    s.failed = 1;
    s.notes.push(`vitest exited with code ${exitCode} (see its output above)`);
    s.notes.push(...unhandledErrors(logFile));
  }
  return s;
}

/**
 * What Vitest printed under "Unhandled Errors": each error's first line and
 * the test file it came from, so the last lines of a CI log say what broke.
 */
function unhandledErrors(logFile) {
  if (!logFile || !fs.existsSync(logFile)) return [];
  const lines = stripColours(fs.readFileSync(logFile, "utf8")).split("\n");
  const start = lines.findIndex((l) => /Unhandled Errors?\b/.test(l));
  if (start < 0) return [];
  const out = [];
  for (let i = start + 1; i < lines.length && out.length < 12; i++) {
    const line = lines[i].trim();
    // Each error under its kind: "Unhandled Rejection", "Uncaught Exception", "Unhandled Error", …
    if (/^⎯+ [A-Z][A-Za-z ]+ ⎯+$/.test(line)) {
      const error = lines.slice(i + 1).find((l) => l.trim() !== "");
      if (error) out.push(`unhandled: ${error.trim().slice(0, 300)}`);
    } else if (/^This error originated in "/.test(line)) {
      out.push(`  in ${line.split('"')[1]}`);
    } else if (/^The last test to run before this error was "/.test(line)) {
      out.push(`  after the test "${line.split('"').slice(1, -1).join('"').slice(0, 200)}"`);
    } else if (/^(Test Files|Tests)\s/.test(line)) {
      break;
    }
  }
  return out.length > 0 ? out : [`unhandled: ${lines[start].trim()}`];
}

/** Playwright's JSON reporter: stats.{expected,unexpected,flaky,skipped} and errors[]. */
function playwrightStage(file, exitCode, seconds) {
  /** @type {Stage} */
  const s = { name: "playwright", passed: 0, failed: 0, skipped: 0, notes: [], seconds };
  const r = readJson(file, s.notes);
  if (r) {
    const st = r.stats ?? {};
    s.passed = (st.expected ?? 0) + (st.flaky ?? 0);
    s.failed = st.unexpected ?? 0;
    s.skipped = st.skipped ?? 0;
    if (st.flaky) s.notes.push(`${st.flaky} flaky (passed on retry)`);
    const errors = r.errors ?? [];
    for (const e of errors.slice(0, 5)) s.notes.push(String(e.message ?? e.value ?? "error").split("\n")[0]);
    for (const t of failedPlaywrightTests(r.suites ?? []).slice(0, 10)) s.notes.push(t);
    for (const [file, ms] of playwrightFileTimes(r.suites ?? [])) {
      fileTimes.push({ stage: "playwright", file: `e2e/${file}`, seconds: Math.round(ms / 100) / 10 });
    }
    if (errors.length > 0 && s.failed === 0) s.failed = 1;
  } else {
    s.failed += 1;
  }
  if (exitCode !== undefined && exitCode !== 0 && s.failed === 0) {
    s.failed = 1;
    s.notes.push(`playwright exited with code ${exitCode} (see its output above)`);
  }
  return s;
}

/** 1234 -> "20m 34s". */
function formatSeconds(seconds) {
  const m = Math.floor(seconds / 60);
  return m > 0 ? `${m}m ${String(Math.round(seconds % 60)).padStart(2, "0")}s` : `${Math.round(seconds)}s`;
}

/** Text without the terminal's colour codes (ESC [ ... m). */
function stripColours(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

/** The first line of an error message, without terminal colours, at most 300 characters. */
function firstLine(message) {
  return stripColours(String(message ?? ""))
    .split("\n")[0]
    .slice(0, 300);
}

/** "file › title: first line of the error" for each test whose last try failed. */
function failedPlaywrightTests(suites, out = []) {
  for (const suite of suites) {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const last = (test.results ?? []).at(-1);
        const why = firstLine(last?.error?.message);
        out.push(`${spec.file ?? suite.file} › ${spec.title}${why ? `: ${why}` : ""}`);
      }
    }
    failedPlaywrightTests(suite.suites ?? [], out);
  }
  return out;
}

/** Milliseconds spent in each spec file: every try of every test in it. */
function playwrightFileTimes(suites, out = new Map(), file = undefined) {
  for (const suite of suites) {
    const here = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      const f = spec.file ?? here ?? "?";
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) out.set(f, (out.get(f) ?? 0) + (result.duration ?? 0));
      }
    }
    playwrightFileTimes(suite.suites ?? [], out, here);
  }
  return out;
}

/** A reading of scripts/machine-speed.mjs, or undefined when there is none or it cannot be read. */
function machineReading(file) {
  if (!file || !fs.existsSync(file)) return undefined;
  try {
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    return typeof r.cpuMs === "number" && typeof r.wallMs === "number" ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "machine: a fixed task took 186 ms of CPU (190 ms on the clock) at the start, …": the same work
 * taking longer means a slower machine; a clock far behind the CPU time means a crowded one.
 */
function machineLine(startFile, endFile) {
  const readings = [
    ["at the start", machineReading(startFile)],
    ["at the end", machineReading(endFile)],
  ].filter(([, r]) => r);
  if (readings.length === 0) return undefined;
  const parts = readings.map(([when, r]) => `${r.cpuMs} ms of CPU (${r.wallMs} ms on the clock, load average ${r.load ?? "?"}) ${when}`);
  const lines = [`  machine: a fixed task took ${parts.join("; ")}`];
  for (const [when, r] of readings) {
    if (Array.isArray(r.busiest) && r.busiest.length > 0) {
      lines.push(`          busiest processes ${when}: ${r.busiest.map((p) => `${p.command} ${p.cpu}%`).join(", ")}`);
    }
  }
  return lines;
}

/** @type {Stage[]} */
const stages = [];
for (const spec of values.stage) {
  // name=exitcode[:seconds[:overlap]]: "overlap" marks a stage that ran beside another one.
  const m = /^([\w-]+)=(-?\d+)(?::(\d+))?(:overlap)?$/.exec(spec);
  if (!m) {
    console.error(`test-summary: bad --stage ${JSON.stringify(spec)} (want name=exitcode[:seconds])`);
    process.exit(2);
  }
  const code = Number(m[2]);
  stages.push({
    name: m[1],
    passed: 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    notes: code === 0 ? [] : [`exit code ${code}`],
    seconds: toNumber(m[3]),
    overlap: Boolean(m[4]),
    plain: true,
  });
}
if (values.vitest !== undefined || values["vitest-exit"] !== undefined) {
  stages.push(
    vitestStage(
      values.vitest,
      toNumber(values["vitest-exit"]),
      toNumber(values["vitest-seconds"]),
      values["vitest-log"],
      values["vitest-report"],
    ),
  );
}
if (values.playwright !== undefined || values["playwright-exit"] !== undefined) {
  stages.push(playwrightStage(values.playwright, toNumber(values["playwright-exit"]), toNumber(values["playwright-seconds"])));
}

console.log("");
console.log("Test summary");
for (const s of stages) {
  const ok = s.failed === 0;
  const time = s.seconds !== undefined ? ` (${s.seconds}s${s.overlap ? ", beside the stage before" : ""})` : "";
  const counts = s.plain ? "" : `: ${s.passed} passed, ${s.failed} failed${s.skipped ? `, ${s.skipped} skipped` : ""}`;
  console.log(`  ${ok ? "PASS" : "FAIL"}  ${s.name}${counts}${time}`);
  for (const n of s.notes) console.log(`          ${n}`);
}

// A stage beside another adds no time of its own, but waiting for it after the other one ended does:
// the run's own clock (--elapsed) counts that wait.
const total = toNumber(values.elapsed) ?? stages.reduce((a, s) => a + (s.overlap ? 0 : (s.seconds ?? 0)), 0);
if (total > 0) console.log(`  time in all: ${formatSeconds(total)}`);
const machine = machineLine(values["machine-start"], values["machine-end"]);
if (machine) for (const line of machine) console.log(line);
if (fileTimes.length > 0) {
  console.log(`The ${Math.min(SLOWEST, fileTimes.length)} slowest test files`);
  for (const f of [...fileTimes].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST)) {
    console.log(`  ${f.seconds.toFixed(1).padStart(7)}s  ${f.stage.padEnd(10)}  ${f.file}`);
  }
}

const passed = stages.reduce((a, s) => a + s.passed, 0);
const failed = stages.reduce((a, s) => a + s.failed, 0);
const skipped = stages.reduce((a, s) => a + s.skipped, 0);
if (passed + failed === 0) console.log("  FAIL  no test ran");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || passed + failed === 0 ? 1 : 0);
