// Which secrets a run's tools may use
// (docs/secrets.md#which-secrets-a-run-gets): those its current agent's spec
// lists, and those the run was launched with (names only, kept in its
// run.created event). Values are looked up at the tool boundary.
import type { AgentSpec } from "./specs";
import type { RunStore } from "./store";

/**
 * The names each run was launched with, by run: its run.created event never
 * changes, and reading it before every tool call cost a read and a parse.
 * Per store (ids are only unique within one database); bounded, the oldest go first.
 */
const launchedByStore = new WeakMap<RunStore, Map<string, string[]>>();
const LAUNCHED_MAX = 2000;

async function launchedSecrets(store: RunStore, runId: string): Promise<string[]> {
  let launchedByRun = launchedByStore.get(store);
  if (!launchedByRun) launchedByStore.set(store, (launchedByRun = new Map()));
  const known = launchedByRun.get(runId);
  if (known) return known;
  const [first] = await store.listEvents(runId, 0, 1);
  // Not yet written (a run being created): read again next time.
  if (!first) return [];
  // The first event never changes: a run whose log starts otherwise was launched with none.
  const launched = first.type === "run.created" ? ((first.payload as { secrets?: string[] }).secrets ?? []) : [];
  launchedByRun.set(runId, launched);
  if (launchedByRun.size > LAUNCHED_MAX) launchedByRun.delete(launchedByRun.keys().next().value!);
  return launched;
}

export async function runSecretNames(store: RunStore, runId: string, spec: AgentSpec): Promise<string[]> {
  return [...new Set([...(spec.secrets ?? []), ...(await launchedSecrets(store, runId))])];
}
