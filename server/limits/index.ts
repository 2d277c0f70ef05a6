// Limits (I10, SPEC section 5): the doom-loop guard. Call caps, budgets,
// per-provider rate limits and circuit breakers join it with the traces and
// model-router issues.
export { consecutiveRepeats, loopSuspected, DEFAULT_MAX_REPEATS } from "./doom-loop";
