// Which secrets a run's tools may use (SPEC section 5): those its current
// agent's spec lists, and those the run was launched with (names only, kept
// in its run.created event). Values are looked up at the tool boundary.
import type { AgentSpec } from "./specs";
import type { RunStore } from "./store";

export async function runSecretNames(store: RunStore, runId: string, spec: AgentSpec): Promise<string[]> {
  const [created] = await store.listEvents(runId, 0, 1);
  const launched = created?.type === "run.created" ? ((created.payload as { secrets?: string[] }).secrets ?? []) : [];
  return [...new Set([...(spec.secrets ?? []), ...launched])];
}
