// Each vendor's request as Rein's prompt (docs/gateway.md#endpoints): the
// same conversation in the three wire formats gives the same prompt, and what
// Claude Code and Codex send besides (cache_control, thinking, images, server
// tools, reasoning items) neither fails nor slips through unsaid.
import { describe, expect, it } from "vitest";
import type { Message } from "@/server/models";
import { ChatRequest, chatCallOptions } from "./openai-chat";
import { MessagesRequest, messagesCallOptions } from "./anthropic";
import { ResponsesRequest, responsesCallOptions } from "./responses";
import { NOT_PASSED } from "./prompt";

const PROMPT: Message[] = [
  { role: "system", content: "You are careful.\n\nAnswer briefly." },
  { role: "user", content: "Read notes.txt" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Reading." },
      { type: "tool-call", toolCallId: "c1", toolName: "read_file", input: { path: "notes.txt" } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "read_file", output: "hello" }] },
  { role: "user", content: "Thanks" },
];
const SCHEMA = { type: "object", properties: { path: { type: "string" } } };

describe("one conversation in three formats", () => {
  it("Chat Completions", () => {
    const options = chatCallOptions(
      ChatRequest.parse({
        model: "gpt-5",
        messages: [
          { role: "system", content: "You are careful." },
          { role: "developer", content: [{ type: "text", text: "Answer briefly." }] },
          { role: "user", content: "Read notes.txt" },
          {
            role: "assistant",
            content: "Reading.",
            tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"notes.txt"}' } }],
          },
          { role: "tool", tool_call_id: "c1", content: "hello" },
          { role: "user", content: "Thanks" },
        ],
        tools: [{ type: "function", function: { name: "read_file", description: "Read", parameters: SCHEMA } }],
        tool_choice: "auto",
        max_completion_tokens: 100,
        temperature: 0.2,
        stream: true,
      }),
    );
    expect(options).toEqual({
      prompt: PROMPT,
      tools: [{ name: "read_file", description: "Read", inputSchema: SCHEMA }],
      toolChoice: "auto",
      maxOutputTokens: 100,
      temperature: 0.2,
    });
  });

  it("Anthropic Messages, with what Claude Code sends besides", () => {
    const options = messagesCallOptions(
      MessagesRequest.parse({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        system: [
          { type: "text", text: "You are careful.", cache_control: { type: "ephemeral" } },
          { type: "text", text: "Answer briefly." },
        ],
        thinking: { type: "enabled", budget_tokens: 1024 },
        metadata: { user_id: "u" },
        messages: [
          { role: "user", content: [{ type: "text", text: "Read notes.txt", cache_control: { type: "ephemeral" } }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hm", signature: "sig" },
              { type: "text", text: "Reading." },
              { type: "tool_use", id: "c1", name: "read_file", input: { path: "notes.txt" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "c1", content: [{ type: "text", text: "hello" }] },
              { type: "text", text: "Thanks" },
            ],
          },
        ],
        tools: [
          { name: "read_file", description: "Read", input_schema: SCHEMA, cache_control: { type: "ephemeral" } },
          { type: "web_search_20250305", name: "web_search", max_uses: 5 },
        ],
        tool_choice: { type: "auto" },
        stream: true,
      }),
    );
    expect(options).toEqual({
      prompt: PROMPT,
      tools: [{ name: "read_file", description: "Read", inputSchema: SCHEMA }],
      toolChoice: "auto",
      maxOutputTokens: 100,
    });
  });

  it("OpenAI Responses, with Codex's reasoning items", () => {
    const options = responsesCallOptions(
      ResponsesRequest.parse({
        model: "gpt-5-codex",
        instructions: "You are careful.",
        input: [
          { type: "message", role: "developer", content: [{ type: "input_text", text: "Answer briefly." }] },
          { role: "user", content: [{ type: "input_text", text: "Read notes.txt" }] },
          { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "x" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading." }] },
          { type: "function_call", call_id: "c1", name: "read_file", arguments: '{"path":"notes.txt"}' },
          { type: "function_call_output", call_id: "c1", output: "hello" },
          { role: "user", content: "Thanks" },
        ],
        tools: [{ type: "function", name: "read_file", description: "Read", parameters: SCHEMA, strict: false }, { type: "local_shell" }],
        max_output_tokens: 100,
        store: false,
        include: ["reasoning.encrypted_content"],
      }),
    );
    expect(options).toEqual({
      prompt: PROMPT,
      tools: [{ name: "read_file", description: "Read", inputSchema: SCHEMA }],
      maxOutputTokens: 100,
    });
  });
});

describe("what the gateway does not pass on", () => {
  it("an image is a note in the prompt, not dropped silently", () => {
    const options = messagesCallOptions(
      MessagesRequest.parse({
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
              { type: "text", text: "What is this?" },
            ],
          },
        ],
      }),
    );
    expect(options.prompt).toEqual([{ role: "user", content: `${NOT_PASSED}\nWhat is this?` }]);
  });

  it("a named tool offers only that tool and requires a call", () => {
    const tools = ["a", "b"].map((name) => ({ type: "function", function: { name, parameters: SCHEMA } }));
    const options = chatCallOptions(
      ChatRequest.parse({ messages: [{ role: "user", content: "x" }], tools, tool_choice: { type: "function", function: { name: "b" } } }),
    );
    expect(options.tools?.map((t) => t.name)).toEqual(["b"]);
    expect(options.toolChoice).toBe("required");
    expect(() =>
      chatCallOptions(
        ChatRequest.parse({
          messages: [{ role: "user", content: "x" }],
          tools,
          tool_choice: { type: "function", function: { name: "c" } },
        }),
      ),
    ).toThrow(/"c", which is not in tools/);
  });

  it("arguments that are not JSON reach the tool as the text they are", () => {
    const options = chatCallOptions(
      ChatRequest.parse({
        messages: [{ role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{oops" } }] }],
      }),
    );
    expect(options.prompt).toEqual([
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "t", input: "{oops" }] },
    ]);
  });
});
