import { describe, expect, it } from "vitest";
import type { RunEventRecord } from "@/server/kernel";
import { costOf, PriceBook, RunProjection, type SpanRecord } from "./index";

const META = {
  runId: "run-1",
  teamId: "team-1",
  workflowId: "demo-coder",
  userId: "user-1",
  tier: "T1",
  createdAt: new Date("2026-01-01T00:00:00Z"),
};
let seq = 0;
const at = (ms: number) => new Date(META.createdAt.getTime() + ms);
const ev = (type: string, payload: unknown, ms: number): RunEventRecord => ({
  runId: "run-1",
  seq: ++seq,
  type: type as RunEventRecord["type"],
  actor: null,
  payload,
  createdAt: at(ms),
});

const PRICE = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

function events(): RunEventRecord[] {
  seq = 0;
  return [
    ev("run.created", {}, 0),
    ev(
      "model.turn",
      {
        step: 1,
        agent: "planner",
        model: "anthropic/claude-x",
        text: "plan",
        toolCalls: [{ tool: "handoff" }],
        finishReason: "tool-calls",
        usage: { inputTokens: 1000, outputTokens: 100, cachedInputTokens: 400 },
        durationMs: 500,
      },
      600,
    ),
    ev("tool.call", { toolCallId: "t1", tool: "handoff", args: { agent: "coder" } }, 610),
    ev(
      "tool.result",
      { toolCallId: "t1", tool: "handoff", ok: true, output: { handoffTo: "coder" }, cached: false, replayClass: "pure" },
      620,
    ),
    ev("handoff", { from: "planner", to: "coder" }, 620),
    ev(
      "model.turn",
      {
        step: 2,
        agent: "coder",
        model: "anthropic/claude-x",
        text: "",
        toolCalls: [],
        finishReason: "tool-calls",
        usage: { inputTokens: 2000, outputTokens: 50, cachedInputTokens: 1500 },
        durationMs: 300,
      },
      1000,
    ),
    ev("tool.call", { toolCallId: "t2", tool: "shell", args: { command: "./deploy.sh" } }, 1010),
    ev(
      "human.requested",
      { requestId: "r1", kind: "approve", title: "Run?", requiredRole: "approver", expiresAt: "x", tool: "shell", toolCallId: "t2" },
      1020,
    ),
    ev("human.decided", { requestId: "r1", kind: "approve", state: "REJECTED", by: "u2", byName: "Ann", channel: "inbox" }, 5000),
    ev(
      "tool.result",
      {
        toolCallId: "t2",
        tool: "shell",
        ok: false,
        error: { code: "REJECTED_BY_HUMAN", message: "no" },
        cached: false,
        replayClass: "unsafe_on_replay",
      },
      5010,
    ),
    ev("run.state", { from: "running", to: "failed" }, 5100),
  ];
}

const REQUIRED: Record<SpanRecord["kind"], string[]> = {
  run: [],
  invoke_agent: ["gen_ai.operation.name", "gen_ai.agent.name"],
  chat: [
    "gen_ai.operation.name",
    "gen_ai.provider.name",
    "gen_ai.request.model",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.cache_read.input_tokens",
    "gen_ai.agent.name",
  ],
  execute_tool: ["gen_ai.operation.name", "gen_ai.tool.name", "gen_ai.tool.call.id"],
  human_request: ["rein.human_request.id", "rein.human_request.kind"],
  tier: ["rein.tier.from", "rein.tier.to"],
  improve: ["rein.improve.cycle.id", "rein.improve.cycle.state"],
};
const EVERY = ["rein.team_id", "rein.workflow_id", "rein.run_id", "rein.user_id", "rein.cost_usd", "rein.tier", "gen_ai.conversation.id"];

function project(prices = new PriceBook(new Map([["anthropic/claude-x", PRICE]]))) {
  const spans = new Map<string, SpanRecord>();
  const p = new RunProjection(META, prices);
  for (const s of p.apply(events())) spans.set(s.spanId, s);
  return [...spans.values()];
}

describe("spans projected from the event log", () => {
  it("makes one tree: run > agents (split at the handoff) > chat and tools > the human request", () => {
    const spans = project();
    const byKind = (k: string) => spans.filter((s) => s.kind === k);
    expect(byKind("run")).toHaveLength(1);
    expect(byKind("invoke_agent").map((s) => s.name)).toEqual(["invoke_agent planner", "invoke_agent coder"]);
    expect(byKind("chat")).toHaveLength(2);
    expect(byKind("execute_tool").map((s) => s.name)).toEqual(["execute_tool handoff", "execute_tool shell"]);
    const ids = new Set(spans.map((s) => s.spanId));
    for (const s of spans) if (s.kind !== "run") expect(ids.has(s.parentSpanId!), `${s.name} has a parent in the trace`).toBe(true);
    const shell = byKind("execute_tool")[1];
    expect(byKind("human_request")[0]).toMatchObject({
      parentSpanId: shell.spanId,
      status: "error",
      attributes: { "rein.human_request.state": "REJECTED", "error.type": "REJECTED" },
    });
    expect(shell).toMatchObject({ status: "error", attributes: { "error.type": "REJECTED_BY_HUMAN" } });
    expect(byKind("invoke_agent")[0].endTime).toEqual(at(620));
    expect(byKind("chat")[0].startTime).toEqual(at(100));
    expect(byKind("run")[0]).toMatchObject({ status: "error", endTime: at(5100), attributes: { "rein.run.outcome": "failed" } });
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  });

  it("every span carries the GenAI attributes of its kind and rein.team_id and rein.workflow_id", () => {
    for (const s of project()) {
      for (const key of [...EVERY, ...REQUIRED[s.kind]]) expect(s.attributes, `${s.name} lacks ${key}`).toHaveProperty([key]);
      expect(s.attributes["rein.team_id"]).toBe("team-1");
      expect(s.attributes["rein.workflow_id"]).toBe("demo-coder");
    }
  });

  it("prices cached input tokens as cache reads, and the run's cost is the sum of its calls", () => {
    const spans = project();
    const chats = spans.filter((s) => s.kind === "chat");
    // 600 plain input at $3, 400 cached at $0.30, 100 output at $15 per million tokens.
    expect(chats[0].costUsd).toBeCloseTo((600 * 3 + 400 * 0.3 + 100 * 15) / 1e6, 10);
    expect(chats[1].costUsd).toBeCloseTo((500 * 3 + 1500 * 0.3 + 50 * 15) / 1e6, 10);
    const run = spans.find((s) => s.kind === "run")!;
    expect(run.costUsd).toBeCloseTo(chats[0].costUsd + chats[1].costUsd, 10);
    expect(run.attributes["rein.cost_usd"]).toBe(run.costUsd);
    expect(run.inputTokens).toBe(3000);
  });

  it("an unpriced model costs nothing and says so; the scripted model is free", () => {
    const chats = project(new PriceBook()).filter((s) => s.kind === "chat");
    expect(chats[0]).toMatchObject({ costUsd: 0, attributes: { "rein.cost.unpriced": true } });
    expect(new PriceBook().lookup("scripted/demo-coder")).toEqual({
      price: { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 },
      known: true,
    });
  });

  it("projecting the same events twice gives the same spans", () => {
    const a = project()
      .map((s) => JSON.stringify(s))
      .sort();
    const b = project()
      .map((s) => JSON.stringify(s))
      .sort();
    expect(a).toEqual(b);
  });

  it("a failed model call is a chat span of its own, in error, and what the provider billed still counts", () => {
    seq = 0;
    const p = new RunProjection(META, new PriceBook(new Map([["anthropic/claude-x", PRICE]])));
    const spans = p.apply([
      ev(
        "model.error",
        {
          step: 1,
          agent: "coder",
          model: "anthropic/claude-x",
          error: "The model call failed: overloaded",
          durationMs: 200,
          usage: { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 0 },
        },
        300,
      ),
      ev(
        "model.turn",
        {
          step: 1,
          agent: "coder",
          model: "anthropic/claude-x",
          text: "ok",
          toolCalls: [],
          finishReason: "stop",
          usage: { inputTokens: 1000, outputTokens: 10, cachedInputTokens: 0 },
          durationMs: 100,
        },
        600,
      ),
    ]);
    const chats = spans.filter((s) => s.kind === "chat");
    expect(chats).toHaveLength(2);
    expect(new Set(chats.map((c) => c.spanId)).size).toBe(2);
    const failed = chats.find((c) => c.status === "error")!;
    expect(failed.attributes["error.type"]).toBe("MODEL_ERROR");
    expect(failed.costUsd).toBeCloseTo((1000 * 3) / 1e6, 10);
    expect(spans.find((s) => s.kind === "run")!.costUsd).toBeCloseTo(failed.costUsd + chats.find((c) => c.status === "ok")!.costUsd, 10);
  });

  it("cost arithmetic: cache writes at their price, never negative input", () => {
    expect(costOf({ inputTokens: 1000, outputTokens: 0, cachedInputTokens: 200, cacheWriteInputTokens: 300 }, PRICE)).toBeCloseTo(
      (500 * 3 + 200 * 0.3 + 300 * 3.75) / 1e6,
      12,
    );
    expect(costOf({ inputTokens: 10, outputTokens: 0, cachedInputTokens: 50 }, PRICE)).toBeCloseTo((50 * 0.3) / 1e6, 12);
  });
});

describe("tier spans (every transition is a span)", () => {
  function tierEvents(): RunEventRecord[] {
    seq = 0;
    return [
      ev("run.created", {}, 0),
      ev(
        "model.turn",
        {
          step: 1,
          agent: "demo-browser",
          model: "scripted/demo-browser",
          text: "",
          toolCalls: [],
          finishReason: "tool-calls",
          usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0 },
          durationMs: 10,
        },
        100,
      ),
      ev("tool.call", { toolCallId: "u1", tool: "upgrade_tier", args: { tier: "T2" } }, 110),
      ev("tier.requested", { from: "T1", to: "T2", reason: "a web form", toolCallId: "u1" }, 120),
      ev(
        "tier.changed",
        { from: "T1", to: "T2", reason: "a web form", trigger: "upgrade", durationMs: 900, fromPool: true, toolCallId: "u1" },
        3000,
      ),
      ev(
        "tool.result",
        { toolCallId: "u1", tool: "upgrade_tier", ok: true, output: {}, cached: false, replayClass: "idempotent_with_key" },
        3010,
      ),
      ev("tool.call", { toolCallId: "b1", tool: "browser_read", args: {} }, 3100),
      ev("tool.result", { toolCallId: "b1", tool: "browser_read", ok: true, output: {}, cached: false, replayClass: "pure" }, 3200),
      ev("tool.call", { toolCallId: "u2", tool: "upgrade_tier", args: { tier: "T3" } }, 3300),
      ev("tier.requested", { from: "T2", to: "T3", reason: "more", toolCallId: "u2" }, 3310),
      ev("tier.refused", { from: "T2", to: "T3", code: "TIER_UNAVAILABLE", message: "not here", toolCallId: "u2" }, 3320),
      ev(
        "tool.result",
        {
          toolCallId: "u2",
          tool: "upgrade_tier",
          ok: false,
          error: { code: "TIER_UNAVAILABLE", message: "not here" },
          cached: false,
          replayClass: "idempotent_with_key",
        },
        3330,
      ),
      ev("run.state", { from: "running", to: "succeeded" }, 4000),
      ev("tier.changed", { from: "T2", to: "T1", reason: "The run ended (succeeded)", trigger: "run_end", durationMs: 250 }, 4300),
    ];
  }

  it("spans the request to the move under the upgrade_tier call, the refusal in error, and the way down by its duration", () => {
    const spans = new Map<string, SpanRecord>();
    for (const s of new RunProjection(META, new PriceBook(new Map())).apply(tierEvents())) spans.set(s.spanId, s);
    const all = [...spans.values()];
    const tiers = all.filter((s) => s.kind === "tier");
    expect(tiers.map((s) => s.name)).toEqual(["tier T1→T2", "tier T2→T3", "tier T2→T1"]);
    const [up, refused, down] = tiers;
    const upgradeCall = all.find((s) => s.kind === "execute_tool" && s.attributes["gen_ai.tool.call.id"] === "u1")!;
    expect(up).toMatchObject({ parentSpanId: upgradeCall.spanId, startTime: at(120), endTime: at(3000), status: "ok" });
    expect(up.attributes).toMatchObject({
      "rein.tier.reason": "a web form",
      "rein.tier.trigger": "upgrade",
      "rein.tier.migration_ms": 900,
      "rein.tier.from_pool": true,
    });
    expect(refused).toMatchObject({
      status: "error",
      endTime: at(3320),
      attributes: { "error.type": "TIER_UNAVAILABLE", "rein.tier.refusal": "not here" },
    });
    expect(down).toMatchObject({ startTime: at(4050), endTime: at(4300), status: "ok", attributes: { "rein.tier.trigger": "run_end" } });
    // Calls started on T2 say so; the run span keeps the tier the run started on.
    const read = all.find((s) => s.kind === "execute_tool" && s.attributes["gen_ai.tool.call.id"] === "b1")!;
    expect(read.attributes["rein.tier"]).toBe("T2");
    expect(upgradeCall.attributes["rein.tier"]).toBe("T1");
    expect(all.find((s) => s.kind === "run")!.attributes["rein.tier"]).toBe("T1");
    for (const s of tiers)
      for (const key of [...EVERY, ...REQUIRED.tier]) expect(s.attributes, `${s.name} lacks ${key}`).toHaveProperty([key]);
  });
});

it("a model turn without its model is a chat span of an unknown model, not a crash", () => {
  seq = 0;
  const spans = new RunProjection(META, new PriceBook(new Map())).apply([
    ev("run.created", {}, 0),
    ev("model.turn", { step: 1, agent: "coder", text: "x", usage: { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0 } }, 100),
  ]);
  const chat = spans.find((s) => s.kind === "chat")!;
  expect(chat).toMatchObject({ name: "chat unknown", model: "unknown", costUsd: 0, inputTokens: 10 });
});
