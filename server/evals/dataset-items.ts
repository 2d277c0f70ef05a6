// A dataset's items (Evals: datasets). Items are versioned: an edit adds a
// row with the same key and the next version, removing marks the latest
// version deleted, and nothing is ever overwritten, so an experiment keeps
// pointing at the exact item it ran.
import type { Db, Prisma } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { Scenario } from "@/server/models";
import { DatasetError, invalidInput } from "./dataset-errors";
import { ItemInput, ItemKey, ItemPatch, checkItemParts, zodProblems, type DatasetProblem, type ItemFields } from "./dataset-input";
import { audit, editableDataset, visibleDataset, type DatasetActor } from "./datasets";

export interface ItemView extends ItemFields {
  key: string;
  version: number;
  sourceRunId: string | null;
  createdAt: Date;
  /** The version is a removal mark (history only). */
  deleted: boolean;
}

const ITEM_SELECT = {
  key: true,
  version: true,
  goal: true,
  agent: true,
  scenario: true,
  expected: true,
  sourceRunId: true,
  createdAt: true,
  deletedAt: true,
} as const;
type ItemRow = Prisma.DatasetItemGetPayload<{ select: typeof ITEM_SELECT }>;
type Tx = Pick<Db, "datasetItem" | "auditEntry">;

const json = <T>(text: string | null, fallback: T): T => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export function itemView(r: ItemRow): ItemView {
  return {
    key: r.key,
    version: r.version,
    goal: r.goal,
    agent: r.agent,
    scenario: json<Scenario | null>(r.scenario, null),
    expected: json<Record<string, unknown>>(r.expected, {}),
    sourceRunId: r.sourceRunId,
    createdAt: r.createdAt,
    deleted: r.deletedAt !== null,
  };
}

/** Each key's latest version (removed keys included, marked deleted), by key. */
async function latestRows(db: Pick<Db, "datasetItem">, datasetId: string): Promise<Map<string, ItemRow>> {
  const rows = await db.datasetItem.findMany({ where: { datasetId }, select: ITEM_SELECT, orderBy: [{ key: "asc" }, { version: "desc" }] });
  const latest = new Map<string, ItemRow>();
  for (const r of rows) if (!latest.has(r.key)) latest.set(r.key, r);
  return latest;
}

/** The items now in the dataset: each key's latest version, removed ones left out. */
export async function listItems(db: Db, actor: Actor, datasetId: string): Promise<ItemView[]> {
  await visibleDataset(db, actor, datasetId);
  return liveItems(db, datasetId);
}

export async function liveItems(db: Pick<Db, "datasetItem">, datasetId: string): Promise<ItemView[]> {
  return [...(await latestRows(db, datasetId)).values()].filter((r) => r.deletedAt === null).map(itemView);
}

/** Every version of one item, newest first (removal marks too). */
export async function itemHistory(db: Db, actor: Actor, datasetId: string, key: string): Promise<ItemView[]> {
  await visibleDataset(db, actor, datasetId);
  const rows = await db.datasetItem.findMany({ where: { datasetId, key }, select: ITEM_SELECT, orderBy: { version: "desc" } });
  if (rows.length === 0) throw new DatasetError("NOT_FOUND", `The dataset has no item ${key}`);
  return rows.map(itemView);
}

/** An item's fields checked in full; problems by field, in words. */
export function checkItem(raw: unknown): { key?: string; fields: ItemFields; problems: [] } | { problems: DatasetProblem[] } {
  const parsed = ItemInput.safeParse(raw);
  if (!parsed.success) return { problems: zodProblems(parsed.error) };
  const parts = checkItemParts(parsed.data);
  if (parts.problems.length) return { problems: parts.problems };
  const i = parsed.data;
  return {
    key: i.key,
    fields: { goal: i.goal, agent: i.agent ?? null, scenario: parts.scenario ?? null, expected: i.expected ?? {} },
    problems: [],
  };
}

export const sameFields = (a: ItemFields, b: ItemFields) =>
  a.goal === b.goal &&
  a.agent === b.agent &&
  JSON.stringify(a.scenario) === JSON.stringify(b.scenario) &&
  JSON.stringify(a.expected) === JSON.stringify(b.expected);

export function fieldsOf(view: ItemView): ItemFields {
  return { goal: view.goal, agent: view.agent, scenario: view.scenario, expected: view.expected };
}

/** The next free "item-N" key. */
export function nextKey(taken: Set<string>): string {
  for (let n = taken.size + 1; ; n++) if (!taken.has(`item-${n}`)) return `item-${n}`;
}

export function itemData(
  datasetId: string,
  key: string,
  version: number,
  fields: ItemFields,
  createdById: string | null,
  sourceRunId: string | null = null,
) {
  return {
    datasetId,
    key,
    version,
    goal: fields.goal,
    agent: fields.agent,
    scenario: fields.scenario ? JSON.stringify(fields.scenario) : null,
    expected: JSON.stringify(fields.expected),
    sourceRunId,
    createdById,
  };
}

function raced(err: unknown): never {
  if ((err as { code?: string } | null)?.code === "P2002")
    throw new DatasetError("CONFLICT", "Someone changed this item a moment ago; reload it and make your change again");
  throw err;
}

/**
 * Adds an item; without a key it gets the next free "item-N". A key whose
 * item was removed comes back as its next version.
 */
export async function addItemFields(
  db: Db,
  who: DatasetActor,
  dataset: { id: string; name: string },
  key: string | undefined,
  fields: ItemFields,
  sourceRunId: string | null = null,
): Promise<ItemView> {
  try {
    return await db.$transaction(async (tx) => {
      const latest = await latestRows(tx, dataset.id);
      const chosen = key ?? nextKey(new Set(latest.keys()));
      const before = latest.get(chosen);
      if (before && before.deletedAt === null)
        throw new DatasetError("CONFLICT", `The dataset already has an item ${chosen}; edit it, or give another key`, [
          { field: "key", message: `key ${chosen} is taken` },
        ]);
      const version = (before?.version ?? 0) + 1;
      const row = await tx.datasetItem.create({
        data: itemData(dataset.id, chosen, version, fields, who.actor.userId, sourceRunId),
        select: ITEM_SELECT,
      });
      await audit(tx, who, "dataset.item_added", dataset.name, {
        datasetId: dataset.id,
        key: chosen,
        version,
        ...(sourceRunId ? { runId: sourceRunId } : {}),
      });
      return itemView(row);
    });
  } catch (err) {
    raced(err);
  }
}

export async function addItem(db: Db, who: DatasetActor, datasetId: string, raw: unknown): Promise<ItemView> {
  const dataset = await editableDataset(db, who.actor, datasetId);
  const checked = checkItem(raw);
  if (!("fields" in checked)) throw invalidInput("The item", checked.problems);
  return addItemFields(db, who, dataset, checked.key, checked.fields);
}

async function latestLive(tx: Pick<Db, "datasetItem">, datasetId: string, key: string): Promise<ItemRow> {
  const row = await tx.datasetItem.findFirst({ where: { datasetId, key }, select: ITEM_SELECT, orderBy: { version: "desc" } });
  if (!row || row.deletedAt !== null) throw new DatasetError("NOT_FOUND", `The dataset has no item ${key}`);
  return row;
}

/** A new version of an item with the fields changed; a change equal to the latest version adds nothing. */
export async function editItem(db: Db, who: DatasetActor, datasetId: string, key: string, raw: unknown): Promise<ItemView> {
  const dataset = await editableDataset(db, who.actor, datasetId);
  if (!ItemKey.safeParse(key).success) throw new DatasetError("NOT_FOUND", `The dataset has no item ${key}`);
  const parsed = ItemPatch.safeParse(raw);
  const problems = parsed.success ? checkItemParts(parsed.data).problems : zodProblems(parsed.error);
  if (!parsed.success || problems.length) throw invalidInput("The change", problems);
  const patch = parsed.data;
  const scenario = checkItemParts(patch).scenario;
  try {
    return await db.$transaction(async (tx) => {
      const latest = itemView(await latestLive(tx, datasetId, key));
      const fields: ItemFields = {
        goal: patch.goal ?? latest.goal,
        agent: patch.agent === undefined ? latest.agent : patch.agent,
        scenario: scenario === undefined ? latest.scenario : scenario,
        expected: patch.expected ?? latest.expected,
      };
      if (sameFields(fields, fieldsOf(latest))) return latest;
      const version = latest.version + 1;
      const row = await tx.datasetItem.create({ data: itemData(datasetId, key, version, fields, who.actor.userId), select: ITEM_SELECT });
      await audit(tx, who, "dataset.item_edited", dataset.name, { datasetId, key, version });
      return itemView(row);
    });
  } catch (err) {
    raced(err);
  }
}

/** Marks the item's latest version removed; its history stays for the experiments that ran it. */
export async function removeItem(db: Db, who: DatasetActor, datasetId: string, key: string): Promise<{ ok: true }> {
  const dataset = await editableDataset(db, who.actor, datasetId);
  await db.$transaction(async (tx: Tx) => {
    const latest = await latestLive(tx, datasetId, key);
    await tx.datasetItem.updateMany({ where: { datasetId, key, version: latest.version }, data: { deletedAt: new Date() } });
    await audit(tx, who, "dataset.item_removed", dataset.name, { datasetId, key, version: latest.version });
  });
  return { ok: true };
}
