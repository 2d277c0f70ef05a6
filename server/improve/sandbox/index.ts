// The WebAssembly sandbox for runtime tools (tier 1 of self-improvement): an
// agent-written JavaScript function run in QuickJS inside a worker thread,
// with a fresh instance per call, limits on time, memory, stack and output,
// and only what the host lends.
export type { RuntimeCapability, SandboxLimits, SandboxHost, SandboxOutcome, SandboxErrorCode, SandboxError } from "./types";
export { RUNTIME_CAPABILITIES, DEFAULT_SANDBOX_LIMITS } from "./types";
export { checkRuntimeToolSource, runRuntimeTool, closeSandboxWorkers } from "./run";
