// POST /v1/chat/completions, OpenAI's Chat Completions
// (docs/gateway.md#endpoints): the request as Rein's prompt, and the answer as
// a chat.completion or, streamed, chat.completion.chunk events ending in
// `data: [DONE]`. Tool calls pass through as the model wrote them.
import crypto from "node:crypto";
import { z } from "zod";
import type { CallOptions, ToolSpec, Usage } from "@/server/models";
import { GatewayRefusal, errorAnswer } from "./errors";
import { EventStream, sendJson } from "./http";
import { MAX_MESSAGES, MAX_PARTS, MAX_TOOLS, PromptBuilder, parseArguments, textOf } from "./prompt";
import { ClientGone, type TurnAnswer } from "./turn";
import { refusalFor, type Exchange } from "./exchange";

const Name = z.string().min(1).max(256);
const Part = z.object({ type: z.string().max(64), text: z.string().optional() });
const Content = z.union([z.string(), z.array(Part).max(MAX_PARTS)]);
const ToolCall = z.object({
  id: Name,
  type: z.literal("function").optional(),
  function: z.object({ name: Name, arguments: z.string() }),
});
const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: Content }),
  z.object({ role: z.literal("developer"), content: Content }),
  z.object({ role: z.literal("user"), content: Content }),
  z.object({ role: z.literal("assistant"), content: Content.nullish(), tool_calls: z.array(ToolCall).max(MAX_PARTS).nullish() }),
  z.object({ role: z.literal("tool"), tool_call_id: Name, content: Content }),
]);
const Tool = z.object({
  type: z.literal("function"),
  function: z.object({ name: Name, description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }),
});
const ToolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: Name }) }),
]);

/** What Rein reads of a Chat Completions request; other fields are ignored. */
export const ChatRequest = z.object({
  model: z.string().max(256).default("rein"),
  messages: z.array(ChatMessage).min(1).max(MAX_MESSAGES),
  tools: z.array(Tool).max(MAX_TOOLS).nullish(),
  tool_choice: ToolChoice.nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export function chatCallOptions(request: ChatRequest): Omit<CallOptions, "abortSignal"> {
  const prompt = new PromptBuilder();
  for (const m of request.messages) {
    const text = typeof m.content === "string" ? m.content : textOf(m.content ?? []);
    if (m.role === "system" || m.role === "developer") prompt.addSystem(text);
    else if (m.role === "user") prompt.addUser(text);
    else if (m.role === "tool") prompt.addToolResult(m.tool_call_id, text);
    else
      prompt.addAssistant(
        text,
        (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, input: parseArguments(c.function.arguments) })),
      );
  }
  const choice = request.tool_choice;
  // A named tool: only that tool is offered, and a call is required.
  const named = typeof choice === "object" && choice ? choice.function.name : null;
  const tools: ToolSpec[] = (request.tools ?? [])
    .filter((t) => !named || t.function.name === named)
    .map((t) => ({
      name: t.function.name,
      description: t.function.description ?? "",
      inputSchema: t.function.parameters ?? { type: "object", properties: {} },
    }));
  if (named && !tools.length)
    throw new GatewayRefusal("invalid_request", `Invalid request: tool_choice names "${named}", which is not in tools`);
  return {
    prompt: prompt.build(),
    ...(tools.length ? { tools } : {}),
    ...(named ? { toolChoice: "required" as const } : typeof choice === "string" ? { toolChoice: choice } : {}),
    ...((request.max_completion_tokens ?? request.max_tokens)
      ? { maxOutputTokens: (request.max_completion_tokens ?? request.max_tokens)! }
      : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
  };
}

const FINISH: Record<string, string> = { stop: "stop", "tool-calls": "tool_calls", length: "length", "content-filter": "content_filter" };

function usageOf(u: Usage) {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
  };
}

const toolCallsOf = (answer: TurnAnswer) =>
  answer.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } }));

export async function chatCompletions(x: Exchange, body: unknown): Promise<void> {
  const request = ChatRequest.parse(body);
  const options = chatCallOptions(request);
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model;
  if (!request.stream) {
    const answer = await x.caller.turn({ requestedModel: model, options, signal: x.signal });
    const message = {
      role: "assistant",
      content: answer.text || null,
      ...(answer.toolCalls.length ? { tool_calls: toolCallsOf(answer) } : {}),
    };
    sendJson(x.res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: FINISH[answer.finishReason] ?? "stop", logprobs: null }],
      usage: usageOf(answer.usage),
    });
    return;
  }
  const stream = new EventStream(x.res);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    stream.send({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  let began = false;
  const begin = () => began || ((began = true), chunk({ role: "assistant", content: "" }));
  try {
    const answer = await x.caller.turn({
      requestedModel: model,
      options,
      signal: x.signal,
      onText(delta) {
        begin();
        chunk({ content: delta });
      },
    });
    begin();
    toolCallsOf(answer).forEach((call, index) => chunk({ tool_calls: [{ index, ...call }] }));
    chunk({}, FINISH[answer.finishReason] ?? "stop");
    if (request.stream_options?.include_usage)
      stream.send({ id, object: "chat.completion.chunk", created, model, choices: [], usage: usageOf(answer.usage) });
    stream.send("[DONE]");
    stream.end();
  } catch (err) {
    // Before any event the client still gets a status; after, the error is the stream's last event.
    if (!stream.started || err instanceof ClientGone) throw err;
    stream.send(errorAnswer("openai", refusalFor(x, err)).body);
    stream.end();
  }
}
