// Self-improvement (SPEC section 10): the sandbox that runs agent-written runtime tools.
export * from "./sandbox";
