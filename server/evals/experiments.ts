// Experiments (Evals): a dataset's items run as real runs (each item × each
// epoch a trial), with an agent at a fixed version and optionally a model.
// Starting one only writes rows; the ExperimentRunner does the work. Who sees
// an experiment: like runs, the members of the team its runs go to (admins
// all). Operators of that team start and cancel; admins delete.
import { z } from "zod";
import { MAX_CONCURRENCY, MAX_EPOCHS } from "@/lib/limits";
import type { Db } from "@/server/db";
import { roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { ArchivedAgentError, UnknownAgentError, agentVisibleTo, launchTeam, type SpecSource } from "@/server/kernel";
import { DatasetError } from "./dataset-errors";
import { audit, storedScoring, visibleDataset, type DatasetActor } from "./datasets";
import { liveItems } from "./dataset-items";
import { EXPERIMENT_ACTIVE, isExperimentState, type ExperimentState, type TrialState } from "./experiment-states";

export { MAX_EPOCHS, MAX_CONCURRENCY };
/** Items × epochs of one experiment, at most. */
export const MAX_TRIALS = 5_000;

export const StartExperimentInput = z.strictObject(
  {
    datasetId: z.string({ error: "Name the dataset by its id" }).min(1, "Name the dataset by its id"),
    /** The agent under test for every item; without one, each item runs with its own agent. */
    agent: z.string().trim().min(1, "agent is empty").max(64).optional(),
    /** That agent's version; without one, its latest when the experiment starts. */
    agentVersion: z
      .number({ error: "agentVersion is a version number" })
      .int("agentVersion is a whole number")
      .min(1, "agentVersion is 1 or more")
      .optional(),
    /** "<provider>/<model id>" or "auto" (the routing rules); items with a scenario always play it on the scripted model. */
    model: z.string().trim().min(1, "model is empty").max(200).optional(),
    epochs: z
      .number({ error: "epochs is a number" })
      .int("epochs is a whole number")
      .min(1, "epochs is at least 1")
      .max(MAX_EPOCHS, `epochs is at most ${MAX_EPOCHS}`)
      .default(1),
    concurrency: z
      .number({ error: "concurrency is a number" })
      .int("concurrency is a whole number")
      .min(1, "concurrency is at least 1")
      .max(MAX_CONCURRENCY, `concurrency is at most ${MAX_CONCURRENCY}`)
      .default(2),
    name: z.string().trim().min(1, "name is empty").max(120, "name is at most 120 characters").optional(),
    /** The team the item runs go to (budget, policies, who sees them); as New run picks it when left out. */
    teamId: z.string().trim().min(1).max(64).optional(),
    /** The experiment this one is compared with by default (the gate's baseline). */
    baselineId: z.string().trim().min(1).max(64).optional(),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? `an experiment has no setting ${i.keys.map((k) => `"${k}"`).join(", ")}` : undefined) },
);
export type StartExperimentInput = z.input<typeof StartExperimentInput>;

export interface ExperimentDeps {
  db: Db;
  specs: SpecSource;
  /** Told when an experiment was written, so it starts at once (the runner also finds it on its own). */
  wake?(experimentId: string): void;
}

const EXPERIMENT_SELECT = {
  id: true,
  datasetId: true,
  name: true,
  agentName: true,
  agentVersion: true,
  model: true,
  epochs: true,
  concurrency: true,
  status: true,
  statusReason: true,
  teamId: true,
  scoring: true,
  baselineId: true,
  createdById: true,
  createdAt: true,
  startedAt: true,
  endedAt: true,
} as const;

export interface ExperimentView {
  id: string;
  name: string;
  dataset: { id: string; name: string };
  /** The agent under test, or null when each item ran with its own. */
  agent: { name: string; version: number } | null;
  model: string | null;
  epochs: number;
  concurrency: number;
  status: ExperimentState;
  statusReason: string | null;
  team: { id: string; name: string } | null;
  baselineId: string | null;
  createdBy: { id: string; name: string } | null;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  progress: ExperimentProgress;
}

export interface ExperimentProgress {
  total: number;
  pending: number;
  running: number;
  scoring: number;
  done: number;
  failed: number;
  canceled: number;
  passed: number;
  costUsd: number;
}

type ExperimentRow = {
  id: string;
  datasetId: string;
  name: string;
  agentName: string | null;
  agentVersion: number | null;
  model: string | null;
  epochs: number;
  concurrency: number;
  status: string;
  statusReason: string | null;
  teamId: string | null;
  scoring: string;
  baselineId: string | null;
  createdById: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
};

/** Runs of an experiment's trials are counted in traces and costs under this workflow. */
export const evalWorkflow = (datasetName: string) => `eval:${datasetName}`;

export const experimentNotFound = (id: string) => new DatasetError("NOT_FOUND", `There is no experiment ${id}`);

/** Like runs: an experiment is seen by the members of its runs' team and by whoever started it (admins see all). */
function visibleWhere(actor: Actor) {
  if (actor.role === "admin") return {};
  return { OR: [{ teamId: { in: actor.teamIds } }, { createdById: actor.userId }] };
}

export async function visibleExperiment(db: Db, actor: Actor, id: string): Promise<ExperimentRow> {
  const row = await db.experiment.findFirst({ where: { id, ...visibleWhere(actor) }, select: EXPERIMENT_SELECT });
  if (!row) throw experimentNotFound(id);
  return row;
}

export async function progressOf(db: Db, ids: string[]): Promise<Map<string, ExperimentProgress>> {
  const empty = (): ExperimentProgress => ({
    total: 0,
    pending: 0,
    running: 0,
    scoring: 0,
    done: 0,
    failed: 0,
    canceled: 0,
    passed: 0,
    costUsd: 0,
  });
  const out = new Map(ids.map((id) => [id, empty()]));
  if (ids.length === 0) return out;
  const groups = await db.experimentTrial.groupBy({
    by: ["experimentId", "status", "passed"],
    where: { experimentId: { in: ids } },
    _count: { _all: true },
    _sum: { costUsd: true },
  });
  for (const g of groups) {
    const p = out.get(g.experimentId)!;
    const n = g._count._all;
    p.total += n;
    if (g.status in p) p[g.status as TrialState] += n;
    if (g.passed) p.passed += n;
    p.costUsd += g._sum.costUsd ?? 0;
  }
  // A trial's cost is written when it is scored; until then its run's cost so far counts.
  const going = await db.experimentTrial.findMany({
    where: { experimentId: { in: ids }, status: { in: ["running", "scoring"] }, runId: { not: null } },
    select: { experimentId: true, runId: true },
  });
  if (going.length) {
    const costs = new Map(
      (await db.run.findMany({ where: { id: { in: going.map((t) => t.runId!) } }, select: { id: true, costUsd: true } })).map((r) => [
        r.id,
        r.costUsd,
      ]),
    );
    for (const t of going) out.get(t.experimentId)!.costUsd += costs.get(t.runId!) ?? 0;
  }
  return out;
}

async function present(db: Db, rows: ExperimentRow[]): Promise<ExperimentView[]> {
  const progress = await progressOf(
    db,
    rows.map((r) => r.id),
  );
  const datasets = new Map(
    (
      await db.dataset.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.datasetId))] } }, select: { id: true, name: true } })
    ).map((d) => [d.id, d]),
  );
  const teamIds = [...new Set(rows.map((r) => r.teamId).filter((t): t is string => t !== null))];
  const teams = new Map(
    (await db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } })).map((t) => [t.id, t]),
  );
  const users = new Map(
    (
      await db.user.findMany({
        where: { id: { in: [...new Set(rows.map((r) => r.createdById))] } },
        select: { id: true, name: true, email: true },
      })
    ).map((u) => [u.id, { id: u.id, name: u.name || u.email }]),
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    dataset: datasets.get(r.datasetId) ?? { id: r.datasetId, name: "(removed dataset)" },
    agent: r.agentName ? { name: r.agentName, version: r.agentVersion ?? 0 } : null,
    model: r.model,
    epochs: r.epochs,
    concurrency: r.concurrency,
    status: isExperimentState(r.status) ? r.status : "failed",
    statusReason: r.statusReason,
    team: r.teamId ? (teams.get(r.teamId) ?? null) : null,
    baselineId: r.baselineId,
    createdBy: users.get(r.createdById) ?? null,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    progress: progress.get(r.id)!,
  }));
}

export const ListExperimentsInput = z
  .object({
    datasetId: z.string().min(1).optional(),
    status: z.array(z.enum(["queued", "running", "succeeded", "failed", "canceled"])).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .optional();

export async function listExperiments(db: Db, actor: Actor, raw: z.input<typeof ListExperimentsInput> = {}): Promise<ExperimentView[]> {
  const input = ListExperimentsInput.parse(raw) ?? { limit: 50 };
  const rows = await db.experiment.findMany({
    where: {
      AND: [
        visibleWhere(actor),
        input.datasetId ? { datasetId: input.datasetId } : {},
        input.status?.length ? { status: { in: input.status } } : {},
      ],
    },
    select: EXPERIMENT_SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit,
  });
  return present(db, rows);
}

export async function getExperiment(db: Db, actor: Actor, id: string): Promise<ExperimentView> {
  return (await present(db, [await visibleExperiment(db, actor, id)]))[0];
}

function zodProblems(err: z.ZodError) {
  return err.issues.map((i) => ({ field: i.path.join(".") || "experiment", message: i.message }));
}

/** The agent and version a trial runs with: the experiment's, else the item's own (its latest now). */
async function agentFor(
  deps: ExperimentDeps,
  actor: Actor,
  name: string,
  version: number | undefined,
  teamId: string | null,
): Promise<{ name: string; version: number }> {
  const row = await deps.db.agent.findUnique({ where: { name }, select: { teamId: true, archivedAt: true } });
  // As createRun would refuse each trial: a team's agent runs only in its own team.
  if (row?.teamId && agentVisibleTo(row, actor) && row.teamId !== teamId)
    throw new DatasetError(
      "FORBIDDEN",
      `The agent ${name} belongs to another team than the one this experiment runs in; run it in the agent's own team`,
    );
  const spec = agentVisibleTo(row, actor) ? await deps.specs.get(name, version) : null;
  if (!spec) {
    if (version !== undefined && agentVisibleTo(row, actor) && (await deps.specs.get(name)))
      throw new DatasetError("INVALID_INPUT", `The agent ${name} has no version ${version}`);
    throw new DatasetError("INVALID_INPUT", new UnknownAgentError(name, []).message.replace(/ Available agents:.*$/, ""));
  }
  if (row?.archivedAt) throw new DatasetError("INVALID_INPUT", new ArchivedAgentError(name).message);
  return { name: spec.name, version: spec.version };
}

/**
 * Checks everything an experiment needs before writing anything (the dataset
 * has items, every item has an agent, the agent and version exist, the team
 * takes runs), then writes the experiment and its trials, queued.
 */
export async function startExperiment(deps: ExperimentDeps, who: DatasetActor, raw: unknown): Promise<ExperimentView> {
  const parsed = StartExperimentInput.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = zodProblems(parsed.error);
    throw new DatasetError(
      "INVALID_INPUT",
      `The experiment has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${problems.map((p) => p.message).join("; ")}`,
      problems,
    );
  }
  const input = parsed.data;
  const { actor } = who;
  const dataset = await visibleDataset(deps.db, actor, input.datasetId);
  if (dataset.archivedAt) throw new DatasetError("INVALID_INPUT", `The dataset ${dataset.name} is archived; unarchive it to run it`);
  const items = await liveItems(deps.db, dataset.id);
  if (items.length === 0) throw new DatasetError("INVALID_INPUT", `The dataset ${dataset.name} has no items yet; add some first`);
  if (items.length * input.epochs > MAX_TRIALS) {
    throw new DatasetError(
      "INVALID_INPUT",
      `${items.length} items × ${input.epochs} epochs is more than ${MAX_TRIALS.toLocaleString("en")} runs; use fewer epochs or split the dataset`,
    );
  }
  // Like a team's agent, a team's dataset runs in its team: elsewhere its items (goals, expected answers) would be read by people who may not see it.
  const teamId = await launchTeam(deps.db, actor, input.teamId ?? dataset.teamId ?? undefined);
  if (dataset.teamId && teamId !== dataset.teamId)
    throw new DatasetError("FORBIDDEN", `The dataset ${dataset.name} belongs to another team; run it in its own team`);
  if (input.agentVersion !== undefined && !input.agent)
    throw new DatasetError("INVALID_INPUT", "agentVersion needs agent: name the agent whose version to run", [
      { field: "agentVersion", message: "agentVersion needs agent" },
    ]);
  const agent = input.agent ? await agentFor(deps, actor, input.agent, input.agentVersion, teamId) : null;
  const itemAgents = new Map<string, { name: string; version: number }>();
  if (!agent) {
    const missing = items.filter((i) => !i.agent).map((i) => i.key);
    if (missing.length)
      throw new DatasetError(
        "INVALID_INPUT",
        `Item${missing.length > 1 ? "s" : ""} ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""} name${missing.length > 1 ? "" : "s"} no agent; name the agent to run them with`,
      );
    for (const name of new Set(items.map((i) => i.agent!))) itemAgents.set(name, await agentFor(deps, actor, name, undefined, teamId));
  }
  if (input.baselineId) {
    const baseline = await visibleExperiment(deps.db, actor, input.baselineId).catch(() => null);
    if (!baseline) throw new DatasetError("INVALID_INPUT", `There is no experiment ${input.baselineId} to compare with`);
    if (baseline.datasetId !== dataset.id)
      throw new DatasetError("INVALID_INPUT", "The baseline ran another dataset; a baseline must run the same dataset");
  }
  const rows = await deps.db.datasetItem.findMany({
    where: { datasetId: dataset.id, deletedAt: null },
    select: { id: true, key: true, version: true },
  });
  const itemIds = new Map(rows.map((r) => [`${r.key}@${r.version}`, r.id]));
  const scoring = storedScoring(dataset.scoring);
  const name =
    input.name ??
    `${dataset.name} · ${agent ? `${agent.name} v${agent.version}` : "items' agents"}${input.model ? ` · ${input.model}` : ""}`;
  const experiment = await deps.db.$transaction(async (tx) => {
    const created = await tx.experiment.create({
      data: {
        datasetId: dataset.id,
        name,
        agentName: agent?.name ?? null,
        agentVersion: agent?.version ?? null,
        model: input.model ?? null,
        epochs: input.epochs,
        concurrency: input.concurrency,
        teamId,
        scoring: JSON.stringify(scoring),
        baselineId: input.baselineId ?? null,
        createdById: actor.userId,
      },
      select: { id: true },
    });
    const trials = items.flatMap((item) =>
      Array.from({ length: input.epochs }, (_, e) => {
        const ran = agent ?? itemAgents.get(item.agent!)!;
        return {
          experimentId: created.id,
          itemId: itemIds.get(`${item.key}@${item.version}`)!,
          itemKey: item.key,
          epoch: e + 1,
          agentName: ran.name,
          agentVersion: ran.version,
        };
      }),
    );
    await tx.experimentTrial.createMany({ data: trials });
    await audit(tx, who, "experiment.started", dataset.name, {
      experimentId: created.id,
      agent: agent ? `${agent.name} v${agent.version}` : null,
      model: input.model ?? null,
      epochs: input.epochs,
      trials: trials.length,
    });
    return created;
  });
  deps.wake?.(experiment.id);
  return getExperiment(deps.db, actor, experiment.id);
}

/** Operators of the experiment's team (admins for one without a team) steer it. */
function requireOperator(actor: Actor, teamId: string | null, doing: string) {
  const role = teamId === null ? actor.role : roleIn(actor, teamId);
  if (role && roleAtLeast(role, teamId === null ? "admin" : "operator")) return;
  throw new DatasetError("FORBIDDEN", `${doing} needs the operator role in the experiment's team`);
}

export interface CancelDeps {
  db: Db;
  /** Cancels a trial's run (the kernel pool); absent in tests without a pool. */
  cancelRun?(runId: string, actor: Actor): Promise<unknown>;
}

/** Stops an experiment: its pending trials never start, its running ones' runs are canceled. Finished trials keep their scores. */
export async function cancelExperiment(deps: CancelDeps, who: DatasetActor, id: string): Promise<ExperimentView> {
  const row = await visibleExperiment(deps.db, who.actor, id);
  requireOperator(who.actor, row.teamId, "Canceling an experiment");
  const moved = await deps.db.experiment.updateMany({
    where: { id, status: { in: [...EXPERIMENT_ACTIVE] } },
    data: { status: "canceled", statusReason: `Canceled by ${who.actor.name || who.actor.email}`, endedAt: new Date() },
  });
  if (moved.count === 0)
    throw new DatasetError("CONFLICT", `The experiment is ${row.status}; only a queued or running one can be canceled`);
  const running = await deps.db.experimentTrial.findMany({
    where: { experimentId: id, status: "running" },
    select: { id: true, runId: true },
  });
  await deps.db.experimentTrial.updateMany({
    where: { experimentId: id, status: { in: ["pending", "running"] } },
    data: { status: "canceled" },
  });
  for (const t of running) if (t.runId) await deps.cancelRun?.(t.runId, who.actor).catch(() => {});
  const dataset = await deps.db.dataset.findUnique({ where: { id: row.datasetId }, select: { name: true } });
  await audit(deps.db, who, "experiment.canceled", dataset?.name ?? row.datasetId, { experimentId: id });
  return getExperiment(deps.db, who.actor, id);
}

/** Deletes a finished experiment and its results (admins); its runs stay in Runs. */
export async function deleteExperiment(db: Db, who: DatasetActor, id: string): Promise<{ ok: true }> {
  const row = await visibleExperiment(db, who.actor, id);
  if (who.actor.role !== "admin") throw new DatasetError("FORBIDDEN", "Deleting an experiment needs an admin");
  if (EXPERIMENT_ACTIVE.includes(row.status as ExperimentState))
    throw new DatasetError("CONFLICT", "The experiment is still going; cancel it first");
  await db.experiment.delete({ where: { id } });
  await db.experiment.updateMany({ where: { baselineId: id }, data: { baselineId: null } });
  const dataset = await db.dataset.findUnique({ where: { id: row.datasetId }, select: { name: true } });
  await audit(db, who, "experiment.deleted", dataset?.name ?? row.datasetId, { experimentId: id, name: row.name });
  return { ok: true };
}
