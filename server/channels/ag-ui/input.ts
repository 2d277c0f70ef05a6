// RunAgentInput as POST /api/v1/ag-ui takes it (docs/ag-ui.md#post-apiv1ag-ui):
// the AG-UI 1.0 fields Rein reads, each with a bound; fields Rein does not
// read (tools, context, state) are bounded by the body's size and depth and
// then dropped.
import { z } from "zod";
import { DecisionInput } from "@/server/hitl";
import { MAX_MESSAGE_CHARS } from "@/server/kernel";

/** The largest RunAgentInput taken, in bytes: a conversation's text, not files. */
export const MAX_AG_UI_BODY = 512 * 1024;
/** The most messages one RunAgentInput may carry (a client sends the whole conversation each time). */
export const MAX_AG_UI_MESSAGES = 500;
/** The most interrupts one RunAgentInput may answer. */
export const MAX_RESUME_ENTRIES = 20;

const Id = z.string().trim().min(1).max(200);

const TextPart = z.object({ type: z.string().max(40), text: z.string().max(MAX_MESSAGE_CHARS).optional() });

const Message = z.object({
  id: Id,
  role: z.enum(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]),
  content: z
    .union([z.string().max(MAX_MESSAGE_CHARS), z.array(TextPart).max(100)])
    .nullable()
    .optional(),
});

const ResumeEntry = z.object({
  interruptId: Id.describe("The human request's id, as the interrupt named it"),
  status: z.enum(["resolved", "cancelled"]),
  payload: DecisionInput.optional().describe("resolved: the decision, as POST /api/v1/human-requests/{id}/decision takes it"),
});

export const RunAgentInputBody = z
  .object({
    threadId: Id.describe("A run's id to continue it; anything else, with forwardedProps.agent, starts a run"),
    runId: Id.describe("The client's id for this AG-UI run, echoed in RUN_STARTED and RUN_FINISHED"),
    protocolVersion: z.string().max(20).optional(),
    parentRunId: Id.optional(),
    messages: z.array(Message).max(MAX_AG_UI_MESSAGES, `at most ${MAX_AG_UI_MESSAGES} messages`),
    forwardedProps: z
      .object({
        agent: z.string().trim().min(1).max(200).optional().describe("The agent to start a run with (its name)"),
        teamId: z.string().trim().min(1).max(64).optional().describe("The team to start the run in (its id)"),
      })
      .optional(),
    resume: z.array(ResumeEntry).max(MAX_RESUME_ENTRIES, `at most ${MAX_RESUME_ENTRIES} answers`).optional(),
  })
  .meta({ id: "RunAgentInput" });
export type RunAgentInputBody = z.output<typeof RunAgentInputBody>;

/** A message's text: its string content, or its text parts joined. */
export function messageText(m: z.output<typeof Message>): string {
  if (typeof m.content === "string") return m.content;
  return (m.content ?? [])
    .filter((p) => p.type === "text" && p.text)
    .map((p) => p.text)
    .join("\n");
}

/** The text of the conversation's last message when it is the person's; null when the last word is not theirs. */
export function lastUserText(input: RunAgentInputBody): string | null {
  const last = input.messages.at(-1);
  if (!last || last.role !== "user") return null;
  const text = messageText(last).trim();
  return text ? text : null;
}
