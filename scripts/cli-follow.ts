// Following a run from the CLI: its events as lines for people, until it ends.
import { runEndText } from "../lib/run-end";
import type { Api } from "./cli-commands";

/**
 * Prints the run's events after `after` until it ends (or waits for a
 * person), then its state; the exit code is 1 unless it succeeded. A run that
 * was just sent back to the queue (a message, a retry) counts from its new state.
 */
export async function followRun(api: Api, runId: string, opts: { after: number; json?: boolean }): Promise<void> {
  let after = opts.after;
  const ended = (status: string) => ["succeeded", "failed", "canceled"].includes(status);
  let status = (await api("GET", `/api/v1/runs/${runId}`)).status;
  while (!ended(status)) {
    const { events, cursor } = await api("GET", `/api/v1/runs/${runId}/events?after=${after}`);
    after = cursor;
    if (!opts.json) events.forEach(printEvent);
    status = (await api("GET", `/api/v1/runs/${runId}`)).status;
    if (events.length === 0) await new Promise((r) => setTimeout(r, 300));
  }
  const { events } = await api("GET", `/api/v1/runs/${runId}/events?after=${after}`);
  if (!opts.json) events.forEach(printEvent);
  const final = await api("GET", `/api/v1/runs/${runId}`);
  if (opts.json) console.log(JSON.stringify(final));
  else {
    const why = runEndText(final);
    console.log(`Run ${runId} ${final.status}${why ? `: ${why}` : ""}`);
  }
  process.exitCode = final.status === "succeeded" ? 0 : 1;
}

export function printEvent(e: { seq: number; type: string; payload: any }) {
  const p = e.payload;
  const line =
    e.type === "model.turn"
      ? `${p.agent}: ${p.text || "(no text)"}${p.toolCalls.length ? ` [${p.toolCalls.map((c: any) => c.tool).join(", ")}]` : ""}`
      : e.type === "tool.call"
        ? `→ ${p.tool} ${JSON.stringify(p.args).slice(0, 120)}`
        : e.type === "tool.result"
          ? `← ${p.tool} ${p.ok ? "ok" : `error ${p.error.code}: ${p.error.message}`}${p.cached ? " (cached)" : ""}`
          : e.type === "run.state"
            ? `state ${p.from ?? "-"} → ${p.to}${p.reason ? ` (${p.reason})` : ""}`
            : e.type === "handoff"
              ? `handoff ${p.from} → ${p.to}: ${p.reason}`
              : e.type === "human.requested"
                ? `waiting for a person (${p.kind}, needs ${p.requiredRole}): ${p.title} [request ${p.requestId}]`
                : e.type === "human.decided"
                  ? `${p.byName} → ${p.state}${p.comment ? `: ${p.comment}` : ""} (via ${p.channel})`
                  : e.type === "user.message"
                    ? `${p.byName} says: ${p.text}${p.interrupt ? " (interrupting the tool call)" : ""}`
                    : e.type === "run.control"
                      ? `${p.action} by ${p.byName}${p.changes?.length ? ` (${p.changes.join(", ")})` : ""}`
                      : `${e.type} ${JSON.stringify(p).slice(0, 120)}`;
  console.log(`${String(e.seq).padStart(4)}  ${line}`);
}
