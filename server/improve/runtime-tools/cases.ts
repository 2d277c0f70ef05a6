// The trigger cases of a runtime tool, run by the harness in the sandbox: the
// improver's TEST and, again on the stored source, the gate. The agent only
// ever sees results; it cannot mark a case passed.
import { z } from "zod";
import { runRuntimeTool, type SandboxHost } from "../sandbox";
import type { TriggerCase } from "./proposal";

export const CaseResult = z.object({
  name: z.string(),
  passed: z.boolean(),
  message: z.string().describe('What happened, in words: the mismatch, the error, or "as expected"'),
  durationMs: z.number(),
});
export type CaseResult = z.infer<typeof CaseResult>;

/** The results of one run of a tool's trigger cases, as stored on the improvement and shown on its page. */
export const CaseRun = z
  .object({
    passed: z.number().int(),
    failed: z.number().int(),
    results: z.array(CaseResult),
    summary: z.string().describe("The results in a sentence"),
  })
  .meta({ id: "CaseRun" });
export type CaseRun = z.infer<typeof CaseRun>;

/** A stored CaseRun (Improvement.caseResults); null when there is none or it is not one. */
export function storedCaseRun(text: string | null): CaseRun | null {
  if (!text) return null;
  try {
    const parsed = CaseRun.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export async function runCases(source: string, cases: TriggerCase[], host: SandboxHost = {}): Promise<CaseRun> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const outcome = await runRuntimeTool(source, c.args, host);
    const durationMs = Math.round(outcome.durationMs * 10) / 10;
    if (c.expect.ok) {
      if (!outcome.ok) {
        results.push({
          name: c.name,
          passed: false,
          message: `expected a result, got ${outcome.error.code}: ${outcome.error.message}`,
          durationMs,
        });
        continue;
      }
      const mismatch = c.expect.output === undefined ? null : difference(c.expect.output, outcome.output, "output");
      results.push({ name: c.name, passed: !mismatch, message: mismatch ?? "as expected", durationMs });
    } else {
      if (outcome.ok) {
        results.push({ name: c.name, passed: false, message: `expected an error, got ${preview(outcome.output)}`, durationMs });
        continue;
      }
      const wanted = c.expect.errorIncludes;
      const ok = !wanted || outcome.error.message.includes(wanted);
      results.push({
        name: c.name,
        passed: ok,
        message: ok ? `failed as expected: ${outcome.error.message}` : `the error does not mention "${wanted}": ${outcome.error.message}`,
        durationMs,
      });
    }
  }
  const passed = results.filter((r) => r.passed).length;
  const failed = results.length - passed;
  const summary =
    failed === 0
      ? `All ${results.length} trigger case${results.length === 1 ? "" : "s"} pass.`
      : `${passed} of ${results.length} trigger cases pass; failing: ${results
          .filter((r) => !r.passed)
          .map((r) => `${r.name} (${r.message})`)
          .join("; ")}.`;
  return { passed, failed, results, summary };
}

/**
 * Where `actual` differs from `expected`, or null: objects match on the keys
 * expected names (extra keys are fine), arrays and scalars exactly, numbers
 * to a millionth.
 */
export function difference(expected: unknown, actual: unknown, at: string): string | null {
  if (typeof expected === "number" && typeof actual === "number")
    return Math.abs(expected - actual) <= 1e-6 * Math.max(1, Math.abs(expected)) ? null : `${at} is ${actual}, expected ${expected}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at} is ${preview(actual)}, expected a list`;
    if (actual.length !== expected.length) return `${at} has ${actual.length} items, expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = difference(expected[i], actual[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) return `${at} is ${preview(actual)}, expected an object`;
    for (const [k, v] of Object.entries(expected)) {
      const d = difference(v, (actual as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${at} is ${preview(actual)}, expected ${preview(expected)}`;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
