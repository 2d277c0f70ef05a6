// Attack suite: the model gateway (docs/gateway.md, docs/security.md#model-gateway).
// The agent calling it runs in a sandbox and is not trusted: it may send no
// token or a forged one, keep a token after its run let go of it, send bodies
// too large, malformed or deeply nested, hang up mid-call, call many times at
// once past its cap, or hope a provider's error hands it the provider's key.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MemoryRunStore, type RunEventRecord } from "@/server/kernel";
import {
  DefaultModelRouter,
  createOpenAICompatibleModel,
  startFakeOpenAI,
  type FakeServer,
  type LanguageModel,
  type ModelRouter,
  type StreamPart,
} from "@/server/models";
import { MAX_BODY_BYTES, MAX_IN_FLIGHT, ModelGateway, TOKEN_PREFIX, type GatewayRun } from "@/server/gateway";

const store = new MemoryRunStore();
const scripted = new DefaultModelRouter({ scriptedDelayMs: 0 });
/** The router the next calls go through (a test swaps it for a hanging or failing model). */
let router: ModelRouter = scripted;
const gateway = new ModelGateway({
  router: { resolve: (request) => router.resolve(request) },
  appendEvents: (runId, events) => store.appendEvents(runId, events),
  publishTransient() {},
  log: { info() {}, error() {} },
});
const server = http.createServer((req, res) => void gateway.handle(req, res));
let base = "";
let upstream: FakeServer;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream = await startFakeOpenAI();
});
// A test that failed half-way must not leave its hanging or failing model to the next.
afterEach(() => {
  router = scripted;
});
afterAll(async () => {
  await upstream.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function bindRun(overrides: Partial<GatewayRun> = {}) {
  const runId = `run-${crypto.randomUUID()}`;
  store.addRun({
    id: runId,
    goal: "g",
    agentName: "codex",
    agentVersion: 1,
    status: "running",
    model: "scripted/demo-coder",
    scenario: null,
    maxSteps: 10,
    createdById: "user-test",
    teamId: null,
  });
  let step = 0;
  const bound = gateway.bind({
    runId,
    teamId: null,
    agent: "codex",
    model: "scripted/demo-coder",
    taskClass: "code",
    maxCalls: 10,
    nextStep: () => ++step,
    signal: new AbortController().signal,
    ...overrides,
  });
  const events = async (type?: string): Promise<RunEventRecord[]> =>
    (await store.listEvents(runId, 0, 1000)).filter((e) => !type || e.type === type);
  return { runId, token: bound.token, unbind: bound.unbind, events };
}

const CHAT = { model: "gpt-5", messages: [{ role: "user", content: "Write FizzBuzz" }] };
const MESSAGES = { model: "claude", max_tokens: 100, messages: [{ role: "user", content: "Write FizzBuzz" }] };

function post(path: string, token: string | null, body: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
    signal,
  });
}

/** A model that streams one word, then waits until its call is aborted; it says when it was called and when aborted. */
function hangingModel() {
  let resolveAborted!: (reason: unknown) => void;
  let resolveCalled!: () => void;
  const aborted = new Promise<unknown>((resolve) => (resolveAborted = resolve));
  const called = new Promise<void>((resolve) => (resolveCalled = resolve));
  const model: LanguageModel = {
    specificationVersion: "rein-v1",
    provider: "slow",
    modelId: "m",
    family: "slow",
    doGenerate: () => Promise.reject(new Error("not used")),
    async doStream(options) {
      const signal = options.abortSignal!;
      resolveCalled();
      return {
        stream: new ReadableStream<StreamPart>({
          start(c) {
            c.enqueue({ type: "stream-start" });
            c.enqueue({ type: "text-delta", delta: "Thinking " });
            signal.addEventListener("abort", () => {
              resolveAborted(signal.reason);
              c.error(signal.reason);
            });
          },
        }),
      };
    },
  };
  return { model, called, aborted };
}

describe("tokens", () => {
  it.each<[string, string | null]>([
    ["no token", null],
    ["a forged token with Rein's prefix", `${TOKEN_PREFIX}${crypto.randomBytes(32).toString("base64url")}`],
    ["a provider-looking key", "sk-proj-0123456789"],
    ["a 10,000-character token", `${TOKEN_PREFIX}${"a".repeat(10_000)}`],
  ])("%s is 401 in the vendor's own shape, and nothing is recorded", async (_what, token) => {
    const run = bindRun();
    const openai = await post("/v1/chat/completions", token, JSON.stringify(CHAT));
    expect(openai.status).toBe(401);
    expect(await openai.json()).toEqual({
      error: {
        message: expect.stringContaining("token of a running Rein run"),
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
    const anthropic = await post("/v1/messages", null, JSON.stringify(MESSAGES), token ? { "x-api-key": token } : {});
    expect(anthropic.status).toBe(401);
    expect(await anthropic.json()).toEqual({ type: "error", error: { type: "authentication_error", message: expect.any(String) } });
    expect(await run.events()).toEqual([]);
  });

  it("a token stops working when its run is unbound, also in x-api-key, while another run's goes on", async () => {
    const run = bindRun();
    const other = bindRun();
    expect((await post("/v1/messages", null, JSON.stringify(MESSAGES), { "x-api-key": run.token })).status).toBe(200);
    run.unbind();
    expect((await post("/v1/messages", null, JSON.stringify(MESSAGES), { "x-api-key": run.token })).status).toBe(401);
    expect((await post("/v1/chat/completions", run.token, JSON.stringify(CHAT))).status).toBe(401);
    expect((await post("/v1/chat/completions", other.token, JSON.stringify(CHAT))).status).toBe(200);
    expect((await run.events("model.turn")).length).toBe(1);
    expect((await other.events("model.turn")).length).toBe(1);
  });

  it("serves only /v1's endpoints: other paths are 404 and a wrong method 405", async () => {
    const run = bindRun();
    for (const path of ["/api/v1/runs", "/v1/../api/v1/runs", "/v1/completions", "/v2/messages"]) {
      const res = await post(path, run.token, JSON.stringify(CHAT));
      expect(res.status, path).toBe(404);
    }
    const get = await fetch(`${base}/v1/messages`, { headers: { "x-api-key": run.token } });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });
});

describe("hostile bodies", () => {
  it("a body over the cap is 413, whether it says its length or not, and reaches no model", async () => {
    const run = bindRun();
    const big = JSON.stringify({ ...CHAT, messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES) }] });
    const declared = await post("/v1/chat/completions", run.token, big).catch((e: unknown) => e);
    // The gateway answers before reading the body; the client may see the answer or the closed connection.
    if (declared instanceof Response) {
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({
        error: { code: "request_too_large", message: expect.stringContaining(`${MAX_BODY_BYTES} bytes`) },
      });
    }
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${base}/v1/messages`,
        { method: "POST", headers: { "x-api-key": run.token, "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      const piece = Buffer.alloc(1024 * 1024, "x");
      for (let i = 0; i < 17; i++) req.write(piece);
      req.end();
    });
    expect(chunked).toBe(413);
    expect(await run.events()).toEqual([]);
  });

  it.each([
    ["malformed JSON", "/v1/chat/completions", '{"model": "gpt", messages: }', 400, /not valid JSON/],
    [
      "JSON nested 100 levels deep",
      "/v1/messages",
      `{"model":"c","messages":[{"role":"user","content":"hi"}],"x":${"[".repeat(100)}${"]".repeat(100)}}`,
      400,
      /nested more than 64 levels/,
    ],
    ["a lone surrogate", "/v1/messages", '{"model":"c","messages":[{"role":"user","content":"\\ud800"}]}', 400, /lone surrogate/],
    ["messages that are no list", "/v1/chat/completions", '{"model":"gpt","messages":"hi"}', 400, /messages: /],
    ["no messages", "/v1/messages", '{"model":"c","messages":[]}', 400, /messages: /],
    ["an unknown role", "/v1/chat/completions", '{"messages":[{"role":"root","content":"hi"}]}', 400, /messages\.0/],
    [
      "a tool_use block without an id",
      "/v1/messages",
      '{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"x","input":{}}]}]}',
      400,
      /messages\.0\.content\.0\.id/,
    ],
    [
      "10,001 messages",
      "/v1/chat/completions",
      JSON.stringify({ messages: Array.from({ length: 10_001 }, () => ({ role: "user", content: "hi" })) }),
      400,
      /messages: .*10000/,
    ],
    [
      "513 tools",
      "/v1/chat/completions",
      JSON.stringify({ ...CHAT, tools: Array.from({ length: 513 }, (_, i) => ({ type: "function", function: { name: `t${i}` } })) }),
      400,
      /tools: .*512/,
    ],
    [
      "a previous_response_id (nothing is stored)",
      "/v1/responses",
      '{"model":"gpt","input":"hi","previous_response_id":"resp_1"}',
      400,
      /previous_response_id is not supported/,
    ],
  ])("%s is refused with a clear message in the vendor's shape, and costs no call", async (_what, path, body, status, message) => {
    const run = bindRun({ maxCalls: 1 });
    const res = await post(path, null, body, { "x-api-key": run.token });
    expect(res.status).toBe(status);
    const json = (await res.json()) as { error: { message: string } };
    expect(json.error.message).toMatch(message);
    if (path === "/v1/messages") expect(json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(await run.events()).toEqual([]);
    // The one call the run may make is still there.
    expect((await post("/v1/chat/completions", run.token, JSON.stringify(CHAT))).status).toBe(200);
  });
});

describe("calls", () => {
  it.each([true, false])(
    "a client that hangs up aborts the model call (streamed: %s), and no turn is recorded",
    { timeout: 10_000 },
    async (stream) => {
      const hanging = hangingModel();
      router = { resolve: () => ({ model: hanging.model, label: "slow · m", scripted: false }) };
      const run = bindRun();
      const hangUp = new AbortController();
      const res = post("/v1/chat/completions", run.token, JSON.stringify({ ...CHAT, stream }), {}, hangUp.signal);
      await hanging.called;
      if (stream) {
        const reader = (await res).body!.getReader();
        const { value } = await reader.read();
        expect(new TextDecoder().decode(value)).toContain("Thinking");
      }
      hangUp.abort();
      await res.then((r) => r.body?.cancel()).catch(() => {});
      expect(await hanging.aborted).toBeDefined();
      expect(await run.events("model.turn")).toEqual([]);
    },
  );

  it("a run has at most a few requests in flight: one more is refused before its body is read", async () => {
    let started = 0;
    const stop = new AbortController();
    const model: LanguageModel = {
      specificationVersion: "rein-v1",
      provider: "slow",
      modelId: "m",
      family: "slow",
      doGenerate: () => Promise.reject(new Error("not used")),
      async doStream(options) {
        started++;
        await new Promise((resolve) => options.abortSignal!.addEventListener("abort", resolve));
        throw options.abortSignal!.reason;
      },
    };
    router = { resolve: () => ({ model, label: "slow · m", scripted: false }) };
    const run = bindRun();
    const held = Array.from({ length: MAX_IN_FLIGHT }, () =>
      post("/v1/chat/completions", run.token, JSON.stringify(CHAT), {}, stop.signal).catch(() => null),
    );
    for (let i = 0; i < 500 && started < MAX_IN_FLIGHT; i++) await new Promise((r) => setTimeout(r, 5));
    expect(started).toBe(MAX_IN_FLIGHT);
    const extra = await post("/v1/chat/completions", run.token, JSON.stringify(CHAT));
    expect(extra.status).toBe(429);
    expect(await extra.text()).toMatch(/in flight/);
    expect(started).toBe(MAX_IN_FLIGHT);
    stop.abort();
    await Promise.all(held);
  });

  it("calls made at once cannot pass the cap together", async () => {
    const run = bindRun({ maxCalls: 3 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post("/v1/chat/completions", run.token, JSON.stringify(CHAT))));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    expect((await run.events("model.turn")).length).toBe(3);
  });

  it("an agent hammering a refusal adds one event to the timeline, not one per attempt", async () => {
    const run = bindRun({ maxCalls: 0 });
    for (let i = 0; i < 50; i++) expect((await post("/v1/chat/completions", run.token, JSON.stringify(CHAT))).status).toBe(429);
    expect((await run.events()).length).toBe(1);
  });

  it("no answer carries the provider's key or address, whatever the provider says", async () => {
    const key = "sk-gw-secret-0123456789abcdefghij";
    const model = createOpenAICompatibleModel({ name: "up", baseUrl: upstream.baseUrl, apiKey: key, modelId: "m", family: "gpt" });
    router = { resolve: () => ({ model, label: "up · m", scripted: false, ref: "up/m", baseUrl: upstream.baseUrl }) };
    const address = new URL(upstream.baseUrl).host;
    const run = bindRun();
    const says = `key ${key} at ${upstream.baseUrl}`;
    for (const [status, expected] of [
      [401, 502],
      [400, 400],
      [500, 502],
      [429, 429],
    ] as const) {
      upstream.enqueue({ type: "status", status, message: `Refused: ${says}` });
      for (const path of ["/v1/chat/completions", "/v1/messages"]) {
        if (path === "/v1/messages") upstream.enqueue({ type: "status", status, message: `Refused: ${says}` });
        const res = await post(path, run.token, JSON.stringify(path === "/v1/messages" ? { ...MESSAGES, stream: true } : CHAT));
        const text = await res.text();
        expect(res.status, `${status} on ${path}: ${text}`).toBe(expected);
        expect(text).not.toContain(key);
        expect(text).not.toContain(address);
      }
    }
  });
});
