// Run services for the API layers (tRPC, REST, CLI): thin procedures call these.
import { z } from "zod";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ScenarioSchema, UnknownModelError, normalizeScenario, type ModelRouter, type Scenario } from "@/server/models";
import { MAX_RUN_SECRETS, checkToolSecretNames } from "@/server/secrets";
import { event, type RunEventRecord } from "./events";
import { ArchivedAgentError, UnknownAgentError, type AgentSpec, type SpecSource } from "./specs";
import { agentVisibleTo, hiddenAgentNames } from "./agent-access";
import { RUN_STATES, type RunState } from "./states";
import type { RunStore } from "./store";

/** SPEC section 5: the per-run LLM call cap; raising it needs an explicit cost ceiling. */
export const DEFAULT_CALL_CAP = 50;

export const CreateRunInput = z.object({
  goal: z.string().trim().min(1, "goal is required").max(20_000, "goal is longer than 20,000 characters"),
  agent: z.string().trim().min(1, "agent is required"),
  scenario: ScenarioSchema.optional(),
  /** "<provider>/<model id>" (or "auto" for the routing rules); otherwise the agent spec decides. */
  model: z.string().trim().min(1, "model is empty").max(200).optional(),
  /** How hard the task is, 0..1: routing puts models at least this strong first; tiers have thresholds. */
  complexity: z.number().min(0, "complexity is between 0 and 1").max(1, "complexity is between 0 and 1").optional(),
  maxSteps: z.number().int().min(1).max(500).optional(),
  /** The run's cost ceiling in USD; needed to raise maxSteps above the default call cap. */
  budgetUsd: z.number().positive("budgetUsd must be more than 0").max(1_000_000).optional(),
  /**
   * Secrets the run's tools may use, by name, besides those its agent spec
   * lists (SPEC section 5). Each must exist; provider keys are refused. The
   * agent's commands can use (and so could reveal) them: give a run only
   * what it needs.
   */
  secrets: z.array(z.string().trim().min(1, "a secret name is empty").max(128)).max(MAX_RUN_SECRETS, `at most ${MAX_RUN_SECRETS} secrets`).optional(),
}).refine((r) => r.maxSteps === undefined || r.maxSteps <= DEFAULT_CALL_CAP || r.budgetUsd !== undefined, {
  path: ["maxSteps"],
  message: `maxSteps above the default call cap of ${DEFAULT_CALL_CAP} needs a cost ceiling: set budgetUsd too`,
});
export type CreateRunInput = z.input<typeof CreateRunInput>;

export const ListRunsInput = z.object({
  status: z.array(z.enum(RUN_STATES)).optional(),
  agent: z.string().optional(),
  q: z.string().max(200).optional(),
  mine: z.boolean().optional(),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().optional(),
});
export type ListRunsInput = z.input<typeof ListRunsInput>;

export class RunNotFoundError extends Error {
  constructor(id: string) {
    super(`Run ${id} was not found`);
    this.name = "RunNotFoundError";
  }
}

export interface RunServiceDeps {
  db: Db;
  store: RunStore;
  specs: SpecSource;
  router: ModelRouter;
  enqueue(runId: string): void;
}

const RUN_SUMMARY = {
  id: true, goal: true, agentName: true, agentVersion: true, status: true, statusReason: true, model: true, tier: true,
  stepCount: true, inputTokens: true, outputTokens: true, costUsd: true, lastSeq: true, errorCode: true, errorMessage: true,
  createdAt: true, startedAt: true, endedAt: true, teamId: true, scenario: true,
  createdBy: { select: { id: true, email: true, name: true } },
} as const;

export type RunSummary = Awaited<ReturnType<typeof listRuns>>["runs"][number];

function present<T extends { scenario: string | null; status: string; startedAt: Date | null; endedAt: Date | null }>(r: T) {
  const { scenario, ...rest } = r;
  const end = r.endedAt ?? (r.status === "running" ? new Date() : null);
  return {
    ...rest,
    status: r.status as RunState,
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
}

/** The spec a new run starts with: one the launcher may see, not archived. */
async function specForRun(deps: RunServiceDeps, name: string, actor: Actor, version?: number): Promise<AgentSpec> {
  const agent = await deps.db.agent.findUnique({ where: { name }, select: { teamId: true, archivedAt: true } });
  const spec = agentVisibleTo(agent, actor) ? await deps.specs.get(name, version) : null;
  if (!spec) {
    const hidden = await hiddenAgentNames(deps.db, actor);
    const archived = new Set((await deps.db.agent.findMany({ where: { archivedAt: { not: null } }, select: { name: true } })).map((a) => a.name));
    throw new UnknownAgentError(name, (await deps.specs.list()).map((s) => s.name).filter((n) => !hidden.has(n) && !archived.has(n)));
  }
  if (agent?.archivedAt) throw new ArchivedAgentError(name);
  return spec;
}

/** A guardrail of the spec that is a number, e.g. its call cap. */
function guardrail(spec: AgentSpec, key: string): number | undefined {
  const value = spec.guardrails[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Validates, writes a queued run and hands it to the pool; returns at once. */
export async function createRun(deps: RunServiceDeps, raw: CreateRunInput, actor: Actor, options: CreateRunOptions = {}) {
  const input = CreateRunInput.parse(raw);
  const spec = await specForRun(deps, input.agent, actor, options.specVersion);
  const scenario: Scenario | null = input.scenario ? normalizeScenario(input.scenario) : null;
  if (input.model && scenario) throw new UnknownModelError(input.model, [], "A run with a scenario plays it on the scripted model; give either model or scenario, not both");
  const model = scenario ? "scripted/run-scenario" : input.model ?? spec.model;
  const teamId = actor.teamIds[0] ?? null;
  // Checked now, so a run never starts with a secret that does not exist or is a provider key.
  // And the admin's scope of each: this agent, this team, and a scenario's commands only where allowed.
  await checkToolSecretNames(deps.db, [...(spec.secrets ?? []), ...(input.secrets ?? [])], { agent: spec.name, teamId, callerCommands: scenario !== null });
  const secrets = [...new Set(input.secrets ?? [])];
  // Resolving now refuses an unknown model, or one outside the team's pool, before anything is written.
  const resolved = deps.router.resolve({ model, taskClass: spec.taskClass, scenario, teamId, complexity: input.complexity ?? null, needsTools: spec.tools.length > 0 });
  const run = await deps.db.run.create({
    data: {
      goal: input.goal,
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
    },
    select: { id: true },
  });
  await deps.store.appendEvents(run.id, [
    event(
      "run.created",
      {
        goal: input.goal,
        agent: spec.name,
        agentVersion: spec.version,
        model,
        modelLabel: resolved.label,
        scripted: resolved.scripted,
        scenarioGiven: !!scenario,
        ...(secrets.length ? { secrets } : {}),
      },
      { actor: actor.userId },
    ),
  ]);
  deps.enqueue(run.id);
  return getRun(deps.db, run.id, actor);
}

function visibleTo(actor: Actor) {
  if (actor.role === "admin") return {};
  return { OR: [{ teamId: { in: actor.teamIds } }, { createdById: actor.userId }] };
}

export async function getRun(db: Db, id: string, actor: Actor) {
  const run = await db.run.findFirst({ where: { id, ...visibleTo(actor) }, select: RUN_SUMMARY });
  if (!run) throw new RunNotFoundError(id);
  return present(run);
}

export async function listRuns(db: Db, raw: ListRunsInput, actor: Actor) {
  const input = ListRunsInput.parse(raw);
  const where = {
    AND: [
      visibleTo(actor),
      input.status?.length ? { status: { in: input.status } } : {},
      input.agent ? { agentName: input.agent } : {},
      input.q ? { goal: { contains: input.q } } : {},
      input.mine ? { createdById: actor.userId } : {},
    ],
  };
  const rows = await db.run.findMany({
    where,
    select: RUN_SUMMARY,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { runs: page.map(present), nextCursor: more ? page[page.length - 1].id : null };
}

export async function listEvents(deps: { db: Db; store: RunStore }, runId: string, after: number, limit: number, actor: Actor): Promise<RunEventRecord[]> {
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
        ...(p.toolCalls.length ? { toolCalls: p.toolCalls.map((c) => ({ tool: c.tool, args: (c.args ?? {}) as Record<string, unknown> })) } : {}),
      });
    }
  }
  return { turns };
}
