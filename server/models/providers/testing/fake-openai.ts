// A fake OpenAI API on 127.0.0.1: Chat Completions (POST /v1/chat/completions,
// JSON or SSE `data:` chunks ending in `data: [DONE]`, tool-call arguments
// streamed in pieces, a usage chunk when stream_options.include_usage), the
// Responses API (POST /v1/responses, JSON or SSE `event:`/`data:` pairs) and
// GET /v1/models. Errors use OpenAI's `{ error: { message, type, code } }`.
// With `apiKey` set, a request without `Authorization: Bearer <apiKey>` gets
// a 401 whose message quotes the key it was sent, as OpenAI's does.
import type http from "node:http";
import {
  DEFAULT_USAGE,
  FakeServer,
  pieces,
  sendJson,
  sleep,
  startSse,
  type Exchange,
  type FakeBehaviour,
  type FakeReply,
  type FakeUsage,
} from "./server";

export interface FakeOpenAIOptions {
  apiKey?: string;
  models?: string[];
}

const ERROR_TYPE: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  429: "rate_limit_error",
};

function sendError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  sendJson(
    res,
    status,
    { error: { message, type: ERROR_TYPE[status] ?? "server_error", param: null, code: status === 401 ? "invalid_api_key" : null } },
    headers,
  );
}

/** Answers a behaviour that is not a reply; true when it did. */
function playFailure(b: FakeBehaviour, res: http.ServerResponse): boolean {
  if (b.type === "status") {
    sendError(res, b.status, b.message ?? `Fake error ${b.status}`, b.headers);
    return true;
  }
  if (b.type === "hang") return true;
  return false;
}

function chatUsage(u: FakeUsage) {
  const prompt = u.uncachedInputTokens + (u.cacheReadTokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: u.outputTokens,
    total_tokens: prompt + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function responsesUsage(u: FakeUsage) {
  const input = u.uncachedInputTokens + (u.cacheReadTokens ?? 0);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + u.outputTokens,
  };
}

async function chatCompletions({ res, request, behaviour }: Exchange) {
  const b = behaviour();
  if (playFailure(b, res)) return;
  const reply: FakeReply = "reply" in b ? b.reply : {};
  const model = request.body?.model ?? "fake";
  const calls = reply.toolCalls ?? [];
  const finish = calls.length ? "tool_calls" : reply.stopReason === "length" ? "length" : "stop";
  const usage = chatUsage(reply.usage ?? DEFAULT_USAGE);
  const id = "chatcmpl-fake";
  const created = Math.floor(Date.now() / 1000);
  if (!request.body?.stream) {
    const message = {
      role: "assistant",
      content: reply.text ?? null,
      ...(calls.length
        ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    };
    sendJson(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  startSse(res);
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
    );
  chunk({ role: "assistant", content: "" });
  const size = reply.chunkSize ?? 4;
  for (const [i, piece] of pieces(reply.text ?? "", size).entries()) {
    await sleep(reply.delayMs ?? 0);
    chunk({ content: piece });
    if (b.type === "hang-mid-stream" && i === 0) return;
    if (b.type === "end-mid-stream" && i === 0) return void res.end();
  }
  for (const [index, call] of calls.entries()) {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of pieces(call.arguments, size)) {
      await sleep(reply.delayMs ?? 0);
      chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  chunk({}, finish);
  if (request.body?.stream_options?.include_usage) {
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

async function responses({ res, request, behaviour }: Exchange) {
  const b = behaviour();
  if (playFailure(b, res)) return;
  const reply: FakeReply = "reply" in b ? b.reply : {};
  const model = request.body?.model ?? "fake";
  const calls = reply.toolCalls ?? [];
  const created_at = Math.floor(Date.now() / 1000);
  const usage = responsesUsage(reply.usage ?? DEFAULT_USAGE);
  const incomplete = reply.stopReason === "length" ? { reason: "max_output_tokens" } : null;
  const messageItem = (text: string) => ({
    type: "message",
    id: "msg_fake",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  });
  const callItem = (c: (typeof calls)[number], args: string, status: string) => ({
    type: "function_call",
    id: `fc_${c.id}`,
    call_id: c.id,
    name: c.name,
    arguments: args,
    status,
  });
  const output = [...(reply.text ? [messageItem(reply.text)] : []), ...calls.map((c) => callItem(c, c.arguments, "completed"))];
  const response = {
    id: "resp_fake",
    object: "response",
    created_at,
    model,
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete,
    output,
    usage,
  };
  if (!request.body?.stream) {
    sendJson(res, 200, response);
    return;
  }
  startSse(res);
  let seq = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  event("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } });
  let index = 0;
  const size = reply.chunkSize ?? 4;
  if (reply.text) {
    event("response.output_item.added", { output_index: index, item: { ...messageItem(""), status: "in_progress", content: [] } });
    for (const [i, piece] of pieces(reply.text, size).entries()) {
      await sleep(reply.delayMs ?? 0);
      event("response.output_text.delta", { item_id: "msg_fake", output_index: index, content_index: 0, delta: piece, logprobs: [] });
      if (b.type === "hang-mid-stream" && i === 0) return;
      if (b.type === "end-mid-stream" && i === 0) return void res.end();
      if (b.type === "end-mid-stream" && i === 0) return void res.end();
    }
    event("response.output_text.done", { item_id: "msg_fake", output_index: index, content_index: 0, text: reply.text, logprobs: [] });
    event("response.output_item.done", { output_index: index, item: messageItem(reply.text) });
    index++;
  }
  for (const call of calls) {
    event("response.output_item.added", { output_index: index, item: callItem(call, "", "in_progress") });
    for (const piece of pieces(call.arguments, size)) {
      await sleep(reply.delayMs ?? 0);
      event("response.function_call_arguments.delta", { item_id: `fc_${call.id}`, output_index: index, delta: piece });
    }
    event("response.function_call_arguments.done", { item_id: `fc_${call.id}`, output_index: index, arguments: call.arguments });
    event("response.output_item.done", { output_index: index, item: callItem(call, call.arguments, "completed") });
    index++;
  }
  event(incomplete ? "response.incomplete" : "response.completed", { response });
  res.end();
}

function models(ids: string[]) {
  return ({ res, behaviour }: Exchange) => {
    const b = behaviour();
    if (playFailure(b, res)) return;
    sendJson(res, 200, { object: "list", data: ids.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "fake" })) });
  };
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeServer> {
  const ids = options.models ?? ["gpt-fake-mini", "gpt-fake-large"];
  const authorised = (route: (e: Exchange) => unknown) => async (e: Exchange) => {
    if (options.apiKey && e.req.headers.authorization !== `Bearer ${options.apiKey}`) {
      const sent = (e.req.headers.authorization ?? "").replace(/^Bearer /, "");
      sendError(e.res, 401, `Incorrect API key provided: ${sent}. You can find your API key in your account settings.`);
      return;
    }
    await route(e);
  };
  return new FakeServer((path, method) => {
    if (method === "POST" && path === "/v1/chat/completions") return authorised(chatCompletions);
    if (method === "POST" && path === "/v1/responses") return authorised(responses);
    if (method === "GET" && path === "/v1/models") return authorised(models(ids));
    return null;
  }).start();
}
