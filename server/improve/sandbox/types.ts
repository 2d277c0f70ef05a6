// The sandbox's interface: what a runtime tool may be lent, the limits it
// runs under, and what a run comes back as.

/** What a runtime tool may ask to be lent. Each is granted by an admin, per tool. */
export type RuntimeCapability = "workspace:read";
export const RUNTIME_CAPABILITIES: readonly RuntimeCapability[] = Object.freeze(["workspace:read"] as const);

export interface SandboxLimits {
  /** Wall clock from the start of the tool's source to its result, host calls included. */
  timeoutMs: number;
  /** QuickJS's heap for the run: every object, string and array the tool makes. */
  memoryBytes: number;
  /** QuickJS's own stack check; deeper recursion is refused. */
  stackBytes: number;
  /** The result as JSON, in UTF-8 bytes. */
  maxOutputBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * - 1000 ms: a runtime tool transforms data it is given (parse, sum, reshape);
 *   that takes milliseconds. A run holds a sandbox worker while it computes,
 *   so this (plus the pool's grace) is also how long a hostile tool can keep one.
 * - 32 MiB: room for a few MiB of input parsed into objects several times
 *   over, and small enough that many runs at once stay far below the server's
 *   memory.
 * - 256 KiB: QuickJS's stack check must fire before V8's own stack runs out
 *   under it (WASM frames live there too). On a main thread's ~1 MiB V8 stack,
 *   512 KiB let plain recursion reach V8's limit first; the workers have 4 MiB,
 *   and 256 KiB keeps a wide margin while still allowing ~1,500 frames of
 *   simple recursion. Nesting QuickJS does not count (JSON.parse of deep
 *   arrays) can still reach V8's limit; that is caught too (session.ts).
 * - 256 KiB of output: a tool's answer goes back into a model's context; more
 *   than that belongs in a file.
 */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  timeoutMs: 1000,
  memoryBytes: 32 * MiB,
  stackBytes: 256 * KiB,
  maxOutputBytes: 256 * KiB,
});

/**
 * What the host lends the tool: only for capabilities the tool declared AND
 * an admin allowed (the caller decides; the sandbox wires what it is given).
 */
export interface SandboxHost {
  /** The text of a file in the run's workspace; relative paths. Its errors reach the tool as `Error(message)`. */
  readFile?: (path: string) => Promise<string>;
}

export type SandboxErrorCode = "TIMEOUT" | "OUT_OF_MEMORY" | "THREW" | "BAD_OUTPUT" | "BAD_SOURCE" | "CAPABILITY_DENIED" | "HOST_ERROR";

export interface SandboxError {
  code: SandboxErrorCode;
  message: string;
}

/** `logs`: what the tool passed to console.log and friends, capped; present only when it logged. */
export type SandboxOutcome =
  | { ok: true; output: unknown; durationMs: number; logs?: string[] }
  | { ok: false; error: SandboxError; durationMs: number; logs?: string[] };
