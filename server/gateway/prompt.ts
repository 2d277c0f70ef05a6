// A vendor's conversation as Rein's prompt (server/models Message): system
// text first, tool results named by the tool call they answer, and what the
// gateway does not pass on said in the prompt instead of dropped silently
// (docs/gateway.md#not-supported-yet).
import type { Message, TextPart, ToolCallPart, ToolResultPart } from "@/server/models";

/** Put where an image, a document or audio was: the model reads that something was left out. */
export const NOT_PASSED = "[an image or file was here; Rein's model gateway passes text only]";

/** Most of a request (docs/gateway.md#limits). */
export const MAX_MESSAGES = 10_000;
export const MAX_TOOLS = 512;
export const MAX_PARTS = 1_000;

/** Tool-call arguments arrive as JSON text; unparsable text is kept as it is, so the tool can say why. */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class PromptBuilder {
  private readonly system: string[] = [];
  private readonly messages: Message[] = [];
  private readonly toolNames = new Map<string, string>();

  addSystem(text: string) {
    if (text) this.system.push(text);
  }

  addUser(text: string) {
    if (text) this.messages.push({ role: "user", content: text });
  }

  addAssistant(text: string, calls: Array<{ id: string; name: string; input: unknown }>) {
    const content: Array<TextPart | ToolCallPart> = text ? [{ type: "text", text }] : [];
    for (const c of calls) {
      this.toolNames.set(c.id, c.name);
      content.push({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input });
    }
    if (content.length) this.messages.push({ role: "assistant", content });
  }

  /** Results in a row make one tool message, as providers expect them. */
  addToolResult(toolCallId: string, output: string, isError = false) {
    const part: ToolResultPart = {
      type: "tool-result",
      toolCallId,
      toolName: this.toolNames.get(toolCallId) ?? "unknown",
      output,
      ...(isError ? { isError } : {}),
    };
    const last = this.messages.at(-1);
    if (last?.role === "tool") last.content.push(part);
    else this.messages.push({ role: "tool", content: [part] });
  }

  /** Every system text joined at the start: providers take one system prompt, before the conversation. */
  build(): Message[] {
    return [...(this.system.length ? [{ role: "system" as const, content: this.system.join("\n\n") }] : []), ...this.messages];
  }
}

/** Text parts joined; anything else becomes NOT_PASSED. */
export function textOf(parts: Array<{ type: string; text?: string }>): string {
  return parts
    .map((p) => (p.type === "text" || p.type === "input_text" || p.type === "output_text" ? (p.text ?? "") : NOT_PASSED))
    .filter(Boolean)
    .join("\n");
}
