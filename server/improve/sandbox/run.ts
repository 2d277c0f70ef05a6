// The two entry points: check a runtime tool's source, and run the tool.
//
// The tool source contract (docs/runtime-tools.md says the same for agents):
// - The source is a script (not a module: no import or export) that defines
//   `function run(args, rein) { ... }` (a top-level `const run = ...` works too).
// - `args` is a plain JSON copy of the arguments.
// - `rein.readFile(path)` exists only when the run is lent the workspace:read
//   capability; it returns a Promise of the file's text, so a tool that reads
//   is `async function run(args, rein) { const text = await rein.readFile("a.csv"); ... }`.
//   Paths are relative to the run's workspace.
// - run may return a value or a Promise of one. The value must be JSON (a
//   function or symbol anywhere, a BigInt, or a cycle is refused; undefined
//   becomes null) and at most maxOutputBytes as JSON.
// - console.log/info/warn/error/debug are captured (16 KiB per run) and come
//   back as `logs`. Nothing else of the host is there: no require, process,
//   fetch, timers, modules or WebAssembly.
import { timeoutError } from "./errors";
import { MAX_SOURCE_BYTES, formatBytes, maxArgsBytes, resolveLimits } from "./limits";
import { GRACE_MS, SandboxPool, type JobEnd } from "./pool";
import type { SandboxError, SandboxHost, SandboxLimits, SandboxOutcome } from "./types";
import { DEFAULT_SANDBOX_LIMITS } from "./types";

let pool: SandboxPool | null = null;
const workers = () => (pool ??= new SandboxPool());

/** Terminates the sandbox's worker threads; the next run starts new ones. */
export async function closeSandboxWorkers(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.close();
}

function sourceProblem(source: unknown): string | null {
  if (typeof source !== "string") return "the source must be a string of JavaScript";
  const bytes = Buffer.byteLength(source, "utf8");
  if (bytes > MAX_SOURCE_BYTES) return `the source is ${bytes} bytes; a runtime tool may be at most ${formatBytes(MAX_SOURCE_BYTES)}`;
  return null;
}

function argsJson(args: unknown, limits: SandboxLimits): { json: string } | { error: SandboxError } {
  let json: string | undefined;
  try {
    json = JSON.stringify(args ?? null);
  } catch (err) {
    return { error: { code: "HOST_ERROR", message: `the arguments are not JSON: ${err instanceof Error ? err.message : String(err)}` } };
  }
  json ??= "null";
  const max = maxArgsBytes(limits);
  if (Buffer.byteLength(json, "utf8") > max)
    return { error: { code: "HOST_ERROR", message: `the arguments are more than ${formatBytes(max)} as JSON` } };
  return { json };
}

/** A job the worker did not finish: terminated at its deadline, or the worker died. */
function unfinished(end: Exclude<JobEnd, { done: unknown }>, limits: SandboxLimits): SandboxError {
  if (end.killed === "timeout") return timeoutError(limits);
  console.error("a runtime-tool sandbox worker stopped unexpectedly:", end.message);
  return {
    code: "HOST_ERROR",
    message: "the sandbox's worker stopped unexpectedly (a problem on Rein's side; the server's log has the details)",
  };
}

/** Rein's own failure: the detail (paths of the install) goes to the server's log, not to the agent. */
function startFailure(err: unknown): SandboxError {
  console.error("the runtime-tool sandbox could not start a worker", err);
  return { code: "HOST_ERROR", message: "the sandbox could not start (a problem on Rein's side; the server's log has the details)" };
}

/**
 * Compiles the source once, on a fresh sandbox with the default limits, and
 * evaluates its top level without calling run(): null when it is fine, else
 * a message a person or agent can act on (a syntax error with its line, no
 * run function, a top level that throws or does not end).
 */
export async function checkRuntimeToolSource(source: string): Promise<string | null> {
  const problem = sourceProblem(source);
  if (problem) return problem;
  let end: JobEnd;
  try {
    end = await workers().execute({ type: "check", source }, {}, DEFAULT_SANDBOX_LIMITS.timeoutMs + GRACE_MS);
  } catch (err) {
    return startFailure(err).message;
  }
  if ("killed" in end) {
    const error = unfinished(end, DEFAULT_SANDBOX_LIMITS);
    return error.code === "TIMEOUT"
      ? `the source's top level ran longer than ${DEFAULT_SANDBOX_LIMITS.timeoutMs} ms and was stopped`
      : error.message;
  }
  return end.done.type === "checked" ? end.done.problem : "the sandbox answered a check with something else";
}

/** Runs the tool's `run(args, rein)` on a fresh sandbox and returns its JSON result. */
export async function runRuntimeTool(
  source: string,
  args: unknown,
  host: SandboxHost,
  limits: Partial<SandboxLimits> = {},
): Promise<SandboxOutcome> {
  const started = performance.now();
  const resolved = resolveLimits(limits);
  const durationMs = () => Math.round((performance.now() - started) * 100) / 100;
  const failed = (error: SandboxError, logs?: string[]): SandboxOutcome => ({
    ok: false,
    error,
    durationMs: durationMs(),
    ...(logs ? { logs } : {}),
  });

  const problem = sourceProblem(source);
  if (problem) return failed({ code: "BAD_SOURCE", message: problem });
  const input = argsJson(args, resolved);
  if ("error" in input) return failed(input.error);

  let end: JobEnd;
  try {
    const job = { type: "run" as const, source, argsJson: input.json, limits: resolved, readFile: typeof host.readFile === "function" };
    end = await workers().execute(job, host, resolved.timeoutMs + GRACE_MS);
  } catch (err) {
    return failed(startFailure(err));
  }
  if ("killed" in end) return failed(unfinished(end, resolved));
  if (end.done.type !== "ran") return failed({ code: "HOST_ERROR", message: "the sandbox answered a run with something else" });
  const { result, logs } = end.done.executed;
  if (!result.ok) return failed(result.error, logs);
  return { ok: true, output: JSON.parse(result.value), durationMs: durationMs(), ...(logs ? { logs } : {}) };
}
