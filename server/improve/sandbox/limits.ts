// The limits a run is given, checked, and the fixed caps around them.
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./types";

/** A runtime tool is a small function; a source this big is a mistake or an attack on the parser. */
export const MAX_SOURCE_BYTES = 256 * 1024;
/** Each call is a request to the run's file service; a tool that needs more is doing something else. */
export const MAX_READ_CALLS = 100;
export const MAX_PATH_CHARS = 4096;
/** What the tool's console output may take in all; the rest is dropped with a note. */
export const MAX_LOG_BYTES = 16 * 1024;
export const MAX_LOG_LINE_CHARS = 4096;

/** The defaults with the caller's overrides; a limit that is not a positive number is a caller's bug. */
export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS };
  for (const key of Object.keys(DEFAULT_SANDBOX_LIMITS) as Array<keyof SandboxLimits>) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
      throw new RangeError(`Sandbox limit ${key} must be a positive number, got ${String(value)}`);
    limits[key] = Math.floor(value);
  }
  return limits;
}

/** At most a quarter of the tool's memory: the text must still fit once it is a string and parsed. */
export function maxReadBytes(limits: SandboxLimits): number {
  return Math.floor(limits.memoryBytes / 4);
}

/** Arguments take the same share: they are parsed inside the sandbox. */
export function maxArgsBytes(limits: SandboxLimits): number {
  return Math.floor(limits.memoryBytes / 4);
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
