// A finished run becomes a dataset item (Evals: datasets): its goal, its
// agent, a scenario that replays it without a provider key, and an expected
// outcome prefilled from how it ended, for a person to edit.
import type { Db } from "@/server/db";
import { exportScenario, getRun, isTerminal, type RunEventRecord, type RunStore } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { DatasetError } from "./dataset-errors";
import { editableDataset, type DatasetActor } from "./datasets";
import { addItemFields, type ItemView } from "./dataset-items";

/** The final text kept in the expected outcome, at most. */
export const MAX_EXPECTED_TEXT = 10_000;

async function finalText(store: RunStore, runId: string): Promise<string> {
  let text = "";
  for (let after = 0; ; ) {
    const page: RunEventRecord[] = await store.listEvents(runId, after, 1_000);
    if (page.length === 0) break;
    after = page[page.length - 1].seq;
    for (const e of page) {
      const t = e.type === "model.turn" ? (e.payload as { text?: string }).text : undefined;
      if (t?.trim()) text = t;
    }
  }
  return text.length > MAX_EXPECTED_TEXT ? text.slice(0, MAX_EXPECTED_TEXT) : text;
}

export async function addItemFromRun(deps: { db: Db; store: RunStore }, who: DatasetActor, input: { datasetId: string; runId: string }): Promise<ItemView> {
  const dataset = await editableDataset(deps.db, who.actor, input.datasetId);
  const run = await getRun(deps.db, input.runId, who.actor);
  if (!isTerminal(run.status)) throw new DatasetError("BAD_REQUEST", `Run ${run.id} has not finished (it is ${run.status}); add it once it has`);
  const row = await deps.db.run.findUnique({ where: { id: run.id }, select: { scenario: true } });
  let scenario: Scenario | null = row?.scenario ? (JSON.parse(row.scenario) as Scenario) : null;
  // A scripted run without a scenario of its own replays its trajectory, so the item needs no provider key.
  if (!scenario && run.scripted) {
    const played = await exportScenario(deps, run.id, who.actor);
    scenario = played.turns.length ? played : null;
  }
  const fields = { goal: run.goal, agent: run.agentName, scenario, expected: { outcome: run.status, text: await finalText(deps.store, run.id) } };
  return addItemFields(deps.db, who, dataset, undefined, fields, run.id);
}
