// Contract tests every model backend passes (docs/models.md#providers): each AI SDK
// backend against a local server speaking its provider's wire format, and the
// scripted model where a case applies to it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderError } from "../errors";
import type { LanguageModel, Message, StreamPart, ToolSpec } from "../types";
import {
  createAnthropicModel,
  createOpenAICompatibleModel,
  createOpenAIModel,
  createProviderModel,
  listProviderModels,
  ScriptedModel,
  type ListModelsResult,
  type ProviderKind,
} from "./index";
import { startFakeAnthropic, startFakeOpenAI, type FakeReply, type FakeServer, type RecordedRequest } from "./testing";

const KEY = "sk-test-CONTRACT-0123456789abcdef";
const WRONG_KEY = "sk-test-WRONG-9876543210fedcba";

interface ToolExchange {
  id: string;
  name: string;
  args: Record<string, unknown>;
  output: unknown;
  isError: boolean;
}

interface Backend {
  name: string;
  /** False for the scripted model: no server, no HTTP cases. */
  http: boolean;
  /** Queues the reply (or scripts it) and returns a model that will play it. */
  play(reply: FakeReply, options?: { timeoutMs?: number; apiKey?: string }): LanguageModel;
  server?: FakeServer;
  endpoint?: string;
  listKind?: ProviderKind;
  /** Usage expected for REPORTED_USAGE, as the GenAI conventions count it. */
  expectedUsage?: { inputTokens: number; cachedInputTokens: number; cacheWriteInputTokens: number; outputTokens: number };
  expectKey?(request: RecordedRequest): void;
  expectSystem?(body: RecordedRequest["body"], text: string): void;
  expectTools?(body: RecordedRequest["body"], tool: ToolSpec): void;
  expectToolExchange?(body: RecordedRequest["body"], x: ToolExchange): void;
}

const REPORTED_USAGE = { uncachedInputTokens: 100, cacheReadTokens: 900, cacheWriteTokens: 50, outputTokens: 20 };
// OpenAI reports no cache writes; its prompt_tokens already include cached_tokens.
const OPENAI_USAGE = { inputTokens: 1000, cachedInputTokens: 900, cacheWriteInputTokens: 0, outputTokens: 20 };
// Anthropic's input_tokens exclude the cache: reads and writes are added to it.
const ANTHROPIC_USAGE = { inputTokens: 1050, cachedInputTokens: 900, cacheWriteInputTokens: 50, outputTokens: 20 };

const servers: FakeServer[] = [];

function chatWire(): Pick<Backend, "expectKey" | "expectSystem" | "expectTools" | "expectToolExchange"> {
  return {
    expectKey: (r) => expect(r.headers.authorization).toBe(`Bearer ${KEY}`),
    expectSystem: (body, text) => {
      expect(body.messages[0]).toEqual({ role: "system", content: text });
      expect(body.messages.filter((m: { role: string }) => m.role === "system")).toHaveLength(1);
    },
    expectTools: (body, tool) =>
      expect(body.tools).toEqual([
        {
          type: "function",
          function: expect.objectContaining({ name: tool.name, description: tool.description, parameters: tool.inputSchema }),
        },
      ]),
    expectToolExchange: (body, x) => {
      const assistant = body.messages.find((m: { role: string }) => m.role === "assistant");
      expect(assistant.tool_calls).toEqual([{ id: x.id, type: "function", function: { name: x.name, arguments: JSON.stringify(x.args) } }]);
      const result = body.messages.find((m: { role: string }) => m.role === "tool");
      expect(result).toMatchObject({ role: "tool", tool_call_id: x.id });
      expect(JSON.parse(result.content)).toEqual(x.output);
    },
  };
}

const backends: Backend[] = [];

beforeAll(async () => {
  const responses = await startFakeOpenAI({ apiKey: KEY });
  const chat = await startFakeOpenAI({ apiKey: KEY });
  const compatible = await startFakeOpenAI({ apiKey: KEY });
  const anthropic = await startFakeAnthropic({ apiKey: KEY });
  servers.push(responses, chat, compatible, anthropic);
  const http =
    (server: FakeServer, make: (o: { timeoutMs?: number; apiKey: string }) => LanguageModel) =>
    (reply: FakeReply, o: { timeoutMs?: number; apiKey?: string } = {}) => {
      server.enqueue({ type: "reply", reply });
      return make({ timeoutMs: o.timeoutMs, apiKey: o.apiKey ?? KEY });
    };
  backends.push(
    {
      name: "openai (Responses API, the SDK's default)",
      http: true,
      server: responses,
      endpoint: "/v1/responses",
      listKind: "openai",
      expectedUsage: OPENAI_USAGE,
      play: http(responses, (o) =>
        createOpenAIModel({ name: "openai", baseUrl: responses.baseUrl, modelId: "gpt-fake-mini", family: "gpt", ...o }),
      ),
      expectKey: (r) => expect(r.headers.authorization).toBe(`Bearer ${KEY}`),
      expectSystem: (body, text) => {
        expect(body.input[0]).toEqual({ role: "system", content: text });
        expect(body.instructions).toBeUndefined();
        // Nothing is kept on OpenAI's side: every turn sends the whole conversation.
        expect(body.store).toBe(false);
      },
      expectTools: (body, tool) =>
        expect(body.tools).toEqual([
          expect.objectContaining({ type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema }),
        ]),
      expectToolExchange: (body, x) => {
        expect(body.input).toContainEqual(
          expect.objectContaining({ type: "function_call", call_id: x.id, name: x.name, arguments: JSON.stringify(x.args) }),
        );
        const out = body.input.find((i: { type?: string }) => i.type === "function_call_output");
        expect(out).toMatchObject({ type: "function_call_output", call_id: x.id });
        expect(JSON.parse(out.output)).toEqual(x.output);
      },
    },
    {
      name: "openai (Chat Completions)",
      http: true,
      server: chat,
      endpoint: "/v1/chat/completions",
      expectedUsage: OPENAI_USAGE,
      play: http(chat, (o) =>
        createOpenAIModel({ name: "openai-chat", baseUrl: chat.baseUrl, modelId: "gpt-fake-mini", family: "gpt", api: "chat", ...o }),
      ),
      ...chatWire(),
    },
    {
      name: "openai-compatible",
      http: true,
      server: compatible,
      endpoint: "/v1/chat/completions",
      listKind: "openai-compatible",
      expectedUsage: OPENAI_USAGE,
      play: http(compatible, (o) =>
        createOpenAICompatibleModel({ name: "local-vllm", baseUrl: compatible.baseUrl, modelId: "qwen-fake", family: "qwen", ...o }),
      ),
      ...chatWire(),
    },
    {
      name: "anthropic",
      http: true,
      server: anthropic,
      endpoint: "/v1/messages",
      listKind: "anthropic",
      expectedUsage: ANTHROPIC_USAGE,
      play: http(anthropic, (o) =>
        createAnthropicModel({ name: "anthropic", baseUrl: anthropic.baseUrl, modelId: "claude-fake-haiku", family: "claude", ...o }),
      ),
      expectKey: (r) => {
        expect(r.headers["x-api-key"]).toBe(KEY);
        expect(r.headers["anthropic-version"]).toBe("2023-06-01");
        expect(r.headers.authorization).toBeUndefined();
      },
      expectSystem: (body, text) => {
        expect(body.system).toEqual([{ type: "text", text }]);
        expect(body.messages.map((m: { role: string }) => m.role)).not.toContain("system");
      },
      expectTools: (body, tool) =>
        expect(body.tools).toEqual([
          expect.objectContaining({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
        ]),
      expectToolExchange: (body, x) => {
        const assistant = body.messages.find((m: { role: string }) => m.role === "assistant");
        expect(assistant.content).toContainEqual(expect.objectContaining({ type: "tool_use", id: x.id, name: x.name, input: x.args }));
        const user = body.messages.filter((m: { role: string }) => m.role === "user").at(-1);
        const result = user.content.find((c: { type: string }) => c.type === "tool_result");
        expect(result).toMatchObject({ type: "tool_result", tool_use_id: x.id });
        expect(result.is_error ?? false).toBe(x.isError);
        const text = typeof result.content === "string" ? result.content : result.content.map((c: { text: string }) => c.text).join("");
        expect(JSON.parse(text)).toEqual(x.output);
      },
    },
    {
      name: "scripted",
      http: false,
      play: (reply) =>
        new ScriptedModel({
          name: "contract",
          scenario: {
            turns: [{ text: reply.text, toolCalls: reply.toolCalls?.map((c) => ({ tool: c.name, args: JSON.parse(c.arguments) })) }],
          },
        }),
    },
  );
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

beforeEach(() => {
  for (const s of servers) s.reset();
});

const SYSTEM = "You are a careful tester.";
const PROMPT: Message[] = [
  { role: "system", content: SYSTEM },
  { role: "user", content: "Say hello." },
];
const TOOL: ToolSpec = {
  name: "read_file",
  description: "Read a file from the workspace",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string" }, startLine: { type: "integer" } },
    required: ["path"],
    additionalProperties: false,
  },
};
const TEXT = "Hello! Here is a longer reply, streamed in small pieces so that the order matters.";

async function collect(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

/** What is known about each backend before beforeAll starts its server. */
type Descriptor = Pick<Backend, "name" | "http" | "listKind">;
const DESCRIPTORS: Descriptor[] = [
  { name: "openai (Responses API, the SDK's default)", http: true, listKind: "openai" },
  { name: "openai (Chat Completions)", http: true },
  { name: "openai-compatible", http: true, listKind: "openai-compatible" },
  { name: "anthropic", http: true, listKind: "anthropic" },
  { name: "scripted", http: false },
];

/** One test per backend the case applies to. */
function eachBackend(title: string, fn: (b: Backend) => Promise<void>, only: (b: Descriptor) => boolean = () => true) {
  for (const d of DESCRIPTORS.filter(only)) {
    it(`${d.name}: ${title}`, async () => {
      const b = backends.find((x) => x.name === d.name);
      if (!b) throw new Error(`No backend named ${d.name}`);
      await fn(b);
    });
  }
}
const httpOnly = (b: Descriptor) => b.http;

describe("text", () => {
  eachBackend("generates plain text", async (b) => {
    const result = await b.play({ text: TEXT }).doGenerate({ prompt: PROMPT });
    expect(result.content).toEqual([{ type: "text", text: TEXT }]);
    expect(result.finishReason).toBe("stop");
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens + result.usage.outputTokens);
    if (b.http) expect(b.server!.lastRequest().path).toBe(b.endpoint);
  });

  eachBackend("streams text deltas in order that concatenate to the text", async (b) => {
    const { stream } = await b.play({ text: TEXT, chunkSize: 3 }).doStream({ prompt: PROMPT });
    const parts = await collect(stream);
    expect(parts[0]).toEqual({ type: "stream-start" });
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    const deltas = parts.filter((p): p is Extract<StreamPart, { type: "text-delta" }> => p.type === "text-delta").map((p) => p.delta);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join("")).toBe(TEXT);
    expect(parts.filter((p) => p.type === "finish")).toHaveLength(1);
    if (b.http) {
      expect(b.server!.lastRequest().path).toBe(b.endpoint);
      expect(b.server!.lastRequest().body.stream).toBe(true);
    }
  });

  eachBackend(
    "reports a length stop",
    async (b) => {
      const result = await b.play({ text: "cut", stopReason: "length" }).doGenerate({ prompt: PROMPT });
      expect(result.finishReason).toBe("length");
    },
    httpOnly,
  );
});

describe("tool calls", () => {
  const calls = [
    { id: "call_aaa111", name: "read_file", arguments: JSON.stringify({ path: "src/a very/long path.ts", startLine: 12 }) },
    { id: "call_bbb222", name: "read_file", arguments: JSON.stringify({ path: "b.txt" }) },
  ];

  eachBackend("generates tool calls with parsed input", async (b) => {
    const result = await b.play({ text: "Reading.", toolCalls: calls }).doGenerate({ prompt: PROMPT, tools: [TOOL] });
    expect(result.finishReason).toBe("tool-calls");
    const toolCalls = result.content.filter((p) => p.type === "tool-call");
    expect(toolCalls.map((c) => ({ name: c.toolName, input: c.input }))).toEqual(
      calls.map((c) => ({ name: c.name, input: JSON.parse(c.arguments) })),
    );
    if (b.http) expect(toolCalls.map((c) => c.toolCallId)).toEqual(calls.map((c) => c.id));
  });

  eachBackend("streams one tool-call part per call with its complete JSON input", async (b) => {
    const { stream } = await b.play({ toolCalls: calls, chunkSize: 3 }).doStream({ prompt: PROMPT, tools: [TOOL] });
    const parts = await collect(stream);
    const toolCalls = parts.filter((p): p is Extract<StreamPart, { type: "tool-call" }> => p.type === "tool-call");
    expect(toolCalls).toHaveLength(2);
    expect(toolCalls.map((c) => JSON.parse(c.input))).toEqual(calls.map((c) => JSON.parse(c.arguments)));
    expect(toolCalls.map((c) => c.toolName)).toEqual(["read_file", "read_file"]);
    if (b.http) expect(toolCalls.map((c) => c.toolCallId)).toEqual(calls.map((c) => c.id));
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
  });

  eachBackend(
    "sends the tools it is given",
    async (b) => {
      await b.play({ text: "ok" }).doGenerate({ prompt: PROMPT, tools: [TOOL] });
      b.expectTools!(b.server!.lastRequest().body, TOOL);
    },
    httpOnly,
  );

  for (const isError of [false, true]) {
    eachBackend(
      `sends a${isError ? " failed" : ""} tool result back in the provider's format`,
      async (b) => {
        const x: ToolExchange = {
          id: "call_xyz789",
          name: "read_file",
          args: { path: "a.txt" },
          output: isError ? { error: { message: "no such file" } } : { content: "line 1\nline 2", lines: 2 },
          isError,
        };
        const prompt: Message[] = [
          ...PROMPT,
          { role: "assistant", content: [{ type: "tool-call", toolCallId: x.id, toolName: x.name, input: x.args }] },
          { role: "tool", content: [{ type: "tool-result", toolCallId: x.id, toolName: x.name, output: x.output, isError }] },
        ];
        await b.play({ text: "Done." }).doGenerate({ prompt, tools: [TOOL] });
        b.expectToolExchange!(b.server!.lastRequest().body, x);
      },
      httpOnly,
    );
  }
});

describe("request shape", () => {
  eachBackend(
    "puts the system prompt where the provider expects it",
    async (b) => {
      await b.play({ text: "ok" }).doGenerate({ prompt: PROMPT });
      b.expectSystem!(b.server!.lastRequest().body, SYSTEM);
    },
    httpOnly,
  );

  eachBackend(
    "sends the API key in the provider's header, and nowhere in the body",
    async (b) => {
      const { stream } = await b.play({ text: "ok" }).doStream({ prompt: PROMPT });
      await collect(stream);
      const request = b.server!.lastRequest();
      b.expectKey!(request);
      expect(JSON.stringify(request.body)).not.toContain(KEY);
    },
    httpOnly,
  );
});

describe("usage", () => {
  eachBackend(
    "normalises usage with cached tokens (generate)",
    async (b) => {
      const result = await b.play({ text: "ok", usage: REPORTED_USAGE }).doGenerate({ prompt: PROMPT });
      const e = b.expectedUsage!;
      expect(result.usage).toEqual({ ...e, totalTokens: e.inputTokens + e.outputTokens });
    },
    httpOnly,
  );

  eachBackend(
    "normalises usage with cached tokens (stream)",
    async (b) => {
      const { stream } = await b.play({ text: "ok", usage: REPORTED_USAGE }).doStream({ prompt: PROMPT });
      const finish = (await collect(stream)).find((p) => p.type === "finish");
      const e = b.expectedUsage!;
      expect(finish).toMatchObject({ usage: { ...e, totalTokens: e.inputTokens + e.outputTokens } });
    },
    httpOnly,
  );

  eachBackend(
    "asks for usage in the stream",
    async (b) => {
      const { stream } = await b.play({ text: "ok" }).doStream({ prompt: PROMPT });
      await collect(stream);
      const body = b.server!.lastRequest().body;
      if (b.endpoint === "/v1/chat/completions") expect(body.stream_options).toEqual({ include_usage: true });
    },
    httpOnly,
  );
});

describe("errors", () => {
  const status = (b: Backend, s: number, headers?: Record<string, string>) =>
    b.server!.enqueue({ type: "status", status: s, headers, message: `fake ${s}` });
  const model = (b: Backend, o?: { timeoutMs?: number; apiKey?: string }) => {
    const m = b.play({ text: "unused" }, o);
    b.server!.reset(); // drop the queued reply: each test queues its own behaviour
    return m;
  };

  eachBackend(
    "429 with Retry-After in seconds is rate_limit with retryAfterMs, for generate and stream",
    async (b) => {
      const m = model(b);
      status(b, 429, { "retry-after": "7" });
      let e = await failure(m.doGenerate({ prompt: PROMPT }));
      expect(e).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 7000, retryable: true });
      status(b, 429, { "retry-after": "2" });
      e = await failure(m.doStream({ prompt: PROMPT }));
      expect(e).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 2000 });
      expect(e.message).toContain("fake 429");
    },
    httpOnly,
  );

  eachBackend(
    "429 with Retry-After as an HTTP date, and retry-after-ms",
    async (b) => {
      const m = model(b);
      status(b, 429, { "retry-after": new Date(Date.now() + 60_000).toUTCString() });
      const byDate = await failure(m.doGenerate({ prompt: PROMPT }));
      expect(byDate.retryAfterMs).toBeGreaterThan(55_000);
      expect(byDate.retryAfterMs).toBeLessThanOrEqual(60_000);
      status(b, 429, { "retry-after-ms": "1500", "retry-after": "2" });
      expect((await failure(m.doGenerate({ prompt: PROMPT }))).retryAfterMs).toBe(1500);
    },
    httpOnly,
  );

  eachBackend(
    "500 and 503 are server errors",
    async (b) => {
      const m = model(b);
      status(b, 500);
      expect(await failure(m.doGenerate({ prompt: PROMPT }))).toMatchObject({ kind: "server", status: 500, retryable: true });
      status(b, 503, { "retry-after": "1" });
      expect(await failure(m.doStream({ prompt: PROMPT }))).toMatchObject({ kind: "server", status: 503, retryAfterMs: 1000 });
    },
    httpOnly,
  );

  eachBackend(
    "400 is bad_request and not retryable",
    async (b) => {
      const m = model(b);
      status(b, 400);
      expect(await failure(m.doGenerate({ prompt: PROMPT }))).toMatchObject({ kind: "bad_request", status: 400, retryable: false });
    },
    httpOnly,
  );

  eachBackend(
    "a wrong API key is auth, and the key never appears in the error",
    async (b) => {
      const m = model(b, { apiKey: WRONG_KEY });
      for (const call of [() => m.doGenerate({ prompt: PROMPT }), () => m.doStream({ prompt: PROMPT })]) {
        const e = await failure(call());
        expect(e).toMatchObject({ kind: "auth", status: 401, retryable: false });
        // The fake quotes the key it was sent, as OpenAI does.
        expect(b.server!.requests.length).toBeGreaterThan(0);
        expect(e.message).not.toContain(WRONG_KEY);
        expect(JSON.stringify(e)).not.toContain(WRONG_KEY);
        expect(String(e.stack)).not.toContain(WRONG_KEY);
      }
      const right = model(b);
      status(b, 403);
      expect(await failure(right.doGenerate({ prompt: PROMPT }))).toMatchObject({ kind: "auth", status: 403 });
    },
    httpOnly,
  );

  eachBackend(
    "a connection that never answers times out within timeoutMs (generate and stream)",
    async (b) => {
      const m = model(b, { timeoutMs: 300 });
      for (const call of [() => m.doGenerate({ prompt: PROMPT }), () => m.doStream({ prompt: PROMPT })]) {
        b.server!.enqueue({ type: "hang" });
        const started = performance.now();
        const e = await failure(call());
        const elapsed = performance.now() - started;
        expect(e).toMatchObject({ kind: "timeout", retryable: true });
        expect(e.message).toContain("300 ms");
        // Fired by the configured 300 ms, not the 120 s default and not early.
        expect(elapsed).toBeGreaterThanOrEqual(290);
        expect(elapsed).toBeLessThan(10_000);
      }
    },
    httpOnly,
  );

  eachBackend(
    "a stream that goes silent mid-way ends with a timeout error part after the text so far",
    async (b) => {
      const m = model(b, { timeoutMs: 300 });
      b.server!.enqueue({ type: "hang-mid-stream", reply: { text: TEXT } });
      const { stream } = await m.doStream({ prompt: PROMPT });
      const parts = await collect(stream);
      expect(
        parts
          .filter((p) => p.type === "text-delta")
          .map((p) => (p as { delta: string }).delta)
          .join(""),
      ).toBe(TEXT.slice(0, 4));
      const last = parts.at(-1)!;
      expect(last.type).toBe("error");
      expect((last as { error: unknown }).error).toBeInstanceOf(ProviderError);
      expect((last as { error: ProviderError }).error.kind).toBe("timeout");
      expect(parts.some((p) => p.type === "finish")).toBe(false);
    },
    httpOnly,
  );

  eachBackend(
    "a stream that ends before the provider finished it ends with a server error part after the text so far",
    async (b) => {
      const m = model(b);
      b.server!.enqueue({ type: "end-mid-stream", reply: { text: TEXT } });
      const { stream } = await m.doStream({ prompt: PROMPT });
      const parts = await collect(stream);
      expect(
        parts
          .filter((p) => p.type === "text-delta")
          .map((p) => (p as { delta: string }).delta)
          .join(""),
      ).toBe(TEXT.slice(0, 4));
      const last = parts.at(-1)!;
      expect(last.type).toBe("error");
      expect((last as { error: unknown }).error).toBeInstanceOf(ProviderError);
      expect((last as { error: ProviderError }).error).toMatchObject({ kind: "server", retryable: true });
      expect(parts.some((p) => p.type === "finish")).toBe(false);
    },
    httpOnly,
  );

  eachBackend(
    "a slow stream that keeps sending is not cut off by the timeout",
    async (b) => {
      const m = model(b, { timeoutMs: 400 });
      // 10 deltas 50 ms apart: longer than the timeout in all, never silent for it.
      b.server!.enqueue({ type: "reply", reply: { text: "0123456789".repeat(4), chunkSize: 4, delayMs: 50 } });
      const { stream } = await m.doStream({ prompt: PROMPT });
      const parts = await collect(stream);
      expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
      expect(parts.filter((p) => p.type === "text-delta")).toHaveLength(10);
    },
    httpOnly,
  );

  eachBackend(
    "a refused connection is a network error",
    async (b) => {
      const closed = await startFakeOpenAI();
      const baseUrl = closed.baseUrl;
      await closed.close();
      const configs: Record<string, () => LanguageModel> = {
        "/v1/responses": () => createOpenAIModel({ name: "openai", baseUrl, apiKey: KEY, modelId: "m", family: "gpt" }),
        "/v1/chat/completions": () => createOpenAICompatibleModel({ name: "c", baseUrl, apiKey: KEY, modelId: "m", family: "x" }),
        "/v1/messages": () => createAnthropicModel({ name: "anthropic", baseUrl, apiKey: KEY, modelId: "m", family: "claude" }),
      };
      const e = await failure(configs[b.endpoint!]().doGenerate({ prompt: PROMPT }));
      expect(e).toMatchObject({ kind: "network", retryable: true });
      expect(e.message).not.toContain(KEY);
    },
    httpOnly,
  );

  eachBackend(
    "the caller's abort stays an abort, not a provider error",
    async (b) => {
      const m = model(b, { timeoutMs: 5_000 });
      b.server!.enqueue({ type: "hang" });
      const controller = new AbortController();
      const reason = new Error("run cancelled");
      setTimeout(() => controller.abort(reason), 50);
      const error = await m.doGenerate({ prompt: PROMPT, abortSignal: controller.signal }).catch((e: unknown) => e);
      expect(error).toBe(reason);
    },
    httpOnly,
  );
});

describe("listModels", () => {
  const list = (b: Backend, apiKey = KEY, timeoutMs?: number): Promise<ListModelsResult> =>
    listProviderModels(b.listKind!, { name: b.name, baseUrl: b.server!.baseUrl, apiKey, timeoutMs });

  eachBackend(
    "lists the provider's model ids",
    async (b) => {
      const result = await list(b);
      expect(result.ok).toBe(true);
      expect(result.ok && result.models.length).toBe(2);
      const request = b.server!.lastRequest();
      expect(request.method).toBe("GET");
      expect(request.path.startsWith("/v1/models")).toBe(true);
      b.expectKey!(request);
    },
    (b) => !!b.listKind,
  );

  eachBackend(
    "a wrong key is an auth error without the key",
    async (b) => {
      const result = await list(b, WRONG_KEY);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error).toMatchObject({ kind: "auth", status: 401 });
      expect(result.error.message).not.toContain(WRONG_KEY);
    },
    (b) => !!b.listKind,
  );

  eachBackend(
    "429 is rate_limit with Retry-After, and a hung server times out",
    async (b) => {
      b.server!.enqueue({ type: "status", status: 429, headers: { "retry-after": "3" } });
      const limited = await list(b);
      expect(!limited.ok && limited.error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 3000 });
      b.server!.enqueue({ type: "hang" });
      const hung = await list(b, KEY, 300);
      expect(!hung.ok && hung.error).toMatchObject({ kind: "timeout" });
    },
    (b) => !!b.listKind,
  );
});

describe("listModels paging (Anthropic)", () => {
  it("follows has_more / after_id until every model is listed", async () => {
    const server = await startFakeAnthropic({ apiKey: KEY, models: ["m1", "m2", "m3", "m4", "m5"], modelsPageSize: 2 });
    try {
      const result = await listProviderModels("anthropic", { baseUrl: server.baseUrl, apiKey: KEY });
      expect(result).toEqual({ ok: true, models: ["m1", "m2", "m3", "m4", "m5"] });
      expect(server.requests.map((r) => r.path)).toEqual(["/v1/models", "/v1/models?after_id=m2", "/v1/models?after_id=m4"]);
    } finally {
      await server.close();
    }
  });
});

describe("createProviderModel", () => {
  it("builds each kind with Rein's identity: provider name, model id, family", () => {
    const base = { name: "p", baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY, modelId: "m-1", family: "fam" };
    for (const kind of ["openai", "anthropic", "openai-compatible"] as const) {
      const m = createProviderModel(kind, base);
      expect({ spec: m.specificationVersion, provider: m.provider, modelId: m.modelId, family: m.family }).toEqual({
        spec: "rein-v1",
        provider: "p",
        modelId: "m-1",
        family: "fam",
      });
    }
  });

  it("refuses a missing API key (OpenAI, Anthropic) or base URL (OpenAI-compatible) clearly", () => {
    const base = { name: "p", modelId: "m", family: "f" };
    expect(() => createProviderModel("openai", base)).toThrow('The openai provider "p" needs an API key');
    expect(() => createProviderModel("anthropic", base)).toThrow('The anthropic provider "p" needs an API key');
    expect(() => createProviderModel("openai-compatible", base)).toThrow('The OpenAI-compatible provider "p" needs a base URL');
    expect(createProviderModel("openai-compatible", { ...base, baseUrl: "http://127.0.0.1:9/v1" }).provider).toBe("p");
  });
});
