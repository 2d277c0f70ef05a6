// What the tools answer: runs and human requests as a model reads them,
// with links a person can open.
import { OPEN_STATES, listForActor, type HumanRequestView } from "@/server/hitl";
import { getRun, type RunEventRecord } from "@/server/kernel";
import type { ToolContext } from "./context";

/** How many of a run's latest events get_run and wait_for_run summarize. */
const RECENT_EVENTS = 10;
/** Summaries are for reading, not for replay: long text is cut. */
const SUMMARY_CHARS = 200;

function clip(text: string, max = SUMMARY_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const runUrl = (ctx: ToolContext, runId: string) => `${ctx.baseUrl}/runs/${encodeURIComponent(runId)}`;
export const requestUrl = (ctx: ToolContext, requestId: string) => `${ctx.baseUrl}/inbox?id=${encodeURIComponent(requestId)}`;

/** One line about an event, for a model skimming what a run did. */
export function summarizeEvent(e: Pick<RunEventRecord, "seq" | "type" | "payload">): { seq: number; type: string; summary: string } {
  const p = (e.payload ?? {}) as Record<string, any>;
  let summary: string;
  switch (e.type) {
    case "run.state":
      summary = `${p.from ?? "new"} → ${p.to}${p.reason ? ` (${p.reason})` : ""}`;
      break;
    case "model.turn": {
      const tools = Array.isArray(p.toolCalls) ? p.toolCalls.map((c: { tool: string }) => c.tool) : [];
      summary = `step ${p.step}: ${p.text ? JSON.stringify(clip(String(p.text), 120)) : "(no text)"}${tools.length ? `; calls ${tools.join(", ")}` : ""}`;
      break;
    }
    case "tool.call":
      summary = `${p.tool}(${clip(JSON.stringify(p.args ?? {}), 120)})`;
      break;
    case "tool.result":
      summary = `${p.tool}: ${p.ok ? "ok" : `failed${p.error ? ` (${p.error.code}: ${p.error.message})` : ""}`}`;
      break;
    case "human.requested":
      summary = `asks a person (${p.kind}, ${p.requiredRole}): ${p.title}`;
      break;
    case "human.decided":
      summary = `${p.byName ?? "Rein"} ${String(p.state ?? "").toLowerCase()} the request${p.comment ? `: ${p.comment}` : ""}`;
      break;
    default:
      summary = clip(JSON.stringify(p));
  }
  return { seq: e.seq, type: e.type, summary: clip(summary) };
}

/** A human request as the tools show it: what is asked, how to answer, and where a person can open it. */
export function requestView(ctx: ToolContext, r: HumanRequestView) {
  return {
    id: r.id,
    runId: r.runId,
    kind: r.kind,
    state: r.state,
    title: r.title,
    detail: r.detail,
    requiredRole: r.requiredRole,
    tool: r.payload.tool ?? null,
    args: r.payload.args ?? null,
    options: r.payload.options ?? null,
    schema: r.payload.schema ?? null,
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
    requestedBy: r.requestedBy,
    decision: r.decision,
    decidedBy: r.decidedBy,
    decidedAt: r.decidedAt,
    channel: r.channel,
    run: r.run,
    answerWith: answerHint(r),
    url: requestUrl(ctx, r.id),
  };
}

function answerHint(r: HumanRequestView): string {
  switch (r.kind) {
    case "approve":
      return 'answer_human_request with decision "approve" or "reject"';
    case "veto":
      return 'answer_human_request with decision "veto" (or "approve" to let it go ahead now)';
    case "choose":
      return 'answer_human_request with decision "choose" and optionId one of the options\' ids';
    case "provide":
      return 'answer_human_request with decision "provide" and a value matching schema';
  }
}

/** Open requests of a run the caller may see. */
export async function openRequests(ctx: ToolContext, runId: string) {
  const page = await listForActor(ctx.hitl.broker, ctx.actor, { state: [...OPEN_STATES], runId, limit: 20 });
  return page.items.map((r) => requestView(ctx, r));
}

/** A run the caller may see, with its latest events and open requests; RunNotFoundError otherwise. */
export async function runView(ctx: ToolContext, runId: string) {
  const run = await getRun(ctx.db, runId, ctx.actor);
  const events = await ctx.kernel.store.listEvents(run.id, Math.max(0, run.lastSeq - RECENT_EVENTS), RECENT_EVENTS);
  return {
    id: run.id,
    state: run.status,
    statusReason: run.statusReason,
    agent: run.agentName,
    goal: clip(run.goal, 2_000),
    team: run.team,
    model: run.model,
    stepCount: run.stepCount,
    costUsd: run.costUsd,
    tokens: { input: run.inputTokens, output: run.outputTokens },
    error: run.errorCode ? { code: run.errorCode, message: run.errorMessage } : null,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    url: runUrl(ctx, run.id),
    recentEvents: events.map(summarizeEvent),
    openRequests: await openRequests(ctx, run.id),
  };
}

export type RunView = Awaited<ReturnType<typeof runView>>;
