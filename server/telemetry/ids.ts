// Deterministic trace and span ids: projecting the same event twice gives the
// same span, so replaying a run's event log is idempotent.
import crypto from "node:crypto";

function hex(parts: string[], bytes: number): string {
  return crypto
    .createHash("sha256")
    .update(parts.join("\u0000"))
    .digest("hex")
    .slice(0, bytes * 2);
}

export const traceIdOf = (runId: string) => hex(["trace", runId], 16);
export const spanIdOf = (...parts: string[]) => hex(["span", ...parts], 8);
