// wait_for_run's questions on MCP 2026-07-28 (docs/mcp-server.md#human-requests):
// the revision has no server-to-client requests, so a call that reaches a
// human request the caller may decide answers `input_required` with one form
// per request, and the client makes the call again with its user's answers.
// Which requests were asked, of whom and for which run, travels in the
// requestState, sealed with a key of Rein's: a client can neither forge it nor
// point answers at other requests.
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { decide, openQuestions, type OpenQuestion } from "./ask";
import type { ToolContext } from "./context";
import { ElicitAnswer } from "./elicitation";
import { McpToolError } from "./errors";

/** What the questions of one round were. */
export interface QuestionState {
  runId: string;
  userId: string;
  requestIds: string[];
}

/** How long a client may take to come back with its user's answers. */
export const QUESTION_STATE_TTL_SEC = 30 * 60;

export function questionStateCodec(key: Uint8Array | string): RequestStateCodec<QuestionState> {
  return createRequestStateCodec<QuestionState>({ key, ttlSeconds: QUESTION_STATE_TTL_SEC });
}

const envelopeOf = (extra: ServerContext) => extra.mcpReq.envelope as Record<string, unknown> | undefined;

/** Whether the call came on 2026-07-28 (its `_meta` names the revision) rather than over a 2025 handshake. */
export function isModernCall(extra: ServerContext): boolean {
  return typeof envelopeOf(extra)?.[PROTOCOL_VERSION_META_KEY] === "string";
}

/** Whether the client said, with this call, that it can ask its user (elicitation). */
export function clientCanElicit(extra: ServerContext): boolean {
  const capabilities = envelopeOf(extra)?.[CLIENT_CAPABILITIES_META_KEY];
  return !!capabilities && typeof capabilities === "object" && !!(capabilities as { elicitation?: unknown }).elicitation;
}

/** The call's answer that asks the client's user these questions. */
export async function askInBand(ctx: ToolContext, runId: string, questions: OpenQuestion[]): Promise<InputRequiredResult> {
  const requestState = await ctx.questionState.mint({ runId, userId: ctx.actor.userId, requestIds: questions.map((q) => q.request.id) });
  return inputRequired({
    inputRequests: Object.fromEntries(
      questions.map((q) => [
        q.request.id,
        inputRequired.elicit({ message: q.form.message, requestedSchema: q.form.requestedSchema as never }),
      ]),
    ),
    requestState,
  });
}

/**
 * The answers a call made again carries, decided as the person is now; how
 * many went through. State Rein did not give to this caller for this run is
 * refused; an answer to a request decided meanwhile is left out.
 */
export async function takeAnswers(ctx: ToolContext, runId: string, extra: ServerContext): Promise<number> {
  const responses = extra.mcpReq.inputResponses;
  const raw = extra.mcpReq.requestState<unknown>();
  if (!responses && raw === undefined) return 0;
  if (typeof raw !== "string" || raw.length > 16_384) {
    throw new McpToolError("INVALID_INPUT", "The answers came without the requestState Rein sent with its questions");
  }
  let state: QuestionState;
  try {
    state = await ctx.questionState.verify(raw, extra);
  } catch {
    throw new McpToolError(
      "INVALID_INPUT",
      `The requestState is not one Rein gave, or it is more than ${QUESTION_STATE_TTL_SEC / 60} minutes old: call wait_for_run again without it`,
    );
  }
  if (state.userId !== ctx.actor.userId || state.runId !== runId) {
    throw new McpToolError("INVALID_INPUT", "The requestState was given for another run or to another person");
  }
  let answered = 0;
  for (const question of await openQuestions(ctx, runId)) {
    if (!state.requestIds.includes(question.request.id)) continue;
    const answer = ElicitAnswer.safeParse(responses?.[question.request.id]);
    if (!answer.success || answer.data.action !== "accept" || !answer.data.content) continue;
    const outcome = await decide(ctx, question, answer.data.content);
    if (outcome === "gone") break;
    if (outcome === "decided") answered++;
  }
  return answered;
}
