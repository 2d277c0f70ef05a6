// A fake Anthropic API on 127.0.0.1: Messages (POST /v1/messages, JSON or SSE
// message_start / content_block_start / content_block_delta (text_delta,
// input_json_delta) / content_block_stop / message_delta (usage) /
// message_stop) and GET /v1/models with has_more / after_id paging. Usage is
// written as Anthropic does: input_tokens excludes cache reads and writes.
// With `apiKey` set, a request without `x-api-key: <apiKey>` gets a 401 whose
// message quotes the key it was sent (to test that Rein never repeats it).
import type http from "node:http";
import { DEFAULT_USAGE, FakeServer, pieces, sendJson, sleep, startSse, type Exchange, type FakeReply, type FakeUsage } from "./server";

export interface FakeAnthropicOptions {
  apiKey?: string;
  models?: string[];
  /** Models per page of GET /v1/models (Anthropic's default is 20). */
  modelsPageSize?: number;
}

const ERROR_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function sendError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  sendJson(res, status, { type: "error", error: { type: ERROR_TYPE[status] ?? "api_error", message } }, headers);
}

function usageOf(u: FakeUsage) {
  return {
    input_tokens: u.uncachedInputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    output_tokens: u.outputTokens,
  };
}

async function messages({ res, request, behaviour }: Exchange) {
  const b = behaviour();
  if (b.type === "status") return sendError(res, b.status, b.message ?? `Fake error ${b.status}`, b.headers);
  if (b.type === "hang") return;
  const reply: FakeReply = b.reply;
  const model = request.body?.model ?? "fake";
  const calls = reply.toolCalls ?? [];
  const stopReason = calls.length ? "tool_use" : reply.stopReason === "length" ? "max_tokens" : "end_turn";
  const usage = usageOf(reply.usage ?? DEFAULT_USAGE);
  const content = [
    ...(reply.text ? [{ type: "text", text: reply.text }] : []),
    ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown })),
  ];
  if (!request.body?.stream) {
    sendJson(res, 200, {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
    return;
  }
  startSse(res);
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", {
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  event("ping", {});
  const size = reply.chunkSize ?? 4;
  let index = 0;
  if (reply.text) {
    event("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const [i, piece] of pieces(reply.text, size).entries()) {
      await sleep(reply.delayMs ?? 0);
      event("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      if (b.type === "hang-mid-stream" && i === 0) return;
      if (b.type === "end-mid-stream" && i === 0) return void res.end();
    }
    event("content_block_stop", { index });
    index++;
  }
  for (const call of calls) {
    event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const piece of pieces(call.arguments, size)) {
      await sleep(reply.delayMs ?? 0);
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    event("content_block_stop", { index });
    index++;
  }
  event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  event("message_stop", {});
  res.end();
}

function models(ids: string[], pageSize: number) {
  return ({ res, req, behaviour }: Exchange) => {
    const b = behaviour();
    if (b.type === "status") return sendError(res, b.status, b.message ?? `Fake error ${b.status}`, b.headers);
    if (b.type === "hang") return;
    const url = new URL(req.url ?? "/", "http://fake");
    const after = url.searchParams.get("after_id");
    const limit = Number(url.searchParams.get("limit") ?? pageSize);
    const start = after ? ids.indexOf(after) + 1 : 0;
    const page = ids.slice(start, start + Math.min(limit, pageSize));
    sendJson(res, 200, {
      data: page.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" })),
      has_more: start + page.length < ids.length,
      first_id: page[0] ?? null,
      last_id: page[page.length - 1] ?? null,
    });
  };
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeServer> {
  const ids = options.models ?? ["claude-fake-haiku", "claude-fake-sonnet"];
  const authorised = (route: (e: Exchange) => unknown) => async (e: Exchange) => {
    const sent = e.req.headers["x-api-key"];
    if (options.apiKey && sent !== options.apiKey) {
      sendError(e.res, 401, `invalid x-api-key: ${String(sent ?? "")}`);
      return;
    }
    await route(e);
  };
  return new FakeServer((path, method) => {
    if (method === "POST" && path === "/v1/messages") return authorised(messages);
    if (method === "GET" && path === "/v1/models") return authorised(models(ids, options.modelsPageSize ?? 20));
    return null;
  }).start();
}
