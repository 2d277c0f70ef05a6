// A run or a check, start to end, in the thread it is called on: open a
// session, load the source, call run, serialise, close. The worker calls
// these; nothing on the server's own event loop should.
import { DEFAULT_SANDBOX_LIMITS, type SandboxError, type SandboxHost, type SandboxLimits } from "./types";
import { Session, type Step } from "./session";

export interface Executed {
  /** The result as JSON text. */
  result: Step<string>;
  logs?: string[];
}

export async function executeTool(source: string, argsJson: string, limits: SandboxLimits, host: SandboxHost): Promise<Executed> {
  const opened = await Session.open(limits, host);
  if (!opened.ok) return { result: opened };
  const session = opened.value;
  let result: Step<string>;
  try {
    session.startClock();
    const run = session.load(source);
    const value = run.ok ? await session.call(run.value, argsJson) : run;
    result = value.ok ? session.output(value.value) : value;
  } catch (err) {
    // A Rein bug, not the tool's doing: said as such, without a stack.
    result = {
      ok: false,
      error: { code: "HOST_ERROR", message: `the sandbox failed unexpectedly (${err instanceof Error ? err.message : String(err)})` },
    };
  } finally {
    const cleanup = session.close();
    if (cleanup) result = { ok: false, error: cleanup };
  }
  return { result, logs: session.capturedLogs };
}

/** Loads the source with the default limits without calling run: null when fine. */
export async function checkSource(source: string): Promise<string | null> {
  const opened = await Session.open(DEFAULT_SANDBOX_LIMITS, {});
  if (!opened.ok) return opened.error.message;
  const session = opened.value;
  let error: SandboxError | null = null;
  try {
    session.startClock();
    const loaded = session.load(source);
    if (loaded.ok) loaded.value.dispose();
    else error = loaded.error;
  } finally {
    error = session.close() ?? error;
  }
  if (error?.code === "TIMEOUT")
    return `the source's top level ran longer than ${DEFAULT_SANDBOX_LIMITS.timeoutMs} ms and was stopped: define run(args, rein) and do the work there`;
  return error?.message ?? null;
}
