// The model gateway (docs/gateway.md) spoken to by real clients: Rein's own
// provider backends, which are the AI SDK's OpenAI (Chat Completions and
// Responses) and Anthropic (Messages) clients, pointed at the gateway. The
// scripted model serves the run's scenario, with a tool call round trip; every
// call must be a model.turn on the run, costed by the telemetry projection.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore, type RunEventRecord, type TransientRunMessage } from "@/server/kernel";
import {
  DefaultModelRouter,
  ProviderError,
  createAnthropicModel,
  createOpenAIModel,
  createOpenAICompatibleModel,
  listAnthropicModels,
  listOpenAIModels,
  startFakeOpenAI,
  type LanguageModel,
  type Message,
  type ModelRouter,
  type Scenario,
  type StreamPart,
  type ToolSpec,
} from "@/server/models";
import { PriceBook, RunProjection } from "@/server/telemetry";
import { ModelGateway, type GatewayRun } from "@/server/gateway";

const SCENARIO: Scenario = {
  turns: [
    { text: "Reading the file first.", toolCalls: [{ tool: "read_file", args: { path: "notes.txt", startLine: 1 } }] },
    { text: "The file says hello, so I am done." },
  ],
};
const TOOLS: ToolSpec[] = [
  {
    name: "read_file",
    description: "Read a file of the workspace",
    inputSchema: { type: "object", properties: { path: { type: "string" }, startLine: { type: "number" } }, required: ["path"] },
  },
];
const FIRST: Message[] = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "user", content: "What does notes.txt say?" },
];

const store = new MemoryRunStore();
const transients: TransientRunMessage[] = [];
let budget: { ok: boolean; code?: string; reason?: string } = { ok: true };
const scripted = new DefaultModelRouter({ scriptedDelayMs: 0 });
/** The router of the next calls: the scripted model, or configured providers for one test. */
let router: ModelRouter = scripted;
const gateway = new ModelGateway({
  router: {
    resolve: (request) => router.resolve(request),
    coolDown: (ref, err) => router.coolDown?.(ref, err) ?? null,
    answered: (ref) => router.answered?.(ref),
  },
  limits: { beforeModelCall: async () => budget },
  appendEvents: (runId, events) => store.appendEvents(runId, events),
  publishTransient: (m) => transients.push(m),
  log: { info() {}, error() {} },
});
const server = http.createServer((req, res) => void gateway.handle(req, res));
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A run in the store, bound to the gateway; its steps counted as the ACP host would. */
function bindRun(overrides: Partial<GatewayRun> = {}) {
  const runId = `run-${crypto.randomUUID()}`;
  store.addRun({
    id: runId,
    goal: "Read the notes",
    agentName: "claude-code",
    agentVersion: 1,
    status: "running",
    model: "scripted/run-scenario",
    scenario: SCENARIO,
    maxSteps: 10,
    createdById: "user-test",
    teamId: null,
  });
  let step = 0;
  const control = new AbortController();
  const bound = gateway.bind({
    runId,
    teamId: null,
    agent: "claude-code",
    model: "scripted/run-scenario",
    taskClass: "code",
    scenario: SCENARIO,
    maxCalls: 10,
    nextStep: () => ++step,
    signal: control.signal,
    ...overrides,
  });
  const events = async (type?: string): Promise<RunEventRecord[]> =>
    (await store.listEvents(runId, 0, 1000)).filter((e) => !type || e.type === type);
  return { runId, token: bound.token, unbind: bound.unbind, control, events };
}

type Client = "chat" | "responses" | "anthropic";
function client(kind: Client, token: string): LanguageModel {
  if (kind === "anthropic")
    return createAnthropicModel({ name: "anthropic", baseUrl: url, apiKey: token, modelId: "claude-sonnet-4-5", family: "claude" });
  return createOpenAIModel({
    name: "openai",
    baseUrl: url,
    apiKey: token,
    modelId: "gpt-5",
    family: "gpt",
    api: kind === "chat" ? "chat" : "responses",
  });
}

async function collect(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
  return parts;
}

/** One call, streamed or not, as text, tool calls (with their JSON text) and usage. */
async function call(model: LanguageModel, prompt: Message[], streamed: boolean) {
  if (!streamed) {
    const r = await model.doGenerate({ prompt, tools: TOOLS });
    return {
      text: r.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""),
      calls: r.content.flatMap((p) => (p.type === "tool-call" ? [{ id: p.toolCallId, name: p.toolName, args: p.input }] : [])),
      finishReason: r.finishReason,
      usage: r.usage,
      deltas: 0,
    };
  }
  const { stream } = await model.doStream({ prompt, tools: TOOLS });
  const parts = await collect(stream);
  const finish = parts.find((p) => p.type === "finish");
  if (!finish || finish.type !== "finish") throw new Error(`no finish part: ${JSON.stringify(parts)}`);
  const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []));
  return {
    text: deltas.join(""),
    calls: parts.flatMap((p) =>
      p.type === "tool-call" ? [{ id: p.toolCallId, name: p.toolName, args: JSON.parse(p.input) as unknown }] : [],
    ),
    finishReason: finish.finishReason,
    usage: finish.usage,
    deltas: deltas.length,
  };
}

describe.each<[Client, boolean]>([
  ["chat", true],
  ["chat", false],
  ["anthropic", true],
  ["anthropic", false],
  ["responses", true],
  ["responses", false],
])("the %s client (streamed: %s)", (kind, streamed) => {
  it("plays the run's scenario through a tool call round trip, and each call is a model.turn with its usage", async () => {
    const run = bindRun();
    const model = client(kind, run.token);

    const first = await call(model, FIRST, streamed);
    expect(first.text).toBe("Reading the file first.");
    expect(first.calls).toEqual([{ id: "call_0_0", name: "read_file", args: { path: "notes.txt", startLine: 1 } }]);
    expect(first.finishReason).toBe("tool-calls");
    expect(first.usage.inputTokens).toBeGreaterThan(10);
    if (streamed) expect(first.deltas).toBeGreaterThan(1);

    const second = await call(
      model,
      [
        ...FIRST,
        {
          role: "assistant",
          content: [
            { type: "text", text: first.text },
            { type: "tool-call", toolCallId: "call_0_0", toolName: "read_file", input: first.calls[0].args },
          ],
        },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "call_0_0", toolName: "read_file", output: "hello" }] },
      ],
      streamed,
    );
    expect(second).toMatchObject({ text: "The file says hello, so I am done.", calls: [], finishReason: "stop" });

    const turns = await run.events("model.turn");
    expect(turns.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        step: 1,
        agent: "claude-code",
        model: "scripted/run-scenario",
        scripted: true,
        text: "Reading the file first.",
        toolCalls: [{ toolCallId: "call_0_0", tool: "read_file", args: { path: "notes.txt", startLine: 1 } }],
        finishReason: "tool-calls",
        usage: { inputTokens: first.usage.inputTokens, outputTokens: first.usage.outputTokens, cachedInputTokens: 0 },
        requestedModel: kind === "anthropic" ? "claude-sonnet-4-5" : "gpt-5",
      }),
      expect.objectContaining({ step: 2, text: "The file says hello, so I am done.", toolCalls: [], finishReason: "stop" }),
    ]);
    expect(turns.map((e) => e.actor)).toEqual(["agent:claude-code", "agent:claude-code"]);
    // The second prompt is longer: the tool result reached the model.
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens);
    expect(transients.some((m) => m.type === "model.delta" && m.runId === run.runId && m.step === 2)).toBe(true);
  });
});

describe("the run's timeline and costs", () => {
  it("the telemetry projection makes a costed chat span of each gateway call", async () => {
    const run = bindRun();
    await call(client("anthropic", run.token), FIRST, true);
    const [turn] = await run.events("model.turn");
    const prices = new PriceBook();
    prices.set("scripted/run-scenario", { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0, cacheWritePerMTok: 0 });
    const projection = new RunProjection(
      { runId: run.runId, teamId: null, workflowId: "claude-code", userId: "user-test", tier: "T1", createdAt: new Date() },
      prices,
    );
    const chat = projection.apply([turn]).find((s) => s.kind === "chat");
    const usage = (turn.payload as { usage: { inputTokens: number; outputTokens: number } }).usage;
    expect(chat).toMatchObject({ model: "scripted/run-scenario", inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
    expect(chat!.costUsd).toBeCloseTo((usage.inputTokens * 3 + usage.outputTokens * 15) / 1e6, 8);
    expect(chat!.attributes["gen_ai.agent.name"]).toBe("claude-code");
  });
});

describe("GET /v1/models", () => {
  it("lists the run's model, the rein alias and the names the host advertises, for both vendors' clients", async () => {
    const run = bindRun({ advertised: ["claude-sonnet-4-5"] });
    const expected = ["scripted/run-scenario", "rein", "claude-sonnet-4-5"];
    expect(await listOpenAIModels({ baseUrl: url, apiKey: run.token })).toEqual({ ok: true, models: expected });
    expect(await listAnthropicModels({ baseUrl: url, apiKey: run.token })).toEqual({ ok: true, models: expected });
  });
});

describe("before each call", () => {
  it("refuses past the call cap in words, with 429 and no retry, and records the refusal once", async () => {
    const run = bindRun({ maxCalls: 1 });
    await call(client("chat", run.token), FIRST, false);
    for (let i = 0; i < 3; i++) {
      const err = await client("chat", run.token)
        .doGenerate({ prompt: FIRST })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).status).toBe(429);
      expect((err as ProviderError).message).toContain("This run reached its limit of 1 model calls");
    }
    const raw = await fetch(`${url}/messages`, {
      method: "POST",
      headers: { "x-api-key": run.token, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get("x-should-retry")).toBe("false");
    expect(await raw.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: expect.stringContaining("limit of 1 model calls") },
    });
    expect((await run.events("model.turn")).length).toBe(1);
    const errors = await run.events("model.error");
    expect(errors.map((e) => e.payload)).toEqual([
      expect.objectContaining({ step: 2, errorKind: "call_cap", error: expect.stringContaining("limit of 1") }),
    ]);
  });

  it("refuses a call over budget with 402 and the budget's reason, which the run's timeline shows", async () => {
    const run = bindRun();
    budget = { ok: false, code: "RUN_BUDGET_EXCEEDED", reason: "The run's budget of $0.50 is spent ($0.51 so far)" };
    try {
      for (const kind of ["anthropic", "chat", "responses"] as const) {
        const err = await client(kind, run.token)
          .doStream({ prompt: FIRST })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ProviderError);
        expect((err as ProviderError).status).toBe(402);
        expect((err as ProviderError).message).toContain("The run's budget of $0.50 is spent");
      }
    } finally {
      budget = { ok: true };
    }
    expect(await run.events("model.turn")).toEqual([]);
    expect((await run.events("model.error")).map((e) => e.payload)).toEqual([
      expect.objectContaining({ errorKind: "RUN_BUDGET_EXCEEDED", error: "The run's budget of $0.50 is spent ($0.51 so far)", step: 1 }),
    ]);
    // A refused call is no call: the budget back, the run goes on at step 1.
    await call(client("chat", run.token), FIRST, true);
    expect((await run.events("model.turn")).map((e) => (e.payload as { step: number }).step)).toEqual([1]);
  });

  it("refuses every call of a run that is not running (409), and an unbound token (401)", async () => {
    const run = bindRun();
    run.control.abort();
    const err = await client("anthropic", run.token)
      .doGenerate({ prompt: FIRST })
      .catch((e: unknown) => e);
    expect((err as ProviderError).status).toBe(409);
    expect((err as ProviderError).message).toContain("The run is not running");

    const other = bindRun();
    other.unbind();
    const gone = await client("chat", other.token)
      .doGenerate({ prompt: FIRST })
      .catch((e: unknown) => e);
    expect((gone as ProviderError).status).toBe(401);
    expect((gone as ProviderError).kind).toBe("auth");
  });
});

describe("a unix socket", () => {
  it("serves the gateway to a sandbox with no network, readable by this user only", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-gw-"));
    const socketPath = path.join(dir, "gateway.sock");
    const listening = await gateway.listen(socketPath);
    try {
      expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
      const run = bindRun();
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request({ socketPath, path: "/v1/models", headers: { authorization: `Bearer ${run.token}` } }, (res) => {
          let text = "";
          res.on("data", (c) => (text += c));
          res.on("end", () => resolve(`${res.statusCode} ${text}`));
        });
        req.on("error", reject);
        req.end();
      });
      expect(body).toMatch(/^200 .*"id":"rein"/);
    } finally {
      await listening.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(fs.existsSync(socketPath)).toBe(false);
  });
});

describe("a configured provider behind the gateway", () => {
  it("fails over like a kernel turn: the failed attempt is a model.error, the turn names its failover and routing", async () => {
    const upstream = await startFakeOpenAI();
    try {
      const deployment = (name: string) => ({
        model: createOpenAICompatibleModel({ name, baseUrl: upstream.baseUrl, apiKey: "sk-upstream", modelId: "m", family: "llama" }),
        label: `${name} · m`,
        scripted: false,
        ref: `${name}/m`,
      });
      const routing = {
        taskClass: "code" as const,
        pool: null,
        strategy: "ordered" as const,
        complexity: 0.5,
        candidates: ["a/m", "b/m"],
        skipped: [],
        reason: "a/m is the first code candidate",
      };
      router = { resolve: () => ({ ...deployment("a"), routing, fallbacks: [deployment("b")] }), coolDown: () => 15_000 };
      upstream.enqueue(
        { type: "status", status: 503, message: "overloaded" },
        { type: "reply", reply: { text: "Hello from b.", usage: { uncachedInputTokens: 40, cacheReadTokens: 10, outputTokens: 7 } } },
      );
      const run = bindRun({ model: "auto" });
      const answer = await call(client("anthropic", run.token), FIRST, true);
      expect(answer).toMatchObject({ text: "Hello from b.", finishReason: "stop" });
      expect(answer.usage).toMatchObject({ inputTokens: 50, outputTokens: 7, cachedInputTokens: 10 });
      // The upstream got Rein's key, never the agent's token.
      expect(upstream.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-upstream", "Bearer sk-upstream"]);
      expect((await run.events()).map((e) => [e.type, e.payload])).toEqual([
        ["model.error", expect.objectContaining({ step: 1, model: "a/m", status: 503, failoverTo: "b/m", cooldownMs: 15_000 })],
        [
          "model.turn",
          expect.objectContaining({
            step: 1,
            model: "b/m",
            failovers: 1,
            routing: expect.objectContaining({ candidates: ["a/m", "b/m"] }),
            usage: { inputTokens: 50, outputTokens: 7, cachedInputTokens: 10 },
          }),
        ],
      ]);
    } finally {
      router = scripted;
      await upstream.close();
    }
  });
});

describe("the wire", () => {
  it("answers Claude Code's streamed request (?beta=true, cache_control, thinking) with Anthropic's events in order", async () => {
    const run = bindRun();
    const res = await fetch(`${url}/messages?beta=true`, {
      method: "POST",
      headers: { "x-api-key": run.token, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude-sonnet-4-5",
        max_tokens: 32_000,
        stream: true,
        thinking: { type: "enabled", budget_tokens: 1024 },
        system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: [{ type: "text", text: "What does notes.txt say?", cache_control: { type: "ephemeral" } }] }],
        tools: [{ name: "read_file", description: "Read", input_schema: TOOLS[0].inputSchema, cache_control: { type: "ephemeral" } }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = (await res.text()).split("\n\n").flatMap((block) => {
      const m = /^event: (\S+)\ndata: (.*)$/s.exec(block);
      return m ? [{ event: m[1], data: JSON.parse(m[2]) as Record<string, any> }] : [];
    });
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("message_start");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(events.every((e) => e.data.type === e.event)).toBe(true);
    const toolUse = events.find((e) => e.event === "content_block_start" && e.data.content_block.type === "tool_use");
    expect(toolUse?.data.content_block).toEqual({ type: "tool_use", id: "call_0_0", name: "read_file", input: {} });
    const json = events.find((e) => e.data.delta?.type === "input_json_delta");
    expect(JSON.parse(json!.data.delta.partial_json)).toEqual({ path: "notes.txt", startLine: 1 });
    expect(events.at(-2)!.data).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });
});
