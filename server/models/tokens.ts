// Token counting with a real BPE tokenizer (o200k_base), used where a
// provider reports no usage (the scripted model) and for context budgets.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Message, ToolSpec } from "./types";

/**
 * Counts already made, by text: every turn counts the same system prompt,
 * tool schemas and history again (the scripted model's usage, the session
 * budget), and BPE is the costliest part of a scripted step. Bounded by the
 * characters held; the oldest counts go first.
 */
const counted = new Map<string, number>();
const MEMO_MAX_CHARS = 2_000_000;
const MEMO_MIN_CHARS = 64;
let memoChars = 0;

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  if (text.length < MEMO_MIN_CHARS || text.length > MEMO_MAX_CHARS / 8) return encode(text).length;
  const known = counted.get(text);
  if (known !== undefined) return known;
  const n = encode(text).length;
  counted.set(text, n);
  memoChars += text.length;
  for (const [oldest] of counted) {
    if (memoChars <= MEMO_MAX_CHARS) break;
    counted.delete(oldest);
    memoChars -= oldest.length;
  }
  return n;
}

/**
 * Counts by message and tool spec object: a conversation's messages and the
 * registry's specs are the same objects turn after turn (neither is changed
 * once made), so each is serialised and counted once, not on every turn.
 */
const countedMessages = new WeakMap<Message, number>();
const countedTools = new WeakMap<ToolSpec, number>();

function messageTokens(m: Message): number {
  if (typeof m.content === "string") return countTokens(m.content);
  let n = countedMessages.get(m);
  if (n === undefined) countedMessages.set(m, (n = countTokens(JSON.stringify(m.content))));
  return n;
}

function toolSpecTokens(t: ToolSpec): number {
  let n = countedTools.get(t);
  if (n === undefined) countedTools.set(t, (n = countTokens(`${t.name} ${t.description} ${JSON.stringify(t.inputSchema)}`)));
  return n;
}

/** Tokens of a prompt as a chat model would see it: roles, contents and tool schemas. */
export function countPromptTokens(prompt: Message[], tools: ToolSpec[] = []): number {
  let total = 0;
  for (const m of prompt) total += 4 + messageTokens(m); // 4: per-message framing, as chat formats add
  for (const t of tools) total += toolSpecTokens(t);
  return total;
}
