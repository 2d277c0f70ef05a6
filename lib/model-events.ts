// A model call's failure and routing decision in words, for the run timeline:
// "openai/gpt-x answered 429 (retry after 7 s) — cooled down 7 s, failing
// over to local/llama".
import type { RunEventPayloads } from "@/server/kernel";

type ModelError = RunEventPayloads["model.error"];
type Routing = NonNullable<RunEventPayloads["model.turn"]["routing"]>;

/** 7000 → "7 s", 1500 → "1.5 s", 450 → "450 ms", 90000 → "90 s", 600000 → "10 min". */
export function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s >= 120) return `${Math.round(s / 60)} min`;
  return `${s < 10 && !Number.isInteger(s) ? s.toFixed(1) : Math.round(s)} s`;
}

const WHAT: Record<string, string> = {
  rate_limit: "was rate limited",
  server: "had a server error",
  timeout: "did not answer in time",
  network: "could not be reached",
  auth: "refused the API key",
  bad_request: "refused the request",
};

/** What happened to the call and where the turn went next, in one line. */
export function failoverText(
  e: Pick<ModelError, "model" | "errorKind" | "status" | "retryAfterMs" | "cooldownMs" | "failoverTo" | "noFailover">,
): string {
  const what = e.status ? `answered ${e.status}` : e.errorKind ? (WHAT[e.errorKind] ?? `failed (${e.errorKind})`) : "failed";
  const retry = e.retryAfterMs !== undefined ? ` (retry after ${seconds(e.retryAfterMs)})` : "";
  const then: string[] = [];
  if (e.cooldownMs !== undefined) then.push(`cooled down ${seconds(e.cooldownMs)}`);
  if (e.failoverTo) then.push(`failing over to ${e.failoverTo}`);
  else if (e.noFailover) then.push(`no failover: ${e.noFailover}`);
  return `${e.model} ${what}${retry}${then.length ? ` — ${then.join(", ")}` : ""}`;
}

const STRATEGY: Record<string, string> = {
  ordered: "the rule's order",
  cheapest: "cheapest first among those strong enough",
  named: "named by the run or its agent",
};

/** The facts of a routing decision, each a short line. */
export function routingFacts(r: Routing): Array<{ label: string; value: string }> {
  return [
    { label: "Task class", value: r.taskClass },
    { label: "Strategy", value: STRATEGY[r.strategy] ?? r.strategy },
    { label: "Complexity", value: String(r.complexity) },
    { label: "Pool", value: r.pool ?? "none (every model allowed)" },
  ];
}

export function failoverSummary(failovers: number | undefined): string | null {
  if (!failovers) return null;
  return `answered after ${failovers} failed ${failovers === 1 ? "attempt" : "attempts"} on other models`;
}
