// wait_for_run's stop at a human request, when the client can ask its user
// (docs/mcp-server.md#human-requests): each open request the caller may decide
// becomes a form; the answer goes through the broker on the channel "mcp", as
// answer_human_request's does. On 2025 revisions Rein sends the form as an
// `elicitation/create` request while the call waits; on 2026-07-28 the call
// answers `input_required` with the forms and is made again with the answers.
import type { RequestId } from "@modelcontextprotocol/server";
import {
  HumanRequestError,
  OPEN_STATES,
  deciderOf,
  listForActor,
  type DecisionInput,
  type Decider,
  type HitlBroker,
  type HumanRequestView,
} from "@/server/hitl";
import { gateRefusal } from "@/server/identity";
import type { ToolContext } from "./context";
import { decisionForm } from "./elicitation";

/** An open request of the run, and the form that answers it. */
export interface OpenQuestion {
  request: HumanRequestView;
  form: NonNullable<ReturnType<typeof decisionForm>>;
}

/** A decision of the request's kind, to ask the broker whether this person may decide it at all. */
function probe(r: HumanRequestView): DecisionInput {
  if (r.kind === "choose") return { decision: "choose", optionId: r.payload.options?.[0]?.id };
  return { decision: r.kind === "veto" ? "veto" : "approve" };
}

async function mayDecide(broker: HitlBroker, r: HumanRequestView, decider: Decider): Promise<boolean> {
  try {
    await broker.checkDecision(r.id, decider, probe(r));
    return true;
  } catch (err) {
    if (err instanceof HumanRequestError) return false;
    throw err;
  }
}

/** The run's open requests the caller may decide that a form can answer (at most 20). */
export async function openQuestions(ctx: ToolContext, runId: string): Promise<OpenQuestion[]> {
  if (gateRefusal(ctx.actor, "operator")) return [];
  const { broker } = ctx.hitl;
  const decider = deciderOf(ctx.actor);
  const { items } = await listForActor(broker, ctx.actor, { state: [...OPEN_STATES], runId, limit: 20 });
  const questions: OpenQuestion[] = [];
  for (const request of items) {
    const form = decisionForm(request);
    if (form && (await mayDecide(broker, request, decider))) questions.push({ request, form });
  }
  return questions;
}

/**
 * The caller's answer to one question, decided as the person is now (the
 * answer may come minutes after the question): "gone" when their token or
 * account no longer works, "refused" when the request was answered meanwhile
 * or does not take this answer (it stays for the Inbox).
 */
export async function decide(
  ctx: ToolContext,
  question: OpenQuestion,
  content: Record<string, unknown>,
): Promise<"decided" | "refused" | "gone"> {
  const now = ctx.recheck ? await ctx.recheck() : ctx.actor;
  if (!now) return "gone";
  try {
    await ctx.hitl.broker.decide(question.request.id, deciderOf(now), question.form.decision(content), "mcp");
    return "decided";
  } catch (err) {
    if (!(err instanceof HumanRequestError)) throw err;
    return "refused";
  }
}

/** 2025 revisions: asks the client's user the run's open requests, one by one, until `deadline`; how many they answered. */
export async function askOpenRequests(
  ctx: ToolContext,
  runId: string,
  relatedRequestId: RequestId,
  signal: AbortSignal,
  deadline: number,
): Promise<number> {
  if (!ctx.elicitor) return 0;
  let answered = 0;
  for (const question of await openQuestions(ctx, runId)) {
    const left = deadline - Date.now();
    if (left <= 0 || signal.aborted) break;
    const { message, requestedSchema } = question.form;
    const reply = await ctx.elicitor.ask({ message, requestedSchema }, relatedRequestId, signal, left);
    if (!reply?.content) continue;
    const outcome = await decide(ctx, question, reply.content);
    if (outcome === "gone") break;
    if (outcome === "decided") answered++;
  }
  return answered;
}
