// Spans as a projection of the run event log
// (docs/traces-and-costs.md#how-spans-are-stored): the event log is the truth,
// so spans can always be rebuilt from it.
import type { RunEventRecord } from "@/server/kernel";
import { costOf, type PriceBook } from "./cost";
import { spanIdOf, traceIdOf } from "./ids";
import type { AttributeValue, SpanRecord } from "./types";

/** What spans need to know about the run besides its events. */
export interface RunMeta {
  runId: string;
  teamId: string | null;
  /** The entry agent spec: Rein's workflow. */
  workflowId: string;
  userId: string;
  tier: string;
  createdAt: Date;
}

const DETAIL_CAP = 8_000;

/** Keeps inputs and outputs small enough to store per span. */
function capped(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined) return undefined;
  return text.length <= DETAIL_CAP ? value : `${text.slice(0, DETAIL_CAP)}… (${text.length - DETAIL_CAP} more characters)`;
}

interface OpenTool {
  start: Date;
  /** The run's tier when the call started. */
  tier: string;
  tool: string;
  args: unknown;
  agentSpanId: string;
}

/** The projection of one run; feed it the run's events in order. */
export class RunProjection {
  private readonly traceId: string;
  private readonly runSpanId: string;
  private agent: { name: string; spanId: string; start: Date; index: number } | null = null;
  private agentCount = 0;
  private readonly tools = new Map<string, OpenTool>();
  private readonly requests = new Map<string, { start: Date; parent: string; attributes: Record<string, AttributeValue> }>();
  /** Tier moves asked for and not yet granted or refused, by tool call. */
  private readonly tierMoves = new Map<string, { start: Date; parent: string; attributes: Record<string, AttributeValue> }>();
  /** The run's tier as its events move it: model, tool and human spans carry the tier they started on; run and agent spans the run's first. */
  private tierNow: string;
  private totals = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 };
  private ended: { at: Date; status: "ok" | "error"; state: string } | null = null;
  lastSeq = 0;

  constructor(
    private readonly meta: RunMeta,
    private readonly prices: PriceBook,
  ) {
    this.traceId = traceIdOf(meta.runId);
    this.runSpanId = spanIdOf(meta.runId, "run");
    this.tierNow = meta.tier;
  }

  private base(kind: SpanRecord["kind"], spanId: string, parentSpanId: string | null, name: string, start: Date): SpanRecord {
    const { meta } = this;
    return {
      spanId,
      traceId: this.traceId,
      parentSpanId,
      runId: meta.runId,
      kind,
      name,
      startTime: start,
      endTime: null,
      status: "unset",
      teamId: meta.teamId,
      workflowId: meta.workflowId,
      userId: meta.userId,
      model: null,
      tool: null,
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      costUsd: 0,
      attributes: {
        "rein.run_id": meta.runId,
        "rein.team_id": meta.teamId ?? "",
        "rein.workflow_id": meta.workflowId,
        "rein.user_id": meta.userId,
        "rein.tier": this.tierNow,
        "rein.cost_usd": 0,
        "gen_ai.conversation.id": meta.runId,
      },
      detail: null,
    };
  }

  private runSpan(): SpanRecord {
    const span = this.base("run", this.runSpanId, null, `run ${this.meta.workflowId}`, this.meta.createdAt);
    span.attributes["rein.tier"] = this.meta.tier;
    span.inputTokens = this.totals.inputTokens;
    span.outputTokens = this.totals.outputTokens;
    span.cachedInputTokens = this.totals.cachedInputTokens;
    span.costUsd = round(this.totals.costUsd);
    span.attributes["rein.cost_usd"] = span.costUsd;
    if (this.ended) {
      span.endTime = this.ended.at;
      span.status = this.ended.status;
      span.attributes["rein.run.outcome"] = this.ended.state;
    }
    return span;
  }

  private agentSpan(end: Date | null): SpanRecord | null {
    if (!this.agent) return null;
    const span = this.base("invoke_agent", this.agent.spanId, this.runSpanId, `invoke_agent ${this.agent.name}`, this.agent.start);
    span.attributes["rein.tier"] = this.meta.tier;
    span.attributes["gen_ai.operation.name"] = "invoke_agent";
    span.attributes["gen_ai.agent.name"] = this.agent.name;
    if (end) {
      span.endTime = end;
      span.status = "ok";
    }
    return span;
  }

  /** The spans these events create or change (the run span always comes along: its totals move). */
  apply(events: RunEventRecord[]): SpanRecord[] {
    const out = new Map<string, SpanRecord>();
    const put = (s: SpanRecord | null) => s && out.set(s.spanId, s);
    for (const e of events) {
      if (e.seq <= this.lastSeq) continue;
      this.lastSeq = e.seq;
      const p = e.payload as Record<string, any>;
      switch (e.type) {
        case "model.turn": {
          const start = new Date(e.createdAt.getTime() - (p.durationMs ?? 0));
          if (!this.agent || this.agent.name !== p.agent) {
            put(this.agentSpan(start));
            this.agent = {
              name: p.agent,
              spanId: spanIdOf(this.meta.runId, "agent", String(this.agentCount)),
              start,
              index: this.agentCount++,
            };
          }
          put(this.agentSpan(null));
          put(this.chatSpan(e, p, start));
          break;
        }
        case "model.error": {
          const start = new Date(e.createdAt.getTime() - (p.durationMs ?? 0));
          if (!this.agent || this.agent.name !== p.agent) {
            put(this.agentSpan(start));
            this.agent = {
              name: p.agent,
              spanId: spanIdOf(this.meta.runId, "agent", String(this.agentCount)),
              start,
              index: this.agentCount++,
            };
          }
          put(this.agentSpan(null));
          // Its own id: a later successful attempt at the same step is a span of its own.
          const failed = this.chatSpan(
            e,
            { ...p, usage: p.usage ?? { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } },
            start,
            spanIdOf(this.meta.runId, "chat-error", String(e.seq)),
          );
          failed.status = "error";
          Object.assign(failed.attributes, failureAttributes(p));
          failed.detail = { output: capped({ error: p.error }) };
          put(failed);
          break;
        }
        case "tool.call":
          this.tools.set(p.toolCallId, {
            start: e.createdAt,
            tier: this.tierNow,
            tool: p.tool,
            args: p.args,
            agentSpanId: this.agent?.spanId ?? this.runSpanId,
          });
          put(this.toolSpan(p.toolCallId, null, null));
          break;
        case "tool.result":
          put(this.toolSpan(p.toolCallId, e, p));
          this.tools.delete(p.toolCallId);
          break;
        case "handoff":
          put(this.agentSpan(e.createdAt));
          this.agent = null;
          break;
        case "human.requested": {
          const parent = this.tools.has(p.toolCallId)
            ? spanIdOf(this.meta.runId, "tool", p.toolCallId)
            : (this.agent?.spanId ?? this.runSpanId);
          const attributes = {
            "rein.tier": this.tierNow,
            "rein.human_request.id": p.requestId,
            "rein.human_request.kind": p.kind,
            "rein.human_request.required_role": p.requiredRole,
          };
          if (!this.requests.has(p.requestId)) this.requests.set(p.requestId, { start: e.createdAt, parent, attributes });
          put(this.requestSpan(p.requestId, null));
          break;
        }
        case "human.decided":
          if (this.requests.has(p.requestId))
            put(this.requestSpan(p.requestId, { at: e.createdAt, state: p.state, by: p.byName, channel: p.channel }));
          break;
        case "tier.requested":
        case "tier.changed":
        case "tier.refused":
        case "tier.restored":
          put(this.tierSpan(e, p));
          break;
        case "improve.cycle":
          put(this.cycleSpan(e, p));
          break;
        case "run.state":
          if (p.to === "succeeded" || p.to === "failed" || p.to === "canceled") {
            this.ended = { at: e.createdAt, status: p.to === "succeeded" ? "ok" : "error", state: p.to };
            put(this.agentSpan(e.createdAt));
          }
          break;
        default:
          // The other events make no span.
          break;
      }
    }
    put(this.runSpan());
    return [...out.values()];
  }

  private chatSpan(
    e: RunEventRecord,
    p: Record<string, any>,
    start: Date,
    spanId = spanIdOf(this.meta.runId, "chat", String(p.step)),
  ): SpanRecord {
    // A turn written without its model (an event log from elsewhere, or damaged) is priced as unknown, not a crash.
    const model: string = typeof p.model === "string" && p.model ? p.model : "unknown";
    const usage = p.usage ?? { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
    const { price, known } = this.prices.lookup(model);
    const cost = costOf(usage, price);
    this.totals.inputTokens += usage.inputTokens;
    this.totals.outputTokens += usage.outputTokens;
    this.totals.cachedInputTokens += usage.cachedInputTokens;
    this.totals.costUsd += cost;
    const span = this.base("chat", spanId, this.agent!.spanId, `chat ${model}`, start);
    const [provider] = model.split("/", 1);
    Object.assign(span, {
      endTime: e.createdAt,
      status: "ok",
      model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      costUsd: cost,
    });
    Object.assign(span.attributes, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": model,
      "gen_ai.agent.name": p.agent,
      "gen_ai.usage.input_tokens": usage.inputTokens,
      "gen_ai.usage.output_tokens": usage.outputTokens,
      "gen_ai.usage.cache_read.input_tokens": usage.cachedInputTokens,
      "gen_ai.response.finish_reasons": p.finishReason ?? "other",
      "rein.cost_usd": cost,
      "rein.step": p.step,
      "rein.model.scripted": !!p.scripted,
      ...(known ? {} : { "rein.cost.unpriced": true }),
      ...routingAttributes(p),
    });
    span.detail = { output: capped({ text: p.text, toolCalls: p.toolCalls }) };
    return span;
  }

  private toolSpan(toolCallId: string, e: RunEventRecord | null, p: Record<string, any> | null): SpanRecord | null {
    const open = this.tools.get(toolCallId);
    if (!open) return null;
    const span = this.base(
      "execute_tool",
      spanIdOf(this.meta.runId, "tool", toolCallId),
      open.agentSpanId,
      `execute_tool ${open.tool}`,
      open.start,
    );
    span.tool = open.tool;
    span.attributes["rein.tier"] = open.tier;
    Object.assign(span.attributes, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": open.tool,
      "gen_ai.tool.call.id": toolCallId,
    });
    span.detail = { input: capped(open.args) };
    if (e && p) {
      span.endTime = e.createdAt;
      span.status = p.ok ? "ok" : "error";
      if (!p.ok) span.attributes["error.type"] = p.error?.code ?? "TOOL_FAILED";
      if (p.cached) span.attributes["rein.tool.cached"] = true;
      if (p.replayClass) span.attributes["rein.tool.replay_class"] = p.replayClass;
      span.attributes["gen_ai.tool.type"] = p.origin === "mcp" ? "mcp" : "function";
      if (p.gate?.policy) span.attributes["rein.policy.effect"] = p.gate.policy.effect;
      if (p.gate?.requestId) span.attributes["rein.human_request.id"] = p.gate.requestId;
      span.detail = { input: capped(open.args), output: capped(p.ok ? p.output : p.error) };
    }
    return span;
  }

  /** Each move of a hack cycle is a span of its improver run (docs/improvements.md#the-hack-cycle). */
  private cycleSpan(e: RunEventRecord, p: Record<string, any>): SpanRecord {
    const span = this.base(
      "improve",
      spanIdOf(this.meta.runId, "cycle", String(e.seq)),
      this.agent?.spanId ?? this.runSpanId,
      `improve ${p.from ?? "start"}→${p.to}`,
      e.createdAt,
    );
    span.endTime = e.createdAt;
    span.status = p.to === "ABANDONED" ? "error" : "ok";
    Object.assign(span.attributes, {
      "rein.improve.cycle.id": p.cycleId,
      "rein.improve.cycle.state": p.to,
      ...(p.from ? { "rein.improve.cycle.from": p.from } : {}),
      ...(p.attempt ? { "rein.improve.attempt": p.attempt } : {}),
      ...(p.improvementId ? { "rein.improve.improvement.id": p.improvementId } : {}),
    });
    if (p.reason) span.detail = { output: capped({ reason: p.reason }) };
    return span;
  }

  /**
   * Every tier transition is a span, from the agent's request (upgrade_tier)
   * to the move or the refusal; moves nobody asked for (idle, run end, a
   * restored desktop) span the time they took (docs/desktops-and-tiers.md).
   */
  private tierSpan(e: RunEventRecord, p: Record<string, any>): SpanRecord {
    const key = p.toolCallId ?? `seq-${e.seq}`;
    if (e.type === "tier.requested") {
      const parent = this.tools.has(p.toolCallId)
        ? spanIdOf(this.meta.runId, "tool", p.toolCallId)
        : (this.agent?.spanId ?? this.runSpanId);
      const attributes = { "rein.tier.from": p.from, "rein.tier.to": p.to, "rein.tier.reason": p.reason };
      if (!this.tierMoves.has(key)) this.tierMoves.set(key, { start: e.createdAt, parent, attributes });
    }
    const asked = this.tierMoves.get(key);
    const to = e.type === "tier.restored" ? p.tier : p.to;
    const from = e.type === "tier.restored" ? p.tier : p.from;
    const start = asked?.start ?? new Date(e.createdAt.getTime() - (p.durationMs ?? 0));
    const span = this.base(
      "tier",
      spanIdOf(this.meta.runId, "tier", key),
      asked?.parent ?? this.agent?.spanId ?? this.runSpanId,
      `tier ${from}→${to}${e.type === "tier.restored" ? " restored" : ""}`,
      start,
    );
    Object.assign(span.attributes, asked?.attributes ?? { "rein.tier.from": from, "rein.tier.to": to, "rein.tier.reason": p.reason });
    if (e.type === "tier.requested") return span;
    this.tierMoves.delete(key);
    span.endTime = e.createdAt;
    span.status = e.type === "tier.refused" ? "error" : "ok";
    if (e.type === "tier.refused") Object.assign(span.attributes, { "error.type": p.code, "rein.tier.refusal": p.message });
    else {
      Object.assign(span.attributes, { "rein.tier.trigger": p.trigger ?? "restore", "rein.tier.migration_ms": p.durationMs ?? 0 });
      if (typeof p.fromPool === "boolean") span.attributes["rein.tier.from_pool"] = p.fromPool;
      if (e.type === "tier.changed") this.tierNow = p.to;
    }
    return span;
  }

  private requestSpan(requestId: string, end: { at: Date; state: string; by: string; channel: string } | null): SpanRecord {
    const req = this.requests.get(requestId)!;
    const span = this.base(
      "human_request",
      spanIdOf(this.meta.runId, "human", requestId),
      req.parent,
      `human_request ${req.attributes["rein.human_request.kind"]}`,
      req.start,
    );
    Object.assign(span.attributes, req.attributes);
    if (end) {
      span.endTime = end.at;
      span.status = end.state === "APPROVED" ? "ok" : "error";
      Object.assign(span.attributes, {
        "rein.human_request.state": end.state,
        "rein.human_request.decided_by": end.by,
        "rein.human_request.channel": end.channel,
      });
      if (end.state !== "APPROVED") span.attributes["error.type"] = end.state;
    }
    return span;
  }
}

function round(usd: number) {
  return Math.round(usd * 1e8) / 1e8;
}

/** The router's decision as span attributes: every routing decision is one (docs/traces-and-costs.md#attributes). */
function routingAttributes(p: Record<string, any>): Record<string, string | number> {
  const r = p.routing;
  if (!r) return {};
  return {
    "rein.routing.task_class": r.taskClass,
    "rein.routing.strategy": r.strategy,
    "rein.routing.complexity": r.complexity,
    "rein.routing.candidates": (r.candidates ?? []).join(","),
    "rein.routing.reason": r.reason,
    ...(r.pool ? { "rein.routing.pool": r.pool } : {}),
    ...(r.skipped?.length
      ? { "rein.routing.skipped": r.skipped.map((s: { model: string; reason: string }) => `${s.model}: ${s.reason}`).join("; ") }
      : {}),
    ...(p.failovers ? { "rein.routing.failovers": p.failovers } : {}),
  };
}

/** Why a model call failed and where the turn went next. */
function failureAttributes(p: Record<string, any>): Record<string, string | number> {
  return {
    "error.type": p.errorKind ?? "MODEL_ERROR",
    ...(p.status ? { "http.response.status_code": p.status } : {}),
    ...(p.retryAfterMs !== undefined ? { "rein.provider.retry_after_ms": p.retryAfterMs } : {}),
    ...(p.cooldownMs !== undefined ? { "rein.routing.cooldown_ms": p.cooldownMs } : {}),
    ...(p.failoverTo ? { "rein.routing.failover_to": p.failoverTo } : {}),
  };
}
