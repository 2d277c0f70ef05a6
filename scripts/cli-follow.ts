// Following a run from the CLI: its events as lines for people, until it ends.
import type { RunEventPayloads, RunEventType } from "@/server/kernel";
import { runEndText } from "../lib/run-end";
import type { RestClient } from "../lib/rest-client";
import { ok } from "./cli-error";

/**
 * Prints the run's events after `after` until it ends (or waits for a
 * person), then its state; the exit code is 1 unless it succeeded. A run that
 * was just sent back to the queue (a message, a retry) counts from its new state.
 */
export async function followRun(api: RestClient, runId: string, opts: { after: number; json?: boolean }): Promise<void> {
  const path = { id: runId };
  const getRun = () => ok(api.GET("/api/v1/runs/{id}", { params: { path } }));
  const getEvents = (after: number) => ok(api.GET("/api/v1/runs/{id}/events", { params: { path, query: { after } } }));
  let after = opts.after;
  const ended = (status: string) => ["succeeded", "failed", "canceled"].includes(status);
  let status = (await getRun()).status;
  while (!ended(status)) {
    const { events, cursor } = await getEvents(after);
    after = cursor;
    if (!opts.json) events.forEach(printEvent);
    status = (await getRun()).status;
    if (events.length === 0) await new Promise((r) => setTimeout(r, 300));
  }
  const { events } = await getEvents(after);
  if (!opts.json) events.forEach(printEvent);
  const final = await getRun();
  if (opts.json) console.log(JSON.stringify(final));
  else {
    const why = runEndText(final);
    console.log(`Run ${runId} ${final.status}${why ? `: ${why}` : ""}`);
  }
  process.exitCode = final.status === "succeeded" ? 0 : 1;
}

/** An event as REST sends it: its payload is the kernel's for its type (server/kernel/events.ts). */
interface WireEvent {
  seq: number;
  type: string;
  payload: unknown;
}

function is<T extends RunEventType>(e: WireEvent, type: T): e is WireEvent & { type: T; payload: RunEventPayloads[T] } {
  return e.type === type;
}

export function printEvent(e: WireEvent) {
  const line = is(e, "model.turn")
    ? `${e.payload.agent}: ${e.payload.text || "(no text)"}${e.payload.toolCalls.length ? ` [${e.payload.toolCalls.map((c) => c.tool).join(", ")}]` : ""}`
    : is(e, "tool.call")
      ? `→ ${e.payload.tool} ${JSON.stringify(e.payload.args).slice(0, 120)}`
      : is(e, "tool.result")
        ? `← ${e.payload.tool} ${e.payload.ok ? "ok" : `error ${e.payload.error?.code}: ${e.payload.error?.message}`}${e.payload.cached ? " (cached)" : ""}`
        : is(e, "run.state")
          ? `state ${e.payload.from ?? "-"} → ${e.payload.to}${e.payload.reason ? ` (${e.payload.reason})` : ""}`
          : is(e, "handoff")
            ? `handoff ${e.payload.from} → ${e.payload.to}: ${e.payload.reason}`
            : is(e, "human.requested")
              ? `waiting for a person (${e.payload.kind}, needs ${e.payload.requiredRole}): ${e.payload.title} [request ${e.payload.requestId}]`
              : is(e, "human.decided")
                ? `${e.payload.byName} → ${e.payload.state}${e.payload.comment ? `: ${e.payload.comment}` : ""} (via ${e.payload.channel})`
                : is(e, "user.message")
                  ? `${e.payload.byName} says: ${e.payload.text}${e.payload.interrupt ? " (interrupting the tool call)" : ""}`
                  : is(e, "run.control")
                    ? `${e.payload.action} by ${e.payload.byName}${e.payload.changes?.length ? ` (${e.payload.changes.join(", ")})` : ""}`
                    : `${e.type} ${JSON.stringify(e.payload).slice(0, 120)}`;
  console.log(`${String(e.seq).padStart(4)}  ${line}`);
}
