// Token counting with a real BPE tokenizer (o200k_base), used where a
// provider reports no usage (the scripted model) and for context budgets.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Message, ToolSpec } from "./types";

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : encode(text).length;
}

/** Tokens of a prompt as a chat model would see it: roles, contents and tool schemas. */
export function countPromptTokens(prompt: Message[], tools: ToolSpec[] = []): number {
  let total = 0;
  for (const m of prompt) {
    total += 4; // per-message framing, as chat formats add
    total += countTokens(typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  }
  for (const t of tools) total += countTokens(`${t.name} ${t.description} ${JSON.stringify(t.inputSchema)}`);
  return total;
}
