// Which vendor's words a request gets when its endpoint does not say (an
// unknown path, GET /v1/models): Anthropic's clients send anthropic-version.
import type { IncomingMessage } from "node:http";
import type { Protocol } from "./types";

export function anthropicOrOpenAI(req: IncomingMessage, path: string): Protocol {
  return path.startsWith("/v1/messages") || req.headers["anthropic-version"] !== undefined ? "anthropic" : "openai";
}
