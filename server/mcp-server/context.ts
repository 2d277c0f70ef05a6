// What every tool of one MCP request works with: Rein's services and the
// person whose API token sent it.
import type { RequestStateCodec } from "@modelcontextprotocol/server";
import type { Services } from "@/server/app";
import type { Actor } from "@/server/identity";
import type { Elicitor } from "./elicitation";
import type { InflightCalls } from "./inflight";
import type { QuestionState } from "./input-required";

export interface ToolContext extends Services {
  actor: Actor;
  /**
   * The sender read again now (a token revoked, a person disabled, demoted or
   * moved to another team meanwhile): what a tool acts on after a long wait.
   */
  recheck?: () => Promise<Actor | null>;
  /** Rein's origin, for links to run pages and the Inbox. */
  baseUrl: string;
  /** Calls a client may cancel from a later request (the transport keeps no session). */
  inflight: InflightCalls;
  /** 2025 revisions, when the client said it can ask its user (elicitation): wait_for_run asks open requests there. */
  elicitor?: Elicitor;
  /** Seals what wait_for_run asked on 2026-07-28, so the answers that come back are to those questions (input-required.ts). */
  questionState: RequestStateCodec<QuestionState>;
  log: { error(message: string, err?: unknown): void };
}
