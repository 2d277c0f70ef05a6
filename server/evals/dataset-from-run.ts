// A finished run becomes a dataset item (Evals: datasets): its goal, its
// agent, a scenario that replays it without a provider key, and an expected
// outcome prefilled from how it ended, for a person to edit (before adding,
// from the preview, or after).
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { exportScenario, getRun, isTerminal, type RunEventRecord, type RunStore } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { DatasetError, invalidInput } from "./dataset-errors";
import { ItemKey, ItemPatch, checkItemParts, zodProblems, type DatasetProblem, type ItemFields } from "./dataset-input";
import { editableDataset, type DatasetActor } from "./datasets";
import { addItemFields, type ItemView } from "./dataset-items";

/** The final text kept in the expected outcome, at most. */
export const MAX_EXPECTED_TEXT = 10_000;

type RunDeps = { db: Db; store: RunStore };

async function finalText(store: RunStore, runId: string): Promise<string> {
  let text = "";
  for (let after = 0; ;) {
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

/** The item a finished run the actor sees would become. */
export async function itemFieldsFromRun(deps: RunDeps, actor: Actor, runId: string): Promise<ItemFields & { runId: string }> {
  const run = await getRun(deps.db, runId, actor);
  if (!isTerminal(run.status))
    throw new DatasetError("INVALID_INPUT", `Run ${run.id} has not finished (it is ${run.status}); add it once it has`);
  const row = await deps.db.run.findUnique({ where: { id: run.id }, select: { scenario: true } });
  let scenario: Scenario | null = row?.scenario ? (JSON.parse(row.scenario) as Scenario) : null;
  // A scripted run without a scenario of its own replays its trajectory, so the item needs no provider key.
  if (!scenario && run.scripted) {
    const played = await exportScenario(deps, run.id, actor);
    scenario = played.turns.length ? played : null;
  }
  return {
    runId: run.id,
    goal: run.goal,
    agent: run.agentName,
    scenario,
    expected: { outcome: run.status, text: await finalText(deps.store, run.id) },
  };
}

/** What the Add to dataset form shows before adding: the item's fields, the scenario by its number of turns. */
export async function previewItemFromRun(deps: RunDeps, actor: Actor, runId: string) {
  const { scenario, ...fields } = await itemFieldsFromRun(deps, actor, runId);
  return { ...fields, scenarioTurns: scenario ? scenario.turns.length : null };
}

const Choices = ItemPatch.pick({ expected: true });

/** The key and expected outcome a person chose instead of the prefilled ones; every problem at once. */
function checkChoices(input: { key?: unknown; expected?: unknown }): { key?: string; expected?: Record<string, unknown> } {
  const problems: DatasetProblem[] = [];
  const key = input.key === undefined || input.key === null || input.key === "" ? undefined : ItemKey.safeParse(input.key);
  if (key && !key.success) problems.push(...zodProblems(key.error).map((p) => ({ field: "key", message: p.message })));
  const parsed = Choices.safeParse({ expected: input.expected ?? undefined });
  if (!parsed.success) problems.push(...zodProblems(parsed.error));
  else problems.push(...checkItemParts(parsed.data).problems);
  if (problems.length) throw invalidInput("The item", problems);
  return { key: key?.data, expected: parsed.data?.expected };
}

export async function addItemFromRun(
  deps: RunDeps,
  who: DatasetActor,
  input: { datasetId: string; runId: string; key?: unknown; expected?: unknown },
): Promise<ItemView> {
  const dataset = await editableDataset(deps.db, who.actor, input.datasetId);
  const choices = checkChoices(input);
  const { runId, ...fields } = await itemFieldsFromRun(deps, who.actor, input.runId);
  return addItemFields(deps.db, who, dataset, choices.key, { ...fields, expected: choices.expected ?? fields.expected }, runId);
}
