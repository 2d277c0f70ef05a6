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

/**
 * Calls through a team gateway key belong to no run: their spans and CostRollup rows carry
 * this synthetic run and workflow id, `gateway-key:<key id>` (docs/gateway.md#what-is-recorded).
 */
export const GATEWAY_KEY_RUN_PREFIX = "gateway-key:";
export const keyWorkflowId = (keyId: string) => `${GATEWAY_KEY_RUN_PREFIX}${keyId}`;
