// Polling for things that happen on another task (a worker, a child process).
// The limit only keeps a broken test from hanging; no test asserts on time.
import fs from "node:fs";

/** Resolves with the first truthy value of `probe`; throws naming `what` if it never comes. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  { limitMs = 20_000, intervalMs = 5 }: { limitMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`Gave up waiting for ${what}${last ? ` (last error: ${(last as Error).message ?? String(last)})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** True when no process with this pid is alive (gone, or a zombie nobody reaped yet). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    // Still in the process table: dead only if it is a zombie.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
