// POST /v1/responses, OpenAI's Responses API, the one Codex speaks
// (docs/gateway.md#endpoints). Nothing is stored: the client sends the whole
// conversation each time (`store: false`), so previous_response_id and item
// references are refused in words. Function tools only.
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
const KNOWN_ITEMS = {
  message: z.object({ role: z.enum(["system", "developer", "user", "assistant"]), content: Content }),
  function_call: z.object({ call_id: Name, name: Name, arguments: z.string() }),
  function_call_output: z.object({ call_id: Name, output: Content }),
};
type Item =
  | ({ type: "message" } & z.infer<typeof KNOWN_ITEMS.message>)
  | ({ type: "function_call" } & z.infer<typeof KNOWN_ITEMS.function_call>)
  | ({ type: "function_call_output" } & z.infer<typeof KNOWN_ITEMS.function_call_output>)
  | { type: "other"; of: string };

/** An input item; one without a type is a message. Reasoning and other items Rein does not use are kept as their type only. */
const AnyItem = z
  .object({ type: z.string().max(64).optional() })
  .loose()
  .transform((item, ctx): Item => {
    const type = item.type ?? "message";
    const schema = KNOWN_ITEMS[type as keyof typeof KNOWN_ITEMS];
    if (!schema) return { type: "other", of: type };
    const parsed = schema.safeParse(item);
    if (parsed.success) return { type, ...parsed.data } as Item;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });
const Tool = z
  .object({
    type: z.string().max(64),
    name: Name.optional(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();

/** What Rein reads of a Responses request; other fields are ignored. */
export const ResponsesRequest = z.object({
  model: z.string().max(256).default("rein"),
  instructions: z.string().nullish(),
  input: z.union([z.string(), z.array(AnyItem).min(1).max(MAX_MESSAGES)]),
  tools: z.array(Tool).max(MAX_TOOLS).nullish(),
  tool_choice: z.union([z.enum(["auto", "none", "required"]), z.object({ type: z.literal("function"), name: Name })]).nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

const NOT_STORED = "The model gateway stores no responses: send the whole conversation with store: false";

export function responsesCallOptions(request: ResponsesRequest): Omit<CallOptions, "abortSignal"> {
  if (request.previous_response_id) throw new GatewayRefusal("invalid_request", `previous_response_id is not supported. ${NOT_STORED}`);
  const prompt = new PromptBuilder();
  if (request.instructions) prompt.addSystem(request.instructions);
  const items: Item[] = typeof request.input === "string" ? [{ type: "message", role: "user", content: request.input }] : request.input;
  // Function calls in a row are one assistant turn, with the text said just before them.
  let pending: { text: string; calls: Array<{ id: string; name: string; input: unknown }> } | null = null;
  const flush = () => {
    if (pending) prompt.addAssistant(pending.text, pending.calls);
    pending = null;
  };
  for (const item of items) {
    if (item.type === "other") {
      if (item.of === "item_reference") throw new GatewayRefusal("invalid_request", `An item_reference cannot be resolved. ${NOT_STORED}`);
      continue;
    }
    if (item.type === "function_call") {
      pending ??= { text: "", calls: [] };
      pending.calls.push({ id: item.call_id, name: item.name, input: parseArguments(item.arguments) });
      continue;
    }
    if (item.type === "message" && item.role === "assistant") {
      flush();
      pending = { text: contentText(item.content), calls: [] };
      continue;
    }
    flush();
    if (item.type === "function_call_output") prompt.addToolResult(item.call_id, contentText(item.output));
    else if (item.role === "user") prompt.addUser(contentText(item.content));
    else prompt.addSystem(contentText(item.content));
  }
  flush();
  const choice = request.tool_choice;
  const named = typeof choice === "object" && choice ? choice.name : null;
  const tools: ToolSpec[] = (request.tools ?? [])
    .filter((t) => t.type === "function" && t.name && (!named || t.name === named))
    .map((t) => ({ name: t.name!, description: t.description ?? "", inputSchema: t.parameters ?? { type: "object", properties: {} } }));
  if (named && !tools.length)
    throw new GatewayRefusal("invalid_request", `Invalid request: tool_choice names "${named}", which is not in tools`);
  return {
    prompt: prompt.build(),
    ...(tools.length ? { tools } : {}),
    ...(named ? { toolChoice: "required" as const } : typeof choice === "string" ? { toolChoice: choice } : {}),
    ...(request.max_output_tokens ? { maxOutputTokens: request.max_output_tokens } : {}),
    ...(request.temperature != null ? { temperature: request.temperature } : {}),
  };
}

const contentText = (content: z.infer<typeof Content>) => (typeof content === "string" ? content : textOf(content));

function usageOf(u: Usage) {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

const messageItem = (id: string, text: string, status = "completed") => ({
  type: "message",
  id,
  status,
  role: "assistant",
  content: status === "completed" ? [{ type: "output_text", text, annotations: [] }] : [],
});

const callItem = (call: TurnAnswer["toolCalls"][number], status = "completed") => ({
  type: "function_call",
  id: `fc_${call.id}`,
  call_id: call.id,
  name: call.name,
  arguments: status === "completed" ? call.arguments : "",
  status,
});

export async function responses(x: Exchange, body: unknown): Promise<void> {
  const request = ResponsesRequest.parse(body);
  const options = responsesCallOptions(request);
  const id = `resp_${crypto.randomUUID().replaceAll("-", "")}`;
  const messageId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const model = request.model;
  const response = (answer: TurnAnswer | null) => {
    const incomplete = answer?.finishReason === "length";
    return {
      id,
      object: "response",
      created_at: createdAt,
      model,
      status: !answer ? "in_progress" : incomplete ? "incomplete" : "completed",
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      error: null,
      output: answer ? [...(answer.text ? [messageItem(messageId, answer.text)] : []), ...answer.toolCalls.map((c) => callItem(c))] : [],
      usage: answer ? usageOf(answer.usage) : null,
    };
  };
  if (!request.stream) {
    const answer = await x.caller.turn({ requestedModel: model, options, signal: x.signal });
    sendJson(x.res, 200, response(answer));
    return;
  }
  const stream = new EventStream(x.res);
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) => stream.send({ type, sequence_number: seq++, ...data }, type);
  let began = false;
  let index = 0;
  let text: string | null = null;
  const begin = () => began || ((began = true), send("response.created", { response: response(null) }));
  try {
    const answer = await x.caller.turn({
      requestedModel: model,
      options,
      signal: x.signal,
      onText(delta) {
        begin();
        if (text === null) send("response.output_item.added", { output_index: index, item: messageItem(messageId, "", "in_progress") });
        text = (text ?? "") + delta;
        send("response.output_text.delta", { item_id: messageId, output_index: index, content_index: 0, delta, logprobs: [] });
      },
    });
    begin();
    if (text !== null) {
      send("response.output_text.done", { item_id: messageId, output_index: index, content_index: 0, text, logprobs: [] });
      send("response.output_item.done", { output_index: index++, item: messageItem(messageId, text) });
    }
    for (const call of answer.toolCalls) {
      send("response.output_item.added", { output_index: index, item: callItem(call, "in_progress") });
      send("response.function_call_arguments.delta", { item_id: `fc_${call.id}`, output_index: index, delta: call.arguments });
      send("response.function_call_arguments.done", { item_id: `fc_${call.id}`, output_index: index, arguments: call.arguments });
      send("response.output_item.done", { output_index: index++, item: callItem(call) });
    }
    const done = response(answer);
    send(done.status === "incomplete" ? "response.incomplete" : "response.completed", { response: done });
    stream.end();
  } catch (err) {
    if (!stream.started || err instanceof ClientGone) throw err;
    const { error } = errorAnswer("openai", refusalFor(x, err)).body as { error: { message: string; code: string | null } };
    send("response.failed", {
      response: { ...response(null), status: "failed", error: { code: error.code ?? "server_error", message: error.message } },
    });
    stream.end();
  }
}
