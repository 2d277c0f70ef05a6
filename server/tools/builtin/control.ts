// Tools whose results the kernel acts on: handoff and the task list.
import { z } from "zod";
import { ToolError, type ToolDefinition } from "../types";

export const handoff: ToolDefinition<{ agent: string; reason?: string }> = {
  name: "handoff",
  description: "Hand the run over to another agent (one of this agent's allowed handoffs), with the reason.",
  args: z.object({ agent: z.string().min(1), reason: z.string().optional() }).strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    if (!ctx.agent.handoffs.includes(args.agent)) {
      const allowed = ctx.agent.handoffs.length ? ctx.agent.handoffs.join(", ") : "none";
      throw new ToolError("HANDOFF_NOT_ALLOWED", `${ctx.agent.name} cannot hand off to "${args.agent}" (allowed: ${allowed})`);
    }
    return { handoffTo: args.agent, from: ctx.agent.name, reason: args.reason ?? "" };
  },
};

export const TaskSchema = z.object({
  title: z.string().min(1).max(300),
  status: z.enum(["todo", "doing", "done", "failed"]),
});

export const updateTasks: ToolDefinition<{ tasks: Array<z.infer<typeof TaskSchema>>; notes?: string }> = {
  name: "update_tasks",
  description: "Replace the run's task list (items with todo/doing/done/failed) and optionally add progress notes.",
  args: z.object({ tasks: z.array(TaskSchema).max(100), notes: z.string().max(10_000).optional() }).strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args) {
    return { tasks: args.tasks, notes: args.notes };
  },
};
