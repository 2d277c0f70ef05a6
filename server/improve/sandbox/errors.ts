// What went wrong in a run, as the code and message the improver agent (or a
// person) reads: one pure function over the facts the session gathered.
import { formatBytes } from "./limits";
import type { SandboxError, SandboxLimits } from "./types";

/** Where in the run the error came from. */
export type Phase = "load" | "run" | "output";

/** A value the tool threw, as the prelude described it. */
export interface GuestError {
  name: string | null;
  message: string;
  line: number | null;
  column: number | null;
}

export interface ErrorFacts {
  phase: Phase;
  limits: SandboxLimits;
  /** The interrupt handler stopped the tool at its deadline. */
  timedOut: boolean;
  /** The thrown value is the error a host call was rejected with. */
  hostError?: { call: string; message: string };
  guest: GuestError;
  /** Capability-backed members of `rein` the tool reached for without having been lent them. */
  denied: string[];
}

const CAPABILITY_OF: Record<string, string> = { readFile: "workspace:read" };

export function timeoutError(limits: SandboxLimits): SandboxError {
  return { code: "TIMEOUT", message: `the tool ran longer than ${limits.timeoutMs} ms and was stopped` };
}

export function stackError(limits: SandboxLimits): SandboxError {
  return {
    code: "OUT_OF_MEMORY",
    message: `the tool nested calls or data deeper than its ${formatBytes(limits.stackBytes)} stack allows and was stopped`,
  };
}

export function position(g: Pick<GuestError, "line" | "column">): string {
  if (g.line === null) return "";
  return g.column === null ? ` (line ${g.line})` : ` (line ${g.line}, column ${g.column})`;
}

export function describeGuest(g: GuestError): string {
  return `${g.name ? `${g.name}: ` : ""}${g.message}${position(g)}`;
}

/** QuickJS's own resource errors: the tool can catch them, but when they escape they mean a limit, not a bug. */
function resourceError(g: GuestError, limits: SandboxLimits): SandboxError | null {
  if (g.name !== "InternalError" && g.name !== "RangeError" && g.name !== "SyntaxError") return null;
  if (g.message === "out of memory")
    return { code: "OUT_OF_MEMORY", message: `the tool used more than ${formatBytes(limits.memoryBytes)} of memory and was stopped` };
  if (g.message === "string too long")
    return { code: "OUT_OF_MEMORY", message: "the tool built a string longer than the sandbox allows and was stopped" };
  if (g.message === "stack overflow") return stackError(limits);
  return null;
}

export function classify(f: ErrorFacts): SandboxError {
  if (f.timedOut) return timeoutError(f.limits);
  if (f.hostError) return { code: "HOST_ERROR", message: `${f.hostError.call} failed: ${f.hostError.message}` };
  const resource = resourceError(f.guest, f.limits);
  if (resource) return resource;
  const what = describeGuest(f.guest);
  if (f.phase === "load" && f.guest.name === "SyntaxError")
    return { code: "BAD_SOURCE", message: `the source does not compile: ${what}${moduleHint(f.guest)}` };
  if (f.phase === "output") return { code: "BAD_OUTPUT", message: `the tool's return value is not JSON: ${what}` };
  if (f.denied.length > 0) {
    const member = f.denied[0];
    return {
      code: "CAPABILITY_DENIED",
      message: `the tool used rein.${member}, which needs the ${CAPABILITY_OF[member] ?? "a"} capability, and this run was not lent it: ${what}`,
    };
  }
  return { code: "THREW", message: f.phase === "load" ? `the source threw while loading: ${what}` : `the tool threw ${what}` };
}

/** The source is a script: an agent used to modules writes `export function run`. */
function moduleHint(g: GuestError): string {
  return /'(import|export)'|\b(import|export)\b/.test(g.message)
    ? "; the source is a script: define `function run(args, rein)` without import or export"
    : "";
}
