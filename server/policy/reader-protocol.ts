// The messages between the server and a policy reader thread; `id` ties a reply to its command.
import type { ShellAnalysis } from "./shell";

export type ToReader = { id: number; command: string };

export type FromReader = { type: "ready" } | { type: "read"; id: number; analysis: ShellAnalysis };
