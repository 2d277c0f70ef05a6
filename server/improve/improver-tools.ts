// The improver agent's own tools for MODIFY and TEST
// (docs/improvements.md#the-hack-cycle). They hand what the agent wrote to the
// hack-cycle service; none of them can deploy, mark a case passed or touch
// friction, improvements or telemetry.
import { z } from "zod";
import type { ToolDefinition } from "@/server/tools";
import type { HackCycles } from "./cycles/service";

export function improverTools(cycles: HackCycles): ToolDefinition[] {
  const propose: ToolDefinition<Record<string, unknown>> = {
    name: "propose_runtime_tool",
    description:
      "Proposes a runtime tool for the friction you were given: name, description (what it does and when to use it), argsSchema (a JSON object schema), " +
      "source (JavaScript that defines function run(args) and returns a JSON value; it runs in a sandbox with no host access), replayClass, capabilities " +
      "(usually none) and cases: trigger cases taken from the evidence, each { name, args, expect: { ok: true, output? } or { ok: false, errorIncludes? } }. " +
      "Each accepted proposal uses one of the cycle's 3 attempts.",
    // Checked in full by the cycle service, which says every problem at once.
    args: z.record(z.string(), z.unknown()),
    replayClass: "idempotent_with_key",
    idempotencyKey: (args) => JSON.stringify(args),
    persistence: "external",
    execute: (args, ctx) => cycles.propose(ctx.runId, args),
  };
  const test: ToolDefinition<{ name: string }> = {
    name: "test_runtime_tool",
    description: "Runs the trigger cases of the runtime tool you proposed, in the sandbox, and returns each case's result and a summary.",
    args: z.object({ name: z.string().min(1, "name is required") }).strict(),
    replayClass: "pure",
    persistence: "none",
    timeoutMs: 120_000,
    execute: (args, ctx) => cycles.test(ctx.runId, args.name),
  };
  return [propose, test];
}
