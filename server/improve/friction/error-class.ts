// Which tool results failed, and the class of each failure: the key that
// makes two failures "the same problem" within a run and across runs.
import { errorLine, excerptOf, normalizeMessage, signaturePart } from "./normalize";

/** A tool.result payload, as far as failures go. */
export interface ToolResultLike {
  ok: boolean;
  output?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export interface Failure {
  /** The error code, or `exit:<n>` for a shell command that exited non-zero. */
  code: string;
  /** The text that names the error: the message, or the shell output's error line. */
  text: string;
}

/**
 * A failed result: `ok: false`, or a shell command that ran (ok) but exited
 * non-zero (the shell tool returns `{ exitCode, output }`). Null otherwise.
 */
export function failureOf(tool: string, result: ToolResultLike): Failure | null {
  if (result.ok === false) {
    const code = typeof result.error?.code === "string" ? signaturePart(result.error.code) : "ERROR";
    return { code, text: typeof result.error?.message === "string" ? result.error.message : "" };
  }
  if (tool !== "shell") return null;
  const out = result.output as { exitCode?: unknown; output?: unknown } | null | undefined;
  const exit = out?.exitCode;
  if (typeof exit !== "number" || !Number.isFinite(exit) || exit === 0) return null;
  return { code: `exit:${Math.trunc(exit)}`, text: typeof out?.output === "string" ? errorLine(out.output) : "" };
}

/**
 * The error class of a failed tool result: its code and its normalised message
 * (`exit:1|awk: line N: not a number: "*"`, `NOT_FOUND|No file <path>`); null
 * when the result did not fail.
 */
export function errorClass(tool: string, result: ToolResultLike): string | null {
  const failure = failureOf(tool, result);
  return failure ? classOf(failure) : null;
}

export function classOf(failure: Failure): string {
  return `${failure.code}|${normalizeMessage(failure.text)}`;
}

/** A short excerpt of the failure for evidence. */
export function failureExcerpt(failure: Failure): string {
  return excerptOf(failure.text) || failure.code;
}
