// The messages between the server and a sandbox worker. One job at a time
// per worker; `id` ties every message to its job.
import type { Executed } from "./execute";
import type { SandboxLimits } from "./types";

export type ToWorker =
  | { type: "run"; id: number; source: string; argsJson: string; limits: SandboxLimits; readFile: boolean }
  | { type: "check"; id: number; source: string }
  | { type: "read-result"; id: number; readId: number; text?: string; error?: string };

export type FromWorker =
  | { type: "ready" }
  | { type: "read"; id: number; readId: number; path: string }
  | { type: "ran"; id: number; executed: Executed }
  | { type: "checked"; id: number; problem: string | null };
