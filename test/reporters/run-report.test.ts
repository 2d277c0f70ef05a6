// test/reporters/run-report.ts under a real Vitest run: the summary of `npm test` reads what it writes.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { VitestRunReport } from "./run-report";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-run-report-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it("records each file's time and the test that passed only on a retry", () => {
  const out = path.join(tmp, "report.json");
  const vitest = path.join(__dirname, "..", "..", "node_modules", ".bin", "vitest");
  const r = spawnSync(vitest, ["run", "--config", path.join(__dirname, "fixture", "vitest.config.ts")], {
    encoding: "utf8",
    env: { ...process.env, REIN_VITEST_RUN_REPORT: out, VITEST_FS_MODULE_CACHE_PATH: path.join(tmp, "cache") },
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, "utf8")) as VitestRunReport;
  expect(report.files.map((f) => path.basename(f.file))).toEqual(["flaky.fixture.ts"]);
  expect(report.files[0]!.seconds).toBeGreaterThanOrEqual(0);
  expect(report.retried).toEqual([
    { file: expect.stringMatching(/flaky\.fixture\.ts$/), test: "passes on its second try", retries: 1, state: "passed" },
  ]);
});
