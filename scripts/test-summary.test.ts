// scripts/test-summary.mjs: the last lines of `npm test` say what broke, also
// when Vitest fails a run for an unhandled error while every test passed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-summary-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const ESC = "\u001b";
/** What Vitest 5 prints for an unhandled rejection, colours included. */
const UNHANDLED_LOG = [
  ` ${ESC}[32m✓${ESC}[39m test/a.test.ts (1 test) 25ms`,
  `${ESC}[31m⎯⎯⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯⎯⎯${ESC}[39m`,
  "",
  "Vitest caught 1 unhandled error during the test run.",
  "",
  `${ESC}[31m⎯⎯⎯⎯ Unhandled Rejection ⎯⎯⎯⎯⎯${ESC}[39m`,
  `${ESC}[31mError: socket closed by the peer${ESC}[39m`,
  " ❯ Timeout._onTimeout test/a.test.ts:3:42",
  "",
  'This error originated in "test/a.test.ts" test file. It doesn\'t mean the error was thrown inside the file itself, but while it was running.',
  'The last test to run before this error was "stops the server". This means either:',
  "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯",
  `${ESC}[31m⎯⎯⎯⎯⎯ Uncaught Exception ⎯⎯⎯⎯⎯${ESC}[39m`,
  "Error: read ECONNRESET",
  " ❯ TCP.onStreamRead node:internal/stream_base_commons:216:20",
  "",
  'This error originated in "test/attack/b.test.ts" test file. It doesn\'t mean the error was thrown inside the file itself, but while it was running.',
  "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯",
  "",
  " Test Files  1 passed (1)",
  "      Tests  1 passed (1)",
  "     Errors  1 error",
].join("\n");

function summary(log: string | undefined, exit: number): { status: number | null; out: string } {
  const report = path.join(tmp, "vitest.json");
  fs.writeFileSync(report, JSON.stringify({ numPassedTests: 1, numFailedTests: 0, testResults: [] }));
  const args = [path.join(__dirname, "test-summary.mjs"), "--vitest", report, "--vitest-exit", String(exit)];
  if (log !== undefined) {
    const file = path.join(tmp, "vitest.log");
    fs.writeFileSync(file, log);
    args.push("--vitest-log", file);
  }
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

it("names an unhandled error, its test file and the test before it", () => {
  const { status, out } = summary(UNHANDLED_LOG, 1);
  expect(status).toBe(1);
  expect(out).toContain("unhandled: Error: socket closed by the peer");
  expect(out).toContain("in test/a.test.ts");
  expect(out).toContain('after the test "stops the server"');
  expect(out).toContain("unhandled: Error: read ECONNRESET");
  expect(out).toContain("in test/attack/b.test.ts");
  expect(out.trim().split("\n").at(-1)).toBe("1 passed, 1 failed");
});

it("a passing run says nothing of its log", () => {
  const { status, out } = summary(UNHANDLED_LOG, 0);
  expect(status).toBe(0);
  expect(out).not.toContain("unhandled");
});

it("an exit code with no log still fails the run", () => {
  const { status, out } = summary(undefined, 1);
  expect(status).toBe(1);
  expect(out).toContain("vitest exited with code 1");
});

it("names the tests that passed only on a retry, and lists the slowest files of both test stages", () => {
  const vitest = path.join(tmp, "vitest-ok.json");
  fs.writeFileSync(vitest, JSON.stringify({ numPassedTests: 3, numFailedTests: 0, testResults: [] }));
  const runReport = path.join(tmp, "vitest-run.json");
  fs.writeFileSync(
    runReport,
    JSON.stringify({
      files: [
        { file: "test/slow.test.ts", seconds: 91.5 },
        { file: "test/quick.test.ts", seconds: 0.4 },
      ],
      retried: [{ file: "test/slow.test.ts", test: "a worker takes over", retries: 1, state: "passed" }],
    }),
  );
  const playwright = path.join(tmp, "playwright.json");
  const test = (ms: number) => ({ status: "expected", results: [{ duration: ms }] });
  fs.writeFileSync(
    playwright,
    JSON.stringify({
      stats: { expected: 2, unexpected: 0, flaky: 0, skipped: 0 },
      suites: [
        {
          file: "run.spec.ts",
          specs: [
            { title: "a", tests: [test(30_000)] },
            { title: "b", tests: [test(12_500)] },
          ],
        },
      ],
    }),
  );
  const r = spawnSync(
    process.execPath,
    [
      path.join(__dirname, "test-summary.mjs"),
      ...["--stage", "deps=0:12", "--stage", "lint=0:70:overlap", "--vitest", vitest, "--vitest-exit", "0", "--vitest-seconds", "600"],
      ...["--vitest-report", runReport, "--playwright", playwright, "--playwright-exit", "0", "--playwright-seconds", "300"],
    ],
    { encoding: "utf8" },
  );
  const out = r.stdout + r.stderr;
  expect(r.status).toBe(0);
  expect(out).toContain("1 flaky (passed on retry)");
  expect(out).toContain("retried 1× (passed): test/slow.test.ts › a worker takes over");
  // The lint ran beside another stage: its 70 s are not added to the time in all.
  expect(out).toContain("lint (70s, beside the stage before)");
  expect(out).toContain("time in all: 15m 12s");
  // The run's own clock, when given, counts the wait for a stage that ran beside another and ended later.
  const timed = spawnSync(
    process.execPath,
    [path.join(__dirname, "test-summary.mjs"), "--stage", "deps=0:12", "--stage", "lint=0:70:overlap", "--elapsed", "95"],
    { encoding: "utf8" },
  );
  expect(timed.stdout).toContain("time in all: 1m 35s");
  const slowest = out.slice(out.indexOf("slowest test files")).split("\n").slice(1, 4);
  expect(slowest.map((l) => l.trim().split(/\s+/))).toEqual([
    ["91.5s", "vitest", "test/slow.test.ts"],
    ["42.5s", "playwright", "e2e/run.spec.ts"],
    ["0.4s", "vitest", "test/quick.test.ts"],
  ]);
  expect(out.trim().split("\n").at(-1)).toBe("5 passed, 0 failed");
});

it("names a failed lint stage among the plain stages and fails the run", () => {
  const r = spawnSync(
    process.execPath,
    [path.join(__dirname, "test-summary.mjs"), "--stage", "typecheck=0:31", "--stage", "lint=1:70", "--stage", "build=0:80"],
    { encoding: "utf8" },
  );
  expect(r.status).toBe(1);
  expect(r.stdout).toMatch(/PASS {2}typecheck \(31s\)/);
  expect(r.stdout).toMatch(/FAIL {2}lint \(70s\)\n\s+exit code 1/);
  expect(r.stdout.trim().split("\n").at(-1)).toBe("0 passed, 1 failed");
});

it("says how fast the machine was at the start and at the end, and what kept it busy", () => {
  // A real reading of this machine, then one of a crowded machine.
  const speed = spawnSync(process.execPath, [path.join(__dirname, "machine-speed.mjs")], { encoding: "utf8" });
  expect(speed.status).toBe(0);
  const reading = JSON.parse(speed.stdout) as { cpuMs: number; wallMs: number; check: number };
  expect(reading.cpuMs).toBeGreaterThan(0);
  expect(reading.wallMs).toBeGreaterThan(0);
  // The same work every time: the loop's result does not change.
  expect(reading.check).toBe(30878976);
  const start = path.join(tmp, "machine-start.json");
  const end = path.join(tmp, "machine-end.json");
  fs.writeFileSync(start, speed.stdout);
  fs.writeFileSync(end, JSON.stringify({ cpuMs: 420, wallMs: 900, load: 3.1, busiest: [{ cpu: 95, command: "chromium" }] }));
  const r = spawnSync(
    process.execPath,
    [path.join(__dirname, "test-summary.mjs"), "--stage", "deps=0:12", "--machine-start", start, "--machine-end", end],
    { encoding: "utf8" },
  );
  expect(r.stdout).toContain(`machine: a fixed task took ${reading.cpuMs} ms of CPU (${reading.wallMs} ms on the clock`);
  expect(r.stdout).toContain("420 ms of CPU (900 ms on the clock, load average 3.1) at the end");
  expect(r.stdout).toContain("busiest processes at the end: chromium 95%");
  // A missing or unreadable reading is left out, not counted as a failure.
  fs.writeFileSync(end, "not json");
  const partial = spawnSync(
    process.execPath,
    [
      path.join(__dirname, "test-summary.mjs"),
      "--stage",
      "deps=0:12",
      "--machine-start",
      path.join(tmp, "none.json"),
      "--machine-end",
      end,
    ],
    { encoding: "utf8" },
  );
  expect(partial.stdout).toContain("PASS  deps (12s)");
  expect(partial.stdout).not.toContain("machine:");
});
