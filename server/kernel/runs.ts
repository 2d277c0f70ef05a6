// Run services for the API layers (tRPC, REST, CLI): thin procedures call these.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { DEFAULT_CALL_CAP, MAX_BUDGET_USD, MAX_GOAL_CHARS, MAX_STEPS } from "@/lib/limits";
import { textSearch, type Db } from "@/server/db";
import { roleAtLeast, roleIn, type Actor, type Role } from "@/server/identity";
import { ScenarioSchema, UnknownModelError, normalizeScenario, type ModelRouter, type Scenario } from "@/server/models";
import { MAX_RUN_SECRETS, checkToolSecretNames } from "@/server/secrets";
import { event, type RunEventRecord } from "./events";
import { ArchivedAgentError, UnknownAgentError, type AgentSpec, type SpecSource } from "./specs";
import { agentVisibleTo, hiddenAgentNames } from "./agent-access";
import { RUN_SORTS, runOrderBy } from "./run-sort";
import { prunedParts } from "./pruned";
import { TagSchema, TagsSchema, tagRows } from "./run-tags";
import { RUN_STATES, type RunState } from "./states";
import type { RunStore } from "./store";

/** The per-run LLM call cap; raising it needs an explicit cost ceiling (docs/runs.md#limits). */
export { DEFAULT_CALL_CAP };

/** What a run is asked to do. */
export const GoalSchema = z
  .string()
  .trim()
  .min(1, "goal is required")
  .max(MAX_GOAL_CHARS, `goal is longer than ${MAX_GOAL_CHARS.toLocaleString("en-US")} characters`);

export const CreateRunInput = z
  .object({
    goal: GoalSchema,
    agent: z.string().trim().min(1, "agent is required"),
    scenario: ScenarioSchema.optional(),
    /** "<provider>/<model id>" (or "auto" for the routing rules); otherwise the agent spec decides. */
    model: z.string().trim().min(1, "model is empty").max(200).optional(),
    /** How hard the task is, 0..1: routing puts models at least this strong first; tiers have thresholds. */
    complexity: z.number().min(0, "complexity is between 0 and 1").max(1, "complexity is between 0 and 1").optional(),
    maxSteps: z.number().int().min(1).max(MAX_STEPS).optional(),
    /** The run's cost ceiling in USD; needed to raise maxSteps above the default call cap. */
    budgetUsd: z.number().positive("budgetUsd must be more than 0").max(MAX_BUDGET_USD).optional(),
    /**
     * Secrets the run's tools may use, by name, besides those its agent spec
     * lists (docs/secrets.md#which-secrets-a-run-gets). Each must exist; provider
     * keys are refused. The agent's commands can use (and so could reveal) them:
     * give a run only what it needs.
     */
    secrets: z
      .array(z.string().trim().min(1, "a secret name is empty").max(128))
      .max(MAX_RUN_SECRETS, `at most ${MAX_RUN_SECRETS} secrets`)
      .optional(),
    /**
     * The team the run belongs to: its budget, policies, model pool and who
     * sees it. Without one, the team the launcher used last, else their first.
     */
    teamId: z.string().trim().min(1, "the team is empty").max(64).optional(),
    /** Labels to find the run by later (lowercase; the team's operators can change them). */
    tags: TagsSchema.optional(),
  })
  .refine((r) => r.maxSteps === undefined || r.maxSteps <= DEFAULT_CALL_CAP || r.budgetUsd !== undefined, {
    path: ["maxSteps"],
    message: `maxSteps above the default call cap of ${DEFAULT_CALL_CAP} needs a cost ceiling: set budgetUsd too`,
  });
export type CreateRunInput = z.input<typeof CreateRunInput>;

export const ListRunsInput = z
  .object({
    status: z.array(z.enum(RUN_STATES)).optional(),
    agent: z.string().optional(),
    q: z.string().max(200).optional(),
    mine: z.boolean().optional(),
    /** Runs with this tag. */
    tag: TagSchema.optional(),
    /** Created at or after / before this time (ISO 8601). */
    from: z.iso.datetime({ offset: true, message: "from is not a date and time (ISO 8601)" }).optional(),
    to: z.iso.datetime({ offset: true, message: "to is not a date and time (ISO 8601)" }).optional(),
    sort: z.enum(RUN_SORTS).default("created"),
    dir: z.enum(["asc", "desc"]).default("desc"),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().optional(),
  })
  .refine((r) => !r.from || !r.to || Date.parse(r.from) <= Date.parse(r.to), {
    path: ["from"],
    message: "The start of the date range is after its end",
  });
export type ListRunsInput = z.input<typeof ListRunsInput>;

export class RunNotFoundError extends DomainError {
  constructor(id: string) {
    super("NOT_FOUND", `Run ${id} was not found`);
    this.name = "RunNotFoundError";
  }
}

/** A person may not launch or steer a run in this team (or the team is gone or archived). */
export class TeamAccessError extends DomainError {
  constructor(
    /** ARCHIVED: the team exists but takes no new runs. */
    readonly reason: "FORBIDDEN" | "NOT_FOUND" | "ARCHIVED",
    message: string,
  ) {
    super(reason === "ARCHIVED" ? "CONFLICT" : reason, message);
    this.name = "TeamAccessError";
  }
}

/**
 * The team a new run goes to: the one asked for, else the one this person
 * used last, else their first team where they may launch runs; null only for
 * a person in no team. The person needs the operator role in it.
 */
export async function launchTeam(db: Db, actor: Actor, asked: string | undefined): Promise<string | null> {
  if (asked) {
    const team = await db.team.findUnique({ where: { id: asked }, select: { id: true, name: true, archivedAt: true } });
    if (!team || (actor.role !== "admin" && !actor.teamIds.includes(team.id))) {
      throw new TeamAccessError("NOT_FOUND", `You are not in a team with the id ${asked}; pick one of your teams`);
    }
    if (team.archivedAt) throw new TeamAccessError("ARCHIVED", `The team ${team.name} is archived; it takes no new runs`);
    requireTeamRole(actor, team.id, "operator", `Launching a run in ${team.name}`);
    return team.id;
  }
  const teams = await db.team.findMany({
    where: { id: { in: actor.teamIds }, archivedAt: null },
    select: { id: true },
    orderBy: { createdAt: "asc" },
  });
  const user = await db.user.findUnique({ where: { id: actor.userId }, select: { lastTeamId: true } });
  const usable = teams.map((t) => t.id).filter((id) => roleAtLeast(roleIn(actor, id) ?? "viewer", "operator"));
  const pick = usable.find((id) => id === user?.lastTeamId) ?? usable[0];
  if (pick) return pick;
  if (teams.length) requireTeamRole(actor, teams[0].id, "operator", "Launching a run");
  return null;
}

/**
 * New run offers this team first next time (remembered per person). Only the
 * New run dialog remembers: a program naming a team does not move a
 * person's default.
 */
export async function rememberTeam(db: Db, actor: Actor, teamId: string | null): Promise<void> {
  if (teamId) await db.user.updateMany({ where: { id: actor.userId }, data: { lastTeamId: teamId } });
}

/** Throws TeamAccessError unless the person has `role` in the team (a run without a team: their own role). */
export function requireTeamRole(actor: Actor, teamId: string | null, role: Role, doing: string): void {
  const have = roleIn(actor, teamId);
  if (have && roleAtLeast(have, role)) return;
  throw new TeamAccessError(
    "FORBIDDEN",
    have
      ? `${doing} needs the ${role} role; you are ${have}${teamId ? " in this team" : ""}`
      : `${doing} needs the ${role} role in this run's team, and you are not in it`,
  );
}

/** The run, when the person may see it and has `role` in its team. */
export async function getRunAs(db: Db, id: string, actor: Actor, role: Role, doing: string) {
  const run = await getRun(db, id, actor);
  requireTeamRole(actor, run.teamId, role, doing);
  return run;
}

export interface RunServiceDeps {
  db: Db;
  store: RunStore;
  specs: SpecSource;
  router: ModelRouter;
  enqueue(runId: string): void;
  /** Redacts every secret's value from a goal before it is stored or read by a model (absent without a keyring). */
  secrets?: { prepareAll(): Promise<void>; text(text: string): string };
}

const RUN_SUMMARY = {
  id: true,
  goal: true,
  agentName: true,
  agentVersion: true,
  status: true,
  statusReason: true,
  model: true,
  tier: true,
  stepCount: true,
  inputTokens: true,
  outputTokens: true,
  costUsd: true,
  lastSeq: true,
  errorCode: true,
  errorMessage: true,
  createdAt: true,
  startedAt: true,
  endedAt: true,
  teamId: true,
  scenario: true,
  maxSteps: true,
  budgetUsd: true,
  parentRunId: true,
  parentSeq: true,
  lineage: true,
  experimentId: true,
  pinnedAt: true,
  pruned: true,
  createdBy: { select: { id: true, email: true, name: true } },
  team: { select: { id: true, name: true } },
  tags: { select: { tag: true }, orderBy: { tag: "asc" } },
} as const;

export type RunSummary = Awaited<ReturnType<typeof listRuns>>["runs"][number];

function present<
  T extends {
    scenario: string | null;
    status: string;
    startedAt: Date | null;
    endedAt: Date | null;
    tags: { tag: string }[];
    pruned: string | null;
  },
>(r: T) {
  const { scenario, tags, pruned, ...rest } = r;
  const end = r.endedAt ?? (r.status === "running" ? new Date() : null);
  return {
    ...rest,
    status: r.status as RunState,
    tags: tags.map((t) => t.tag),
    /** What retention dropped of it, and when (docs/operations.md#retention). */
    pruned: prunedParts(pruned),
    scripted: r.scenario !== null || (r as unknown as { model: string }).model.startsWith("scripted"),
    scenarioGiven: scenario !== null,
    durationMs: r.startedAt && end ? end.getTime() - r.startedAt.getTime() : null,
    /** The run tried an unsaved draft of its agent ("Try it"): its spec version is negative. */
    agentDraft: (r as unknown as { agentVersion: number }).agentVersion < 0,
  };
}

/** Options only Rein's own services pass, never a launcher's input. */
export interface CreateRunOptions {
  /** Run this exact version of the agent (a draft's negative version) instead of the latest. */
  specVersion?: number;
  /** The run is a trial of this experiment (Evals), counted under `workflow` ("eval:<dataset>") in traces and costs. */
  experimentId?: string;
  workflow?: string;
  /** The new run's id, chosen beforehand (an experiment's trial records it before the run exists, so a restart finds it). */
  runId?: string;
  /** The run this one was re-run (or forked, after `step`, from checkpoint `seq`) from. */
  parent?: { runId: string; kind: "rerun" | "fork"; seq?: number; step?: number };
  /** Written paused with this reason, not handed to a worker: the caller prepares it (a fork's workspace) and queues it. */
  hold?: string;
}

/** The spec a new run starts with (one the launcher may see, not archived), and the team the agent belongs to. */
async function specForRun(
  deps: RunServiceDeps,
  name: string,
  actor: Actor,
  version?: number,
): Promise<{ spec: AgentSpec; agentTeamId: string | null }> {
  const agent = await deps.db.agent.findUnique({ where: { name }, select: { teamId: true, archivedAt: true } });
  const spec = agentVisibleTo(agent, actor) ? await deps.specs.get(name, version) : null;
  if (!spec) {
    const hidden = await hiddenAgentNames(deps.db, actor);
    const archived = new Set(
      (await deps.db.agent.findMany({ where: { archivedAt: { not: null } }, select: { name: true } })).map((a) => a.name),
    );
    throw new UnknownAgentError(
      name,
      (await deps.specs.list()).map((s) => s.name).filter((n) => !hidden.has(n) && !archived.has(n)),
    );
  }
  if (agent?.archivedAt) throw new ArchivedAgentError(name);
  return { spec, agentTeamId: agent?.teamId ?? null };
}

/** A guardrail of the spec that is a number, e.g. its call cap. */
function guardrail(spec: AgentSpec, key: string): number | undefined {
  const value = spec.guardrails[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Validates, writes a queued run and hands it to the pool; returns at once. */
export async function createRun(deps: RunServiceDeps, raw: CreateRunInput, actor: Actor, options: CreateRunOptions = {}) {
  const input = CreateRunInput.parse(raw);
  const { spec, agentTeamId } = await specForRun(deps, input.agent, actor, options.specVersion);
  const scenario: Scenario | null = input.scenario ? normalizeScenario(input.scenario) : null;
  if (input.model && scenario)
    throw new UnknownModelError(
      input.model,
      [],
      "A run with a scenario plays it on the scripted model; give either model or scenario, not both",
    );
  const model = scenario ? "scripted/run-scenario" : (input.model ?? spec.model);
  // A team's agent runs in its team (so only that team sees its runs); everyone's agents in the launcher's.
  const teamId = await launchTeam(deps.db, actor, input.teamId ?? agentTeamId ?? undefined);
  if (agentTeamId && teamId !== agentTeamId)
    throw new TeamAccessError("FORBIDDEN", `The agent ${spec.name} belongs to another team; launch it in its own team`);
  // Checked now, so a run never starts with a secret that does not exist or is a provider key.
  // And the admin's scope of each: this agent, this team, and a scenario's commands only where allowed.
  await checkToolSecretNames(deps.db, [...(spec.secrets ?? []), ...(input.secrets ?? [])], {
    agent: spec.name,
    teamId,
    callerCommands: scenario !== null,
  });
  const secrets = [...new Set(input.secrets ?? [])];
  // Resolving now refuses an unknown model, or one outside the team's pool, before anything is written.
  const resolved = deps.router.resolve({
    model,
    taskClass: spec.taskClass,
    scenario,
    teamId,
    complexity: input.complexity ?? null,
    needsTools: spec.tools.length > 0,
  });
  // A goal may hold a secret someone pasted: its value is neither stored nor read by a model.
  if (deps.secrets) await deps.secrets.prepareAll();
  const goal = deps.secrets ? deps.secrets.text(input.goal) : input.goal;
  const run = await deps.db.run.create({
    data: {
      ...(options.runId ? { id: options.runId } : {}),
      goal,
      agentName: spec.name,
      agentVersion: spec.version,
      model,
      tier: spec.tier,
      scenario: scenario ? JSON.stringify(scenario) : null,
      // The spec's guardrails are the defaults of what the launcher leaves out.
      maxSteps: input.maxSteps ?? guardrail(spec, "callCap") ?? DEFAULT_CALL_CAP,
      budgetUsd: input.budgetUsd ?? guardrail(spec, "costCeilingUsd") ?? null,
      complexity: input.complexity ?? null,
      createdById: actor.userId,
      teamId,
      experimentId: options.experimentId ?? null,
      workflow: options.workflow ?? null,
      ...(options.parent ? { parentRunId: options.parent.runId, parentSeq: options.parent.seq ?? null, lineage: options.parent.kind } : {}),
      ...(options.hold ? { status: "paused", statusReason: options.hold } : {}),
      ...tagRows(input.tags),
    },
    select: { id: true },
  });
  await deps.store.appendEvents(run.id, [
    event(
      "run.created",
      {
        goal,
        agent: spec.name,
        agentVersion: spec.version,
        model,
        modelLabel: resolved.label,
        scripted: resolved.scripted,
        scenarioGiven: !!scenario,
        ...(secrets.length ? { secrets } : {}),
        ...(options.parent ? { parent: options.parent } : {}),
      },
      { actor: actor.userId },
    ),
  ]);
  if (!options.hold) deps.enqueue(run.id);
  return getRun(deps.db, run.id, actor);
}

/** The runs a person may see: admins all; others their teams' and their own (every query of runs for a person uses it). */
export function runsVisibleTo(actor: Actor) {
  if (actor.role === "admin") return {};
  return { OR: [{ teamId: { in: actor.teamIds } }, { createdById: actor.userId }] };
}

export async function getRun(db: Db, id: string, actor: Actor) {
  const run = await db.run.findFirst({ where: { id, ...runsVisibleTo(actor) }, select: RUN_SUMMARY });
  if (!run) throw new RunNotFoundError(id);
  return present(run);
}

export async function listRuns(db: Db, raw: ListRunsInput, actor: Actor) {
  const input = ListRunsInput.parse(raw);
  const where = {
    AND: [
      runsVisibleTo(actor),
      input.status?.length ? { status: { in: input.status } } : {},
      input.agent ? { agentName: input.agent } : {},
      // Words of the goal, or a whole run id pasted in.
      input.q ? { OR: [{ goal: textSearch(db, input.q) }, { id: input.q.trim() }] } : {},
      input.mine ? { createdById: actor.userId } : {},
      input.tag ? { tags: { some: { tag: input.tag } } } : {},
      input.from ? { createdAt: { gte: new Date(input.from) } } : {},
      input.to ? { createdAt: { lte: new Date(input.to) } } : {},
    ],
  };
  const after = input.cursor && input.sort === "created" ? await afterCreated(db, input.cursor, input.dir) : null;
  const rows = await db.run.findMany({
    where: after ? { AND: [where, after] } : where,
    select: RUN_SUMMARY,
    orderBy: runOrderBy(input.sort, input.dir),
    take: input.limit + 1,
    ...(input.cursor && !after ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { runs: page.map(present), nextCursor: more ? page[page.length - 1].id : null };
}

/**
 * The runs after the cursor's run in creation order, as a range of the createdAt index (the newest
 * first: created at or before it, and before it or with a lower id). Prisma's own cursor compared
 * every run with a subquery on SQLite: the 5th page of a year's runs took 1.5 s
 * (docs/performance.md#a-year-of-data). Null when there is no such run (Prisma's cursor then
 * answers, as before).
 */
async function afterCreated(db: Db, cursor: string, dir: "asc" | "desc") {
  const at = (await db.run.findUnique({ where: { id: cursor }, select: { createdAt: true } }))?.createdAt;
  if (!at) return null;
  return dir === "desc"
    ? { createdAt: { lte: at }, OR: [{ createdAt: { lt: at } }, { id: { lt: cursor } }] }
    : { createdAt: { gte: at }, OR: [{ createdAt: { gt: at } }, { id: { gt: cursor } }] };
}

export async function listEvents(
  deps: { db: Db; store: RunStore },
  runId: string,
  after: number,
  limit: number,
  actor: Actor,
): Promise<RunEventRecord[]> {
  await getRun(deps.db, runId, actor);
  return deps.store.listEvents(runId, after, limit);
}

/** The run's model turns as a scenario, so the trajectory can be replayed. */
export async function exportScenario(deps: { db: Db; store: RunStore }, runId: string, actor: Actor): Promise<Scenario> {
  await getRun(deps.db, runId, actor);
  const turns: Scenario["turns"] = [];
  let after = 0;
  for (;;) {
    const page = await deps.store.listEvents(runId, after, 1000);
    if (page.length === 0) break;
    after = page[page.length - 1].seq;
    for (const e of page) {
      if (e.type !== "model.turn") continue;
      const p = e.payload as { text: string; toolCalls: Array<{ tool: string; args: unknown }> };
      if (!p.text && p.toolCalls.length === 0) continue;
      turns.push({
        ...(p.text ? { text: p.text } : {}),
        ...(p.toolCalls.length
          ? { toolCalls: p.toolCalls.map((c) => ({ tool: c.tool, args: (c.args ?? {}) as Record<string, unknown> })) }
          : {}),
      });
    }
  }
  return { turns };
}
