// Reading agents as people see them: the spec's fields in AgentSpecInput's
// shape, with its version, team, author and state. Only agents the actor
// may see; drafts never.
import type { Db, Prisma } from "@/server/db";
import type { Actor } from "@/server/identity";
import { SPEC_SELECT, agentVisibleTo, specFromRow, type SpecRow } from "@/server/kernel";
import { AgentError, agentNotFound } from "./errors";
import type { AgentSpecFields } from "./input";

export const VIEW_SELECT = { ...SPEC_SELECT, draft: true, changeNote: true, createdAt: true, createdById: true } as const;
export type ViewRow = Prisma.AgentSpecGetPayload<{ select: typeof VIEW_SELECT }>;

export interface AgentRow {
  name: string;
  teamId: string | null;
  builtIn: boolean;
  archivedAt: Date | null;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** A stored version as AgentSpecInput's fields, in the order a YAML file lists them. */
export function fieldsOf(row: SpecRow, teamId: string | null): AgentSpecFields {
  const spec = specFromRow(row);
  const g = spec.guardrails;
  const complexity = num(g.complexity);
  const guardrails: AgentSpecFields["guardrails"] = {};
  for (const key of ["callCap", "costCeilingUsd", "maxRepeats", "maxFailingSteps"] as const) {
    const value = num(g[key]);
    if (value !== undefined) guardrails[key] = value;
  }
  return {
    name: spec.name,
    description: spec.description,
    model: spec.model,
    taskClass: spec.taskClass,
    ...(complexity !== undefined ? { complexity } : {}),
    tier: spec.tier,
    teamId,
    tools: spec.tools,
    handoffs: spec.handoffs,
    secrets: spec.secrets ?? [],
    ...(spec.hosted ? { hosted: spec.hosted } : {}),
    guardrails,
    instructions: spec.instructions,
  };
}

/** The guardrails JSON a spec's fields are stored as (complexity lives there too; secrets are added by specColumns). */
export function storedGuardrails(fields: AgentSpecFields): Record<string, unknown> {
  return { ...fields.guardrails, ...(fields.complexity !== undefined ? { complexity: fields.complexity } : {}) };
}

/** The agent's own row; a name without one (a built-in before seeding) is everyone's and not archived. */
export async function agentRowOf(db: Db, name: string): Promise<AgentRow | null> {
  const row = await db.agent.findUnique({ where: { name }, select: { name: true, teamId: true, builtIn: true, archivedAt: true } });
  if (row) return row;
  const spec = await db.agentSpec.findFirst({ where: { name, draft: false }, orderBy: { version: "desc" }, select: { builtIn: true } });
  return spec ? { name, teamId: null, builtIn: spec.builtIn, archivedAt: null } : null;
}

/** The agent and its latest saved version, when the actor may see it; else NOT_FOUND (another team's agent looks like none). */
export async function visibleAgent(db: Db, actor: Actor, name: string): Promise<{ agent: AgentRow; latest: ViewRow }> {
  const agent = await agentRowOf(db, name);
  if (!agent || !agentVisibleTo(agent, actor)) throw agentNotFound(name);
  const latest = await db.agentSpec.findFirst({ where: { name, draft: false }, orderBy: { version: "desc" }, select: VIEW_SELECT });
  if (!latest) throw agentNotFound(name);
  return { agent, latest };
}

async function teamsById(db: Db, ids: Array<string | null>) {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  const rows = wanted.length ? await db.team.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } }) : [];
  return new Map(rows.map((t) => [t.id, t]));
}

async function peopleById(db: Db, ids: Array<string | null>) {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  const rows = wanted.length
    ? await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, email: true } })
    : [];
  return new Map(rows.map((u) => [u.id, u.name || u.email]));
}

export type AgentView = AgentSpecFields & {
  version: number;
  draft: boolean;
  builtIn: boolean;
  archived: boolean;
  team: { id: string; name: string } | null;
  changeNote: string;
  createdAt: Date;
  /** Who saved this version, by name; null for Rein's own (built-in) versions. */
  createdBy: string | null;
};

export async function viewOf(db: Db, agent: AgentRow, row: ViewRow): Promise<AgentView> {
  const teams = await teamsById(db, [agent.teamId]);
  const people = await peopleById(db, [row.createdById]);
  return {
    ...fieldsOf(row, agent.teamId),
    version: row.version,
    draft: row.draft,
    builtIn: agent.builtIn || row.builtIn,
    archived: agent.archivedAt !== null,
    team: agent.teamId ? (teams.get(agent.teamId) ?? { id: agent.teamId, name: agent.teamId }) : null,
    changeNote: row.changeNote,
    createdAt: row.createdAt,
    createdBy: row.createdById ? (people.get(row.createdById) ?? null) : null,
  };
}

export interface AgentListItem {
  name: string;
  description: string;
  version: number;
  model: string;
  taskClass: string;
  tier: string;
  team: { id: string; name: string } | null;
  builtIn: boolean;
  archived: boolean;
  updatedAt: Date;
  updatedBy: string | null;
  toolCount: number;
}

const LIST_SELECT = {
  name: true,
  version: true,
  description: true,
  model: true,
  taskClass: true,
  tier: true,
  tools: true,
  builtIn: true,
  createdAt: true,
  createdById: true,
} as const;

function toolCount(json: string): number {
  try {
    const tools: unknown = JSON.parse(json);
    return Array.isArray(tools) ? tools.length : 0;
  } catch {
    return 0;
  }
}

/** The agents the actor sees, by name, each at its latest saved version. */
export async function listAgents(db: Db, actor: Actor, opts: { includeArchived?: boolean } = {}): Promise<AgentListItem[]> {
  // Each agent's latest saved version, without reading every version's instructions.
  const newest = await db.agentSpec.groupBy({ by: ["name"], where: { draft: false, version: { gt: 0 } }, _max: { version: true } });
  const rows = newest.length
    ? await db.agentSpec.findMany({
        where: { OR: newest.map((n) => ({ name: n.name, version: n._max.version! })) },
        select: LIST_SELECT,
        orderBy: { name: "asc" },
      })
    : [];
  const latest = new Map(rows.map((r) => [r.name, r]));
  const agents = new Map(
    (await db.agent.findMany({ select: { name: true, teamId: true, builtIn: true, archivedAt: true } })).map((a) => [a.name, a]),
  );
  const items = [...latest.values()]
    .map((row) => ({ row, agent: agents.get(row.name) ?? { name: row.name, teamId: null, builtIn: row.builtIn, archivedAt: null } }))
    .filter(({ agent }) => agentVisibleTo(agent, actor) && (opts.includeArchived || !agent.archivedAt));
  const teams = await teamsById(
    db,
    items.map((i) => i.agent.teamId),
  );
  const people = await peopleById(
    db,
    items.map((i) => i.row.createdById),
  );
  return items.map(({ row, agent }) => ({
    name: row.name,
    description: row.description,
    version: row.version,
    model: row.model,
    taskClass: row.taskClass,
    tier: row.tier,
    team: agent.teamId ? (teams.get(agent.teamId) ?? { id: agent.teamId, name: agent.teamId }) : null,
    builtIn: agent.builtIn || row.builtIn,
    archived: agent.archivedAt !== null,
    updatedAt: row.createdAt,
    updatedBy: row.createdById ? (people.get(row.createdById) ?? null) : null,
    toolCount: toolCount(row.tools),
  }));
}

export async function getAgent(db: Db, actor: Actor, name: string, version?: number): Promise<AgentView> {
  const { agent, latest } = await visibleAgent(db, actor, name);
  if (version === undefined || version === latest.version) return viewOf(db, agent, latest);
  const row = version > 0 ? await db.agentSpec.findUnique({ where: { name_version: { name, version } }, select: VIEW_SELECT }) : null;
  if (!row || row.draft) throw new AgentError("NOT_FOUND", `The agent ${name} has no version ${version}`);
  return viewOf(db, agent, row);
}

export interface VersionItem {
  version: number;
  changeNote: string;
  createdAt: Date;
  createdBy: string | null;
}

export async function listVersions(db: Db, actor: Actor, name: string): Promise<VersionItem[]> {
  await visibleAgent(db, actor, name);
  const rows = await db.agentSpec.findMany({
    where: { name, draft: false, version: { gt: 0 } },
    select: { version: true, changeNote: true, createdAt: true, createdById: true },
    orderBy: { version: "desc" },
  });
  const people = await peopleById(
    db,
    rows.map((r) => r.createdById),
  );
  return rows.map((r) => ({
    version: r.version,
    changeNote: r.changeNote,
    createdAt: r.createdAt,
    createdBy: r.createdById ? (people.get(r.createdById) ?? null) : null,
  }));
}
