// AG-UI over REST v1 (docs/ag-ui.md): watch a run as AG-UI events, and start,
// steer or answer one with a RunAgentInput. Declared like every REST route,
// so they get its token check, roles, input checks and OpenAPI entry; the
// answer is a stream of server-sent events.
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { EventEncoder } from "@ag-ui/encoder";
import { DomainError } from "@/server/errors";
import { deciderOf, getForActor, type DecisionInput, type Hitl } from "@/server/hitl";
import { authenticateToken, bearerFrom, loadActor, type Actor } from "@/server/identity";
import type { Db } from "@/server/db";
import { RunNotFoundError, createRun, getRun, sendMessage, type Kernel } from "@/server/kernel";
import { defineRoute, fileResponse, type Route } from "../rest/contract";
import { StreamBody } from "../rest/http";
import { resolveRef } from "../rest/refs";
import { MAX_AG_UI_BODY, RunAgentInputBody, lastUserText } from "./input";
import { agUiStream } from "./stream";

const SSE = fileResponse(new EventEncoder().getContentType(), "AG-UI 1.0 events, as server-sent events (docs/ag-ui.md#event-mapping)");

const Cursor = z.coerce.number().int("must be an integer").min(0, "must be 0 or more").max(Number.MAX_SAFE_INTEGER);

type StreamOptions = Parameters<typeof agUiStream>[1];

function sse(kernel: Kernel, o: StreamOptions) {
  return new StreamBody(agUiStream(kernel, o), { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" });
}

/** Whether the sender may still see the run: its token still valid (or the person still there) and the run still theirs to see. */
function stillAllowed(db: Db, req: IncomingMessage, actor: Actor, runId: string) {
  return async () => {
    const token = bearerFrom(req.headers.authorization);
    const fresh = token ? await authenticateToken(db, token) : await loadActor(db, actor.userId);
    if (!fresh) return false;
    return getRun(db, runId, fresh).then(
      () => true,
      () => false,
    );
  };
}

/** The run a thread names, or null when there is none the person may see (another team's run answers as an unknown id does). */
async function threadRun(kernel: Kernel, actor: Actor, threadId: string) {
  try {
    return await getRun(kernel.db, threadId, actor);
  } catch (err) {
    if (err instanceof RunNotFoundError) return null;
    throw err;
  }
}

/** Answers the run's interrupts: every answer is checked before any is taken, so a bad one leaves them all open. */
async function answerInterrupts(hitl: Hitl, actor: Actor, runId: string, resume: NonNullable<RunAgentInputBody["resume"]>) {
  const answers: Array<{ requestId: string; decision: DecisionInput }> = [];
  for (const [i, entry] of resume.entries()) {
    const request = await getForActor(hitl.broker, actor, entry.interruptId);
    if (request.runId !== runId) throw new DomainError("NOT_FOUND", `Run ${runId} has no interrupt ${entry.interruptId}`);
    const decision: DecisionInput | undefined =
      entry.status === "cancelled" ? { decision: "reject", comment: "Cancelled from an AG-UI client" } : entry.payload;
    if (!decision)
      throw new DomainError(
        "INVALID_INPUT",
        `resume[${i}].payload is required for a resolved interrupt: { "decision": "approve" } or another`,
      );
    await hitl.broker.checkDecision(entry.interruptId, deciderOf(actor), decision);
    answers.push({ requestId: entry.interruptId, decision });
  }
  for (const a of answers) await hitl.broker.decide(a.requestId, deciderOf(actor), a.decision, "api");
}

export const AG_UI_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/runs/{id}/ag-ui",
    minRole: "viewer",
    summary: "Watch a run as AG-UI events",
    description:
      "The run's log from the start (or after the seq a Last-Event-ID header names), then its events as they happen, as AG-UI 1.0 server-sent events. A wait for a person ends an AG-UI run with an interrupt; the stream goes on when the run does, and ends when the run ends.",
    response: SSE,
    async handle({ params, req, actor, kernel, linkBase }) {
      const run = await getRun(kernel.db, params.id, actor);
      const header = req.headers["last-event-id"];
      const fromHeader = typeof header === "string" ? Cursor.safeParse(header) : null;
      if (fromHeader && !fromHeader.success) throw new DomainError("INVALID_INPUT", "Last-Event-ID must be an event's seq: a whole number");
      const after = fromHeader?.data ?? 0;
      return sse(kernel, {
        runId: run.id,
        linkBase,
        firstRunId: `${run.id}:from-${after}`,
        after,
        once: false,
        stillAllowed: stillAllowed(kernel.db, req, actor, run.id),
      });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/ag-ui",
    minRole: "operator",
    summary: "Start, steer or resume a run with an AG-UI RunAgentInput",
    description:
      "threadId names a run to continue: its interrupts answered through `resume`, or a person's message (the last message, when it is the user's) sent to it. Any other threadId with forwardedProps.agent starts a run of that agent, the last user message as its goal; the run's id comes back as RUN_STARTED's threadId. The answer streams the run until its AG-UI run finishes: the run ends, or waits for a person (an interrupt).",
    body: RunAgentInputBody,
    bodyLimit: MAX_AG_UI_BODY,
    response: SSE,
    errors: {
      403: "Answering an interrupt needs the role its human request names",
      404: "No run or interrupt of that id you can see, and no agent named to start one",
      409: "The interrupt was already answered",
    },
    async handle({ body, req, actor, kernel, hitl, db, linkBase }) {
      const stream = (runId: string, after: number) =>
        sse(kernel, {
          runId,
          linkBase,
          firstRunId: body.runId,
          after,
          once: true,
          stillAllowed: stillAllowed(db, req, actor, runId),
        });
      const run = await threadRun(kernel, actor, body.threadId);
      if (!run) {
        if (body.resume?.length || !body.forwardedProps?.agent)
          throw new DomainError(
            "NOT_FOUND",
            `There is no run ${body.threadId} you can see; to start one, name its agent in forwardedProps.agent`,
          );
        const goal = lastUserText(body);
        if (!goal) throw new DomainError("INVALID_INPUT", "The last message must be the user's: its text is the new run's goal");
        const asked = body.forwardedProps.teamId;
        const teamId = asked ? await resolveRef(db, actor, "team", asked) : undefined;
        const started = await createRun(kernel, { goal, agent: body.forwardedProps.agent, ...(teamId ? { teamId } : {}) }, actor);
        return stream(started.id, 0);
      }
      if (body.resume?.length) {
        await answerInterrupts(hitl, actor, run.id, body.resume);
        return stream(run.id, run.lastSeq);
      }
      const text = lastUserText(body);
      if (text) {
        await sendMessage(kernel, run.id, actor, { text });
        return stream(run.id, run.lastSeq);
      }
      // Nothing new: a client with no history gets the run from its start, one with history what comes next.
      return stream(run.id, body.messages.length ? run.lastSeq : 0);
    },
  }),
];
