// A hand-built ScoringInput for scorer tests: files in a map, commands answered from a table.
import { WorkspaceFileError } from "@/server/tools";
import type { CommandResult, ScoringInput, ToolCallRecord } from "../types";

export function inputOf(
  over: Partial<Omit<ScoringInput, "readText" | "exists" | "exec">> & {
    files?: Record<string, string>;
    commands?: Record<string, CommandResult | Error>;
  } = {},
): ScoringInput & { ran: string[] } {
  const { files = {}, commands = {}, ...rest } = over;
  const ran: string[] = [];
  return {
    runId: "run-test",
    status: "succeeded",
    statusReason: null,
    finalText: "",
    costUsd: 0,
    modelCalls: 0,
    durationMs: 1_000,
    toolCalls: [],
    ...rest,
    ran,
    async readText(p) {
      if (!(p in files)) throw new WorkspaceFileError("NOT_FOUND", `${p} does not exist in the workspace`);
      return files[p];
    },
    async exists(p) {
      return p in files;
    },
    async exec(command) {
      ran.push(command);
      const r = commands[command];
      if (!r) return { exitCode: 127, output: `bash: ${command}: command not found`, timedOut: false };
      if (r instanceof Error) throw r;
      return r;
    },
  };
}

export const call = (tool: string, args: Record<string, unknown> = {}, ok = true): ToolCallRecord => ({ tool, args, ok });
