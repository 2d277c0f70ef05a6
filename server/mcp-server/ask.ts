// wait_for_run's stop at a human request, when the client can elicit: the
// caller's user is asked each open request they may decide, and their answer
// goes through the broker on the channel "mcp", as answer_human_request's does.
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import {
  HumanRequestError,
  OPEN_STATES,
  listForActor,
  type DecisionInput,
  type Decider,
  type HitlBroker,
  type HumanRequestView,
} from "@/server/hitl";
import { gateRefusal } from "@/server/identity";
import type { ToolContext } from "./context";
import { decisionForm } from "./elicitation";

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

/** Asks the client's user the run's open requests they may decide, until `deadline`; how many they answered. */
export async function askOpenRequests(
  ctx: ToolContext,
  runId: string,
  relatedRequestId: RequestId,
  signal: AbortSignal,
  deadline: number,
): Promise<number> {
  if (!ctx.elicitor || gateRefusal(ctx.actor, "operator")) return 0;
  const { broker } = ctx.hitl;
  const a = ctx.actor;
  const deciderOf = (p: typeof a): Decider => ({ id: p.userId, name: p.name, role: p.role, teamIds: p.teamIds, teamRoles: p.teamRoles });
  const decider = deciderOf(a);
  const { items } = await listForActor(broker, a, { state: [...OPEN_STATES], runId, limit: 20 });
  let answered = 0;
  for (const r of items) {
    const form = decisionForm(r);
    if (!form || !(await mayDecide(broker, r, decider))) continue;
    const left = deadline - Date.now();
    if (left <= 0 || signal.aborted) break;
    const reply = await ctx.elicitor.ask({ message: form.message, requestedSchema: form.requestedSchema }, relatedRequestId, signal, left);
    if (!reply?.content) continue;
    // The answer may come minutes after the question: it is taken as the person is now, not as they were when asked.
    const now = ctx.recheck ? await ctx.recheck() : a;
    if (!now) break;
    try {
      await broker.decide(r.id, deciderOf(now), form.decision(reply.content), "mcp");
      answered++;
    } catch (err) {
      // Answered meanwhile by someone else, or an answer the request does not take: it stays for the Inbox.
      if (!(err instanceof HumanRequestError)) throw err;
    }
  }
  return answered;
}
