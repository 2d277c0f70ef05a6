// Skills as people see them (the Skills page, REST): one entry per name with
// its current version, how runs that loaded it ended against runs in its
// scope that did not, and how many runs' prompts left it out for lack of room.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { TERMINAL_STATES, runsVisibleTo } from "@/server/kernel";
import { visibleImprovements } from "../improvements/service";
import { jsonList, SkillError } from "./library";

const MAX_OMITTED_EVENTS = 5_000;

export interface SkillOutcomes {
  runs: number;
  succeeded: number;
  /** succeeded / runs, or null with no ended runs. */
  successRate: number | null;
}

const outcomes = (runs: number, succeeded: number): SkillOutcomes => ({ runs, succeeded, successRate: runs ? succeeded / runs : null });

/** How many runs left each skill out of their prompt, from the `skills.omitted` events. */
async function omittedCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.runEvent.findMany({
    where: { type: "skills.omitted" },
    select: { payload: true },
    orderBy: { id: "desc" },
    take: MAX_OMITTED_EVENTS,
  });
  const counts = new Map<string, number>();
  for (const r of rows) {
    const names = jsonList(JSON.stringify((JSON.parse(r.payload) as { names?: unknown }).names ?? []));
    for (const n of new Set(names)) counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  return counts;
}

/** Ended runs that loaded one of these versions, and ended runs in the scope that did not, since the first version. */
async function statsOf(db: Db, actor: Actor, ids: string[], scope: { agents: string[]; teams: string[] }, since: Date) {
  const uses = await db.improvementUse.findMany({ where: { improvementId: { in: ids } }, select: { runId: true } });
  const loaded = [...new Set(uses.map((u) => u.runId))];
  // Outcomes of the runs the person may see, as on the Runs page.
  const ended = { status: { in: [...TERMINAL_STATES] }, ...runsVisibleTo(actor) };
  const [loadedRuns, loadedOk] = await Promise.all([
    db.run.count({ where: { id: { in: loaded }, ...ended } }),
    db.run.count({ where: { id: { in: loaded }, status: "succeeded", ...runsVisibleTo(actor) } }),
  ]);
  const others = {
    id: { notIn: loaded },
    createdAt: { gte: since },
    ...(scope.agents.length ? { agentName: { in: scope.agents } } : {}),
    ...(scope.teams.length ? { teamId: { in: scope.teams } } : {}),
  };
  const [otherRuns, otherOk] = await Promise.all([
    db.run.count({ where: { ...others, ...ended } }),
    db.run.count({ where: { ...others, status: "succeeded", ...runsVisibleTo(actor) } }),
  ]);
  return { useCount: uses.length, loaded: outcomes(loadedRuns, loadedOk), notLoaded: outcomes(otherRuns, otherOk) };
}

const VERSION_SELECT = {
  id: true,
  name: true,
  version: true,
  state: true,
  stateReason: true,
  description: true,
  scopeAgents: true,
  scopeTeams: true,
  tags: true,
  authorRunId: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Who wrote each version: a person by name, or the improver run that proposed it. */
async function authorNames(db: Db, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(users.map((u) => [u.id, u.name]));
}

export async function listSkills(db: Db, actor: Actor) {
  const rows = await db.improvement.findMany({
    where: { AND: [{ kind: "skill" }, visibleImprovements(actor)] },
    select: VERSION_SELECT,
    orderBy: [{ name: "asc" }, { version: "desc" }],
  });
  const byName = new Map<string, typeof rows>();
  for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  const omitted = await omittedCounts(db);
  const names = await authorNames(
    db,
    rows.map((r) => r.createdById),
  );
  const skills = [];
  for (const [name, versions] of byName) {
    const current = versions.find((v) => v.state === "active") ?? versions[0];
    const scope = { agents: jsonList(current.scopeAgents), teams: jsonList(current.scopeTeams) };
    const first = versions[versions.length - 1].createdAt;
    const stats = await statsOf(
      db,
      actor,
      versions.map((v) => v.id),
      scope,
      first,
    );
    skills.push({
      name,
      version: current.version,
      id: current.id,
      state: current.state,
      stateReason: current.stateReason,
      description: current.description,
      scope,
      tags: jsonList(current.tags),
      versions: versions.length,
      updatedAt: current.updatedAt,
      omittedRuns: omitted.get(name) ?? 0,
      ...stats,
      authorRunId: current.authorRunId,
      authorName: current.createdById ? (names.get(current.createdById) ?? null) : null,
    });
  }
  return skills;
}

export async function getSkill(db: Db, actor: Actor, name: string) {
  const versions = await db.improvement.findMany({
    where: { AND: [{ kind: "skill", name }, visibleImprovements(actor)] },
    orderBy: { version: "desc" },
  });
  if (!versions.length) throw new SkillError("NOT_FOUND", `There is no skill "${name}" you can see`);
  const current = versions.find((v) => v.state === "active") ?? versions[0];
  const uses = await db.improvementUse.findMany({
    where: { improvementId: { in: versions.map((v) => v.id) } },
    orderBy: { createdAt: "desc" },
    take: 50,
    select: { runId: true, toolCallId: true, improvementId: true, createdAt: true },
  });
  const runs = await db.run.findMany({
    where: { AND: [{ id: { in: [...new Set(uses.map((u) => u.runId))] } }, runsVisibleTo(actor)] },
    select: { id: true, agentName: true, goal: true, status: true, teamId: true, createdAt: true },
  });
  const runById = new Map(runs.map((r) => [r.id, r]));
  const versionOf = new Map(versions.map((v) => [v.id, v.version]));
  const scope = { agents: jsonList(current.scopeAgents), teams: jsonList(current.scopeTeams) };
  const names = await authorNames(
    db,
    versions.map((v) => v.createdById),
  );
  return {
    name,
    current: {
      id: current.id,
      version: current.version,
      state: current.state,
      stateReason: current.stateReason,
      description: current.description,
      source: current.source,
      scope,
      tags: jsonList(current.tags),
      review: current.review ? (JSON.parse(current.review) as unknown) : null,
    },
    versions: versions.map((v) => ({
      id: v.id,
      version: v.version,
      state: v.state,
      stateReason: v.stateReason,
      createdAt: v.createdAt,
      createdById: v.createdById,
      authorRunId: v.authorRunId,
      authorName: v.createdById ? (names.get(v.createdById) ?? null) : null,
      review: v.review ? (JSON.parse(v.review) as unknown) : null,
    })),
    // Only the runs the person may see: a skill for everyone is loaded by every team's runs.
    loadedBy: uses
      .filter((u) => runById.has(u.runId))
      .map((u) => ({
        runId: u.runId,
        version: versionOf.get(u.improvementId) ?? null,
        toolCallId: u.toolCallId,
        at: u.createdAt,
        run: runById.get(u.runId) ?? null,
      })),
    omittedRuns: (await omittedCounts(db)).get(name) ?? 0,
    ...(await statsOf(
      db,
      actor,
      versions.map((v) => v.id),
      scope,
      versions[versions.length - 1].createdAt,
    )),
  };
}
