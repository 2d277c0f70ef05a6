// A Vitest reporter for `npm test`'s summary (scripts/test-summary.mjs): how long each test file
// took, from its import to its last hook, and every test that passed only on a retry. Vitest's JSON
// report has neither. It writes REIN_VITEST_RUN_REPORT (a JSON file) when the run ends.
import fs from "node:fs";
import path from "node:path";
import type { Reporter, TestCase, TestModule } from "vitest/node";

export interface VitestRunReport {
  files: Array<{ file: string; seconds: number }>;
  /** Tests that needed more than one try, with how many retries and how they ended. */
  retried: Array<{ file: string; test: string; retries: number; state: string }>;
}

export default class RunReport implements Reporter {
  private readonly report: VitestRunReport = { files: [], retried: [] };

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    this.report.files.push({ file: path.relative(process.cwd(), module.moduleId), seconds: Math.round(ms / 100) / 10 });
  }

  onTestCaseResult(test: TestCase): void {
    const retries = test.diagnostic()?.retryCount ?? 0;
    if (retries > 0) {
      this.report.retried.push({
        file: path.relative(process.cwd(), test.module.moduleId),
        test: test.fullName,
        retries,
        state: test.result().state,
      });
    }
  }

  onTestRunEnd(): void {
    const out = process.env.REIN_VITEST_RUN_REPORT;
    if (!out) return;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(this.report));
  }
}
