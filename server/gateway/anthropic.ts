// POST /v1/messages, Anthropic's Messages API (docs/gateway.md#endpoints):
// the request as Rein's prompt, the answer as a message or, streamed, the
// message_start … message_stop events. Fields Rein does not use
// (cache_control, thinking, metadata and any it does not know) are ignored,
// as Claude Code sends many.
import crypto from "node:crypto";
import { z } from "zod";
import type { CallOptions, ToolSpec, Usage } from "@/server/models";
import { errorAnswer } from "./errors";
import { EventStream, sendJson } from "./http";
import { MAX_MESSAGES, MAX_PARTS, MAX_TOOLS, NOT_PASSED, PromptBuilder, parseArguments, textOf } from "./prompt";
import { ClientGone, type TurnAnswer } from "./turn";
import { refusalFor, type Exchange } from "./exchange";

const Name = z.string().min(1).max(256);
const TextPart = z.object({ type: z.string().max(64), text: z.string().optional() });
const KNOWN_BLOCKS = {
  text: z.object({ type: z.literal("text"), text: z.string() }),
  tool_use: z.object({ type: z.literal("tool_use"), id: Name, name: Name, input: z.unknown() }),
  tool_result: z.object({
    type: z.literal("tool_result"),
    tool_use_id: Name,
    content: z.union([z.string(), z.array(TextPart).max(MAX_PARTS)]).optional(),
    is_error: z.boolean().optional(),
  }),
};
type KnownBlock = { [K in keyof typeof KNOWN_BLOCKS]: z.infer<(typeof KNOWN_BLOCKS)[K]> }[keyof typeof KNOWN_BLOCKS];
/** Any other block (image, document, thinking, a server tool's) is kept as its type only. */
type Block = KnownBlock | { type: "other"; of: string };

const AnyBlock = z
  .object({ type: z.string().max(64) })
  .loose()
  .transform((block, ctx): Block => {
    const schema = KNOWN_BLOCKS[block.type as keyof typeof KNOWN_BLOCKS];
    if (!schema) return { type: "other", of: block.type };
    const parsed = schema.safeParse(block);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });
const Content = z.union([z.string(), z.array(AnyBlock).max(MAX_PARTS)]);
const Tool = z.object({
  name: Name,
  description: z.string().optional(),
  // Server tools (web search and the like) have none; Rein does not run them.
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

/** What Rein reads of a Messages request; other fields are ignored. */
export const MessagesRequest = z.object({
  model: z.string().max(256).default("rein"),
  system: z.union([z.string(), z.array(TextPart).max(MAX_PARTS)]).optional(),
  messages: z
    .array(z.object({ role: z.enum(["user", "assistant"]), content: Content }))
    .min(1)
    .max(MAX_MESSAGES),
  tools: z.array(Tool).max(MAX_TOOLS).optional(),
  tool_choice: z.object({ type: z.enum(["auto", "any", "tool", "none"]), name: Name.optional() }).optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

const resultText = (content: string | Array<{ type: string; text?: string }> | undefined) =>
  typeof content === "string" ? content : textOf(content ?? []);

export function messagesCallOptions(request: MessagesRequest): Omit<CallOptions, "abortSignal"> {
  const prompt = new PromptBuilder();
  // Each system block is a part of the system prompt of its own.
  for (const part of typeof request.system === "string" ? [request.system] : (request.system ?? []))
    prompt.addSystem(typeof part === "string" ? part : textOf([part]));
  for (const m of request.messages) {
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "assistant") {
      const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
      const calls = blocks.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input }] : []));
      prompt.addAssistant(text, calls);
      continue;
    }
    // A user turn: its tool results answer the turn before, then what the person (or the client) wrote.
    for (const b of blocks) if (b.type === "tool_result") prompt.addToolResult(b.tool_use_id, resultText(b.content), b.is_error);
    const said = blocks.flatMap((b) => (b.type === "text" ? [b.text] : b.type === "other" ? [NOT_PASSED] : []));
    prompt.addUser(said.join("\n"));
  }
  const choice = request.tool_choice;
  const named = choice?.type === "tool" ? (choice.name ?? null) : null;
  const tools: ToolSpec[] = (request.tools ?? [])
    .filter((t) => t.input_schema && (!named || t.name === named))
    .map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.input_schema! }));
  const toolChoice = !choice ? undefined : choice.type === "any" || choice.type === "tool" ? "required" : choice.type;
  return {
    prompt: prompt.build(),
    ...(tools.length ? { tools } : {}),
    ...(toolChoice && tools.length ? { toolChoice } : {}),
    ...(request.max_tokens ? { maxOutputTokens: request.max_tokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
}

const STOP: Record<string, string> = { stop: "end_turn", "tool-calls": "tool_use", length: "max_tokens", "content-filter": "refusal" };

/** Anthropic counts input without the cache's reads and writes; Rein's input includes them. */
function usageOf(u: Usage) {
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedInputTokens - u.cacheWriteInputTokens),
    output_tokens: u.outputTokens,
    cache_read_input_tokens: u.cachedInputTokens,
    cache_creation_input_tokens: u.cacheWriteInputTokens,
  };
}

/** Anthropic's tool input is an object; arguments that are not one arrive as an empty object. */
function inputOf(call: TurnAnswer["toolCalls"][number]): unknown {
  const input = parseArguments(call.arguments);
  return input && typeof input === "object" && !Array.isArray(input) ? input : {};
}

export async function messages(x: Exchange, body: unknown): Promise<void> {
  const request = MessagesRequest.parse(body);
  const options = messagesCallOptions(request);
  const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const model = request.model;
  if (!request.stream) {
    const answer = await x.caller.turn({ requestedModel: model, options, signal: x.signal });
    sendJson(x.res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [
        ...(answer.text ? [{ type: "text", text: answer.text }] : []),
        ...answer.toolCalls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: inputOf(c) })),
      ],
      stop_reason: STOP[answer.finishReason] ?? "end_turn",
      stop_sequence: null,
      usage: usageOf(answer.usage),
    });
    return;
  }
  const stream = new EventStream(x.res);
  const send = (type: string, data: Record<string, unknown>) => stream.send({ type, ...data }, type);
  let began = false;
  let index = 0;
  let textOpen = false;
  const begin = () => {
    if (began) return;
    began = true;
    const usage = { input_tokens: 0, output_tokens: 0 };
    send("message_start", {
      message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
  };
  try {
    const answer = await x.caller.turn({
      requestedModel: model,
      options,
      signal: x.signal,
      onText(delta) {
        begin();
        if (!textOpen) send("content_block_start", { index, content_block: { type: "text", text: "" } });
        textOpen = true;
        send("content_block_delta", { index, delta: { type: "text_delta", text: delta } });
      },
    });
    begin();
    if (textOpen) send("content_block_stop", { index: index++ });
    for (const call of answer.toolCalls) {
      send("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: call.arguments } });
      send("content_block_stop", { index: index++ });
    }
    // The whole usage here: the input was not known when message_start went out.
    send("message_delta", {
      delta: { stop_reason: STOP[answer.finishReason] ?? "end_turn", stop_sequence: null },
      usage: usageOf(answer.usage),
    });
    send("message_stop", {});
    stream.end();
  } catch (err) {
    if (!stream.started || err instanceof ClientGone) throw err;
    const { body } = errorAnswer("anthropic", refusalFor(x, err));
    stream.send(body, "error");
    stream.end();
  }
}
