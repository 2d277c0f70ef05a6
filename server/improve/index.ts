// Self-improvement (SPEC section 10): mining friction from runs' event logs.
export * from "./friction";
