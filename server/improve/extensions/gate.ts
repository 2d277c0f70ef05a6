// The extension gate (docs/extensions.md): the build (load.ts) succeeds
// and every one of the package's own tests passes in the sandbox, with at
// least one passing test calling each registered tool. Each test runs in its
// own fresh sandbox, so one that loops is a TIMEOUT for that test alone.
import type { SandboxLimits } from "../sandbox";
import { bundle, mapMessage, packageFrame } from "./bundle";
import { LOAD_LIMITS, loadExtension, runBundle, type LoadResult } from "./load";
import { testFiles, type ExtensionPackage } from "./package";

export interface ExtensionTestResult {
  file: string;
  name: string;
  ok: boolean;
  /** "passed", or what failed and where in the package. */
  message: string;
  durationMs: number;
}

export interface GateResult {
  /** The gate passes: built, every test passed, every tool tested. */
  ok: boolean;
  passed: number;
  failed: number;
  results: ExtensionTestResult[];
  /** Registered tools no passing test called. */
  untested: string[];
  build: LoadResult;
  summary: string;
}

export const MAX_TESTS = 200;
/** One test: its own sandbox, the package loaded and set up again, then the test. */
export const TEST_LIMITS: Partial<SandboxLimits> = { timeoutMs: 2000 };

interface Ran {
  ok: boolean;
  message?: string;
  stack?: string;
  called?: string[];
}

export async function runExtensionGate(pkg: ExtensionPackage, limits: Partial<SandboxLimits> = TEST_LIMITS): Promise<GateResult> {
  const build = await loadExtension(pkg, { ...LOAD_LIMITS, ...limits });
  if (!build.ok) {
    return {
      ok: false,
      passed: 0,
      failed: 0,
      results: [],
      untested: [],
      build,
      summary: `The build failed, so no test ran: ${build.problems.join("; ")}.`,
    };
  }
  const results: ExtensionTestResult[] = [];
  const covered = new Set<string>();
  let budget = MAX_TESTS;
  for (const file of testFiles(pkg)) {
    const listing = bundle(pkg, { mode: "list", file }, file);
    const listed = await runBundle(listing, null, {}, limits);
    const names =
      listed.ok && Array.isArray(listed.output) ? (listed.output as unknown[]).filter((n): n is string => typeof n === "string") : null;
    if (!listed.ok || !names) {
      const why = listed.ok ? "it did not list its tests" : `${listed.error.code}: ${listed.error.message}`;
      results.push({ file, name: "(loading the test file)", ok: false, message: why, durationMs: listed.durationMs });
      continue;
    }
    if (names.length === 0)
      results.push({
        file,
        name: "(the test file)",
        ok: false,
        message: "the file defines no tests: call test(name, fn) at its top level",
        durationMs: 0,
      });
    for (const [index, name] of names.entries()) {
      if (budget-- <= 0) {
        results.push({ file, name, ok: false, message: `not run: a package may have at most ${MAX_TESTS} tests`, durationMs: 0 });
        continue;
      }
      const b = bundle(pkg, { mode: "test", file, index, name }, file);
      const outcome = await runBundle(b, null, {}, limits);
      if (!outcome.ok) {
        results.push({ file, name, ok: false, message: `${outcome.error.code}: ${outcome.error.message}`, durationMs: outcome.durationMs });
        continue;
      }
      const ran = outcome.output as Ran;
      if (ran?.ok === true) {
        for (const tool of ran.called ?? []) covered.add(tool);
        results.push({ file, name, ok: true, message: "passed", durationMs: outcome.durationMs });
      } else {
        const where = packageFrame(b.map, String(ran?.stack ?? ""));
        const message = mapMessage(b.map, String(ran?.message ?? "the test failed"));
        results.push({ file, name, ok: false, message: where ? `${message} (at ${where})` : message, durationMs: outcome.durationMs });
      }
    }
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const untested = build.registered.tools.map((t) => t.name).filter((t) => !covered.has(t));
  const ok = failed === 0 && passed > 0 && untested.length === 0;
  return { ok, passed, failed, results, untested, build, summary: summarise(passed, failed, results, untested) };
}

function summarise(passed: number, failed: number, results: ExtensionTestResult[], untested: string[]): string {
  const parts: string[] = [];
  if (results.length === 0) parts.push("The package has no tests.");
  else if (failed === 0) parts.push(`All ${passed} test${passed === 1 ? "" : "s"} pass.`);
  else
    parts.push(
      `${passed} of ${results.length} tests pass; failing: ${results
        .filter((r) => !r.ok)
        .map((r) => `${r.file} › ${r.name} (${r.message})`)
        .join("; ")}.`,
    );
  if (untested.length)
    parts.push(
      `No passing test calls ${untested.join(", ")}: every tool needs at least one test that calls it through tools.<name>(args).`,
    );
  return parts.join(" ");
}
