// POST /v1/messages/count_tokens, Anthropic's token count (docs/gateway.md#endpoints):
// answered by Rein's own count of the prompt, with no model call. Claude Code
// asks it for its tools' size; without it, it falls back to a one-token model
// call that would count against the run's cap and cost.
import { countPromptTokens } from "@/server/models";
import { MessagesRequest, messagesCallOptions } from "./anthropic";
import { sendJson } from "./http";
import type { Exchange } from "./exchange";

export async function countMessageTokens(x: Exchange, body: unknown): Promise<void> {
  const { prompt, tools } = messagesCallOptions(MessagesRequest.parse(body));
  sendJson(x.res, 200, { input_tokens: countPromptTokens(prompt, tools) });
}
