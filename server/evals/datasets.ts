// Datasets (Evals): named sets of goals with expected outcomes and the
// scoring that says what "good" is. Seen like agents: a team's dataset by its
// members (and admins), a team-less one by everyone. Operators of its team
// (admins for a team-less one) create and change it; admins archive it.
// Every change is audited.
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { agentVisibleTo } from "@/server/kernel";
import { DatasetError, datasetNotFound, invalidInput } from "./dataset-errors";
import { DatasetInput, DatasetPatch, checkScoring, zodProblems, type StoredScoring } from "./dataset-input";

/** Who acts, and from where (the audit log's channel: admin for the UI, api, cli). */
export interface DatasetActor {
  actor: Actor;
  channel: string;
}

export const BUILT_IN_DATASET_REFUSAL = "Built-in datasets can't be changed; export it and import it into a dataset of your own";

const ROW_SELECT = {
  id: true,
  name: true,
  description: true,
  teamId: true,
  scoring: true,
  builtIn: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
  archivedAt: true,
} as const;
export type DatasetRow = {
  id: string;
  name: string;
  description: string;
  teamId: string | null;
  scoring: string;
  builtIn: boolean;
  createdById: string | null;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
};

export interface DatasetView {
  id: string;
  name: string;
  description: string;
  teamId: string | null;
  team: { id: string; name: string } | null;
  scoring: StoredScoring;
  builtIn: boolean;
  archived: boolean;
  /** Items in the dataset now (each key's latest version, removed ones left out). */
  itemCount: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: string | null;
}

export function storedScoring(json: string): StoredScoring {
  try {
    const v = JSON.parse(json) as Partial<StoredScoring>;
    return { scorers: Array.isArray(v.scorers) ? v.scorers : [], threshold: typeof v.threshold === "number" ? v.threshold : 1 };
  } catch {
    return { scorers: [], threshold: 1 };
  }
}

/** May the actor change what belongs to this team (null: everyone's)? */
export function mayEditDataset(actor: Actor, teamId: string | null): boolean {
  if (teamId === null) return actor.role === "admin";
  const role = roleIn(actor, teamId);
  return role !== null && roleAtLeast(role, "operator");
}

export async function audit(
  db: Pick<Db, "auditEntry">,
  who: DatasetActor,
  kind: string,
  name: string,
  detail: Record<string, unknown> = {},
) {
  await recordAudit(db, {
    kind,
    actorId: who.actor.userId,
    actorName: who.actor.name || who.actor.email,
    channel: who.channel,
    subject: name,
    detail: { name, ...detail },
  });
}

/** The dataset when the actor may see it; else NOT_FOUND (another team's dataset looks like none). */
export async function visibleDataset(db: Db, actor: Actor, id: string): Promise<DatasetRow> {
  const row = await db.dataset.findUnique({ where: { id }, select: ROW_SELECT });
  if (!row || !agentVisibleTo(row, actor)) throw datasetNotFound(id);
  return row;
}

/** The dataset when the actor may change it: visible, not built in, and theirs to edit. */
export async function editableDataset(db: Db, actor: Actor, id: string, doing = "Changing"): Promise<DatasetRow> {
  const row = await visibleDataset(db, actor, id);
  if (row.builtIn) throw new DatasetError("INVALID_INPUT", BUILT_IN_DATASET_REFUSAL);
  if (!mayEditDataset(actor, row.teamId)) {
    throw new DatasetError(
      "FORBIDDEN",
      row.teamId === null
        ? `${doing} ${row.name} needs an admin: everyone sees it`
        : `${doing} ${row.name} needs the operator role in its team`,
    );
  }
  return row;
}

async function liveItemCounts(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.datasetItem.findMany({
    where: { datasetId: { in: ids } },
    select: { datasetId: true, key: true, version: true, deletedAt: true },
    orderBy: [{ key: "asc" }, { version: "desc" }],
  });
  const latest = new Map<string, { datasetId: string; deleted: boolean }>();
  for (const r of rows)
    if (!latest.has(`${r.datasetId}\0${r.key}`))
      latest.set(`${r.datasetId}\0${r.key}`, { datasetId: r.datasetId, deleted: r.deletedAt !== null });
  const counts = new Map<string, number>();
  for (const l of latest.values()) if (!l.deleted) counts.set(l.datasetId, (counts.get(l.datasetId) ?? 0) + 1);
  return counts;
}

async function viewsOf(db: Db, rows: DatasetRow[]): Promise<DatasetView[]> {
  const teamIds = [...new Set(rows.map((r) => r.teamId).filter((t): t is string => !!t))];
  const userIds = [...new Set(rows.map((r) => r.createdById).filter((u): u is string => !!u))];
  const teams = new Map(
    (teamIds.length ? await db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } }) : []).map((t) => [
      t.id,
      t,
    ]),
  );
  const people = new Map(
    (userIds.length ? await db.user.findMany({ where: { id: { in: userIds } }, select: { id: true, name: true, email: true } }) : []).map(
      (u) => [u.id, u.name || u.email],
    ),
  );
  const counts = await liveItemCounts(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    teamId: r.teamId,
    team: r.teamId ? (teams.get(r.teamId) ?? { id: r.teamId, name: r.teamId }) : null,
    scoring: storedScoring(r.scoring),
    builtIn: r.builtIn,
    archived: r.archivedAt !== null,
    itemCount: counts.get(r.id) ?? 0,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    createdBy: r.createdById ? (people.get(r.createdById) ?? null) : null,
  }));
}

/** The datasets the actor sees, by name. */
export async function listDatasets(db: Db, actor: Actor, opts: { includeArchived?: boolean } = {}): Promise<DatasetView[]> {
  const rows = await db.dataset.findMany({
    where: {
      ...(opts.includeArchived ? {} : { archivedAt: null }),
      ...(actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] }),
    },
    select: ROW_SELECT,
    orderBy: { name: "asc" },
  });
  return viewsOf(db, rows);
}

export async function getDataset(db: Db, actor: Actor, id: string): Promise<DatasetView> {
  return (await viewsOf(db, [await visibleDataset(db, actor, id)]))[0];
}

function checkTeam(actor: Actor, teamId: string | null) {
  if (mayEditDataset(actor, teamId)) return;
  throw new DatasetError(
    "FORBIDDEN",
    teamId === null ? "A dataset for everyone (no team) needs an admin" : "A dataset of a team needs the operator role in that team",
  );
}

async function nameTaken(db: Db, name: string, except?: string) {
  const row = await db.dataset.findUnique({ where: { name }, select: { id: true } });
  if (row && row.id !== except)
    throw new DatasetError("CONFLICT", `There is already a dataset named ${name}; pick another name`, [
      { field: "name", message: `name ${name} is taken` },
    ]);
}

export async function createDataset(db: Db, who: DatasetActor, raw: unknown): Promise<DatasetView> {
  const parsed = DatasetInput.safeParse(raw);
  const problems = parsed.success ? [] : zodProblems(parsed.error);
  const scoring = parsed.success ? checkScoring(parsed.data.scoring) : null;
  if (!parsed.success || !scoring?.scoring) throw invalidInput("The dataset", [...problems, ...(scoring?.problems ?? [])]);
  const input = parsed.data;
  checkTeam(who.actor, input.teamId);
  await nameTaken(db, input.name);
  const row = await db
    .$transaction(async (tx) => {
      const created = await tx.dataset.create({
        data: {
          name: input.name,
          description: input.description,
          teamId: input.teamId,
          scoring: JSON.stringify(scoring.scoring),
          createdById: who.actor.userId,
        },
        select: { id: true },
      });
      await audit(tx, who, "dataset.created", input.name, { datasetId: created.id, teamId: input.teamId });
      return created;
    })
    .catch((err) => {
      if ((err as { code?: string }).code === "P2002")
        throw new DatasetError("CONFLICT", `The name ${input.name} was taken a moment ago; pick another`);
      throw err;
    });
  return getDataset(db, who.actor, row.id);
}

export async function updateDataset(db: Db, who: DatasetActor, id: string, raw: unknown): Promise<DatasetView> {
  const row = await editableDataset(db, who.actor, id);
  const parsed = DatasetPatch.safeParse(raw);
  const problems = parsed.success ? [] : zodProblems(parsed.error);
  const scoring = parsed.success && parsed.data.scoring ? checkScoring(parsed.data.scoring) : null;
  if (!parsed.success || (scoring && !scoring.scoring)) throw invalidInput("The change", [...problems, ...(scoring?.problems ?? [])]);
  const patch = parsed.data;
  if (patch.teamId !== undefined && patch.teamId !== row.teamId) checkTeam(who.actor, patch.teamId);
  if (patch.name !== undefined && patch.name !== row.name) await nameTaken(db, patch.name, row.id);
  const data: Record<string, unknown> = {};
  if (patch.name !== undefined && patch.name !== row.name) data.name = patch.name;
  if (patch.description !== undefined && patch.description !== row.description) data.description = patch.description;
  if (patch.teamId !== undefined && patch.teamId !== row.teamId) data.teamId = patch.teamId;
  if (scoring?.scoring && JSON.stringify(scoring.scoring) !== row.scoring) data.scoring = JSON.stringify(scoring.scoring);
  if (Object.keys(data).length === 0) return getDataset(db, who.actor, id);
  await db.$transaction(async (tx) => {
    await tx.dataset.update({ where: { id }, data });
    await audit(tx, who, "dataset.updated", (data.name as string) ?? row.name, {
      datasetId: id,
      changed: Object.keys(data),
      ...(data.name ? { fromName: row.name } : {}),
      ...("teamId" in data ? { teamId: data.teamId, fromTeamId: row.teamId } : {}),
    });
  });
  return getDataset(db, who.actor, id);
}

/** Archiving hides a dataset and keeps its items and the experiments that ran them; admins only. */
export async function setDatasetArchived(db: Db, who: DatasetActor, id: string, archived: boolean): Promise<{ ok: true }> {
  const row = await visibleDataset(db, who.actor, id);
  if (who.actor.role !== "admin")
    throw new DatasetError("FORBIDDEN", `${archived ? "Archiving" : "Unarchiving"} ${row.name} needs an admin`);
  if ((row.archivedAt !== null) === archived) return { ok: true };
  await db.$transaction(async (tx) => {
    await tx.dataset.update({ where: { id }, data: { archivedAt: archived ? new Date() : null } });
    await audit(tx, who, archived ? "dataset.archived" : "dataset.unarchived", row.name, { datasetId: id });
  });
  return { ok: true };
}
