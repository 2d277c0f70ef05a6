// Improvements as people see them (the Improvements page, REST, CLI): the
// list with filters, one improvement with its versions, cases, uses, origin
// friction and cycle, and the actions by role. Scoped by team like runs: an
// improvement made for a team is seen by that team's members and admins.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { textSearch, type Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { roleAcross, roleAtLeast, type Actor, type Role } from "@/server/identity";
import { visibleRunIds } from "./visibility";
import { storedCaseRun } from "../runtime-tools/cases";
import { canImprovementGo, improvementSourcesOf, trustScore, IMPROVEMENT_STATES, IMPROVEMENT_KINDS, type ImprovementState } from "./states";

export class ImprovementError extends DomainError {
  constructor(code: "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT", message: string) {
    super(code, message);
    this.name = "ImprovementError";
  }
}

export const ListImprovementsInput = z
  .object({
    kind: z.enum(IMPROVEMENT_KINDS).optional(),
    tier: z.number().int().min(1).max(4).optional(),
    state: z.enum(IMPROVEMENT_STATES).optional(),
    agent: z.string().trim().max(100).optional(),
    q: z.string().trim().max(200).optional(),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().max(64).optional(),
  })
  .strict();
export type ListImprovementsInput = z.input<typeof ListImprovementsInput>;

const SUMMARY = {
  id: true,
  tier: true,
  kind: true,
  name: true,
  version: true,
  state: true,
  stateReason: true,
  description: true,
  scopeAgents: true,
  scopeTeams: true,
  tags: true,
  frictionId: true,
  cycleId: true,
  authorRunId: true,
  createdById: true,
  costUsd: true,
  uses: true,
  successes: true,
  promoted: true,
  promotionAskedAt: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
  replayClass: true,
  capabilities: true,
} as const;

const list = (json: string | null): string[] => {
  try {
    const v = JSON.parse(json ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

/** Improvements a person may see: admins all; others those for everyone or for one of their teams. */
export function visibleImprovements(actor: Actor) {
  if (actor.role === "admin") return {};
  return { OR: [{ scopeTeams: "[]" }, ...actor.teamIds.map((t) => ({ scopeTeams: { contains: JSON.stringify(t) } }))] };
}

/**
 * Names of live runtime tools made for teams the person is not in. A runtime
 * tool is its team's improvement, so lists of tools leave these out as the
 * Improvements pages do (docs/security.md#skill-and-tool-names).
 */
export async function hiddenRuntimeToolNames(db: Db, actor: Actor): Promise<Set<string>> {
  if (actor.role === "admin") return new Set();
  const live = { kind: "runtime_tool", state: "active" };
  const [all, seen] = await Promise.all([
    db.improvement.findMany({ where: live, select: { name: true } }),
    db.improvement.findMany({ where: { AND: [live, visibleImprovements(actor)] }, select: { name: true } }),
  ]);
  const visible = new Set(seen.map((r) => r.name));
  return new Set(all.map((r) => r.name).filter((name) => !visible.has(name)));
}

function summaryOf<
  T extends { scopeAgents: string; scopeTeams: string; tags: string; capabilities: string; uses: number; successes: number },
>(row: T) {
  return {
    ...row,
    scopeAgents: list(row.scopeAgents),
    scopeTeams: list(row.scopeTeams),
    tags: list(row.tags),
    capabilities: list(row.capabilities),
    trust: trustScore(row.uses, row.successes),
  };
}

export async function listImprovements(db: Db, actor: Actor, raw: ListImprovementsInput) {
  const input = ListImprovementsInput.parse(raw);
  const where = {
    AND: [
      visibleImprovements(actor),
      input.kind ? { kind: input.kind } : {},
      input.tier ? { tier: input.tier } : {},
      input.state ? { state: input.state } : {},
      input.agent ? { scopeAgents: { contains: JSON.stringify(input.agent) } } : {},
      input.q ? { OR: [{ name: textSearch(db, input.q) }, { description: textSearch(db, input.q) }] } : {},
    ],
  };
  const rows = await db.improvement.findMany({
    where,
    select: SUMMARY,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const more = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  return { improvements: page.map(summaryOf), nextCursor: more ? page[page.length - 1].id : null };
}

async function visibleRow(db: Db, actor: Actor, id: string) {
  const row = await db.improvement.findFirst({ where: { AND: [{ id }, visibleImprovements(actor)] } });
  if (!row) throw new ImprovementError("NOT_FOUND", `There is no improvement ${id} you can see`);
  return row;
}

export async function getImprovement(db: Db, actor: Actor, id: string) {
  const row = await visibleRow(db, actor, id);
  const [versions, uses, friction, cycle] = await Promise.all([
    db.improvement.findMany({
      where: { kind: row.kind, name: row.name },
      select: { id: true, version: true, state: true, createdAt: true },
      orderBy: { version: "desc" },
    }),
    db.improvementUse.findMany({
      where: { improvementId: id },
      orderBy: { createdAt: "desc" },
      take: 50,
      select: { id: true, runId: true, toolCallId: true, ok: true, error: true, durationMs: true, createdAt: true },
    }),
    row.frictionId
      ? db.friction.findUnique({ where: { id: row.frictionId }, include: { items: { orderBy: { createdAt: "desc" }, take: 10 } } })
      : null,
    row.cycleId ? db.hackCycle.findUnique({ where: { id: row.cycleId } }) : null,
  ]);
  // Uses and friction come from every team's runs: only those the person may see are shown.
  const seen = await visibleRunIds(db, actor, [...uses.map((u) => u.runId), ...(friction?.items.map((i) => i.runId) ?? [])]);
  const previous = await db.improvement.findFirst({
    where: { kind: row.kind, name: row.name, version: { lt: row.version } },
    orderBy: { version: "desc" },
    select: { id: true, version: true, source: true },
  });
  return {
    ...summaryOf(row),
    source: row.source,
    argsSchema: row.argsSchema ? (JSON.parse(row.argsSchema) as unknown) : null,
    cases: JSON.parse(row.cases) as unknown[],
    caseResults: storedCaseRun(row.caseResults),
    review: row.review ? (JSON.parse(row.review) as unknown) : null,
    previous,
    versions,
    // `uses` is the recent calls here; the count stays readable as useCount.
    useCount: row.uses,
    uses: uses.filter((u) => seen.has(u.runId)),
    friction: friction && {
      id: friction.id,
      kind: friction.kind,
      title: friction.title,
      tool: friction.tool,
      state: friction.state,
      occurrences: friction.occurrences,
      runCount: friction.runCount,
      firstSeenAt: friction.firstSeenAt,
      lastSeenAt: friction.lastSeenAt,
      items: friction.items
        .filter((i) => seen.has(i.runId))
        .map((i) => ({ runId: i.runId, count: i.count, createdAt: i.createdAt, evidence: JSON.parse(i.evidence) as unknown[] })),
    },
    cycle: cycle && {
      id: cycle.id,
      state: cycle.state,
      attempts: cycle.attempts,
      reason: cycle.reason,
      improverRunId: cycle.improverRunId,
      sessionRunId: cycle.sessionRunId,
      createdAt: cycle.createdAt,
      endedAt: cycle.endedAt,
      deadlineAt: cycle.deadlineAt,
    },
  };
}

export type ImprovementAction = "disable" | "enable" | "promote" | "delete";

/** Who may do what: anyone who runs agents may switch a tool off; turning one on or keeping it needs an approver; deleting an admin. */
export const ACTION_ROLE: Record<ImprovementAction, Role> = {
  disable: "operator",
  enable: "approver",
  promote: "approver",
  delete: "admin",
};

export interface ImprovementActionDeps {
  db: Db;
  /** The live registry: a disabled or deleted tool leaves it at once; an enabled one comes back. */
  unload(name: string): void;
  load(id: string): Promise<void>;
  promote(id: string, by: { id: string; name: string }, channel: string): Promise<boolean>;
}

export async function actOnImprovement(
  deps: ImprovementActionDeps,
  actor: Actor,
  id: string,
  action: ImprovementAction,
  channel: string,
  reason?: string,
) {
  const { db } = deps;
  const row = await visibleRow(db, actor, id);
  // Switching one off is safe with the role in any of its teams; anything else reaches every team it is for.
  const teams = list(row.scopeTeams);
  const each = action !== "disable" && teams.length > 1;
  const have = roleAcross(actor, teams, each ? "each" : "any");
  const needed = ACTION_ROLE[action];
  if (!have || !roleAtLeast(have, needed))
    throw new ImprovementError(
      "FORBIDDEN",
      `To ${action} an improvement you need the ${needed} role${each ? " in each of its teams" : have ? `; you are ${have}` : " in its team"}`,
    );
  const by = { id: actor.userId, name: actor.name };
  const subject = `${row.name} v${row.version}`;
  const move = async (to: ImprovementState, data: Record<string, unknown> = {}) => {
    if (!canImprovementGo(row.state as ImprovementState, to))
      throw new ImprovementError("CONFLICT", `A ${row.state} improvement cannot be ${action}d`);
    const res = await db.improvement.updateMany({
      where: { id, state: { in: improvementSourcesOf(to) } },
      data: { state: to, stateReason: reason?.slice(0, 500) || `${action}d by ${actor.name}`, ...data },
    });
    if (res.count !== 1) throw new ImprovementError("CONFLICT", "The improvement changed meanwhile; reload and try again");
  };
  switch (action) {
    case "disable":
      await move("disabled");
      if (row.kind === "runtime_tool") deps.unload(row.name);
      break;
    case "enable": {
      const other = await db.improvement.findFirst({
        where: { kind: row.kind, name: row.name, state: "active", id: { not: id } },
        select: { version: true },
      });
      if (other) throw new ImprovementError("CONFLICT", `Version ${other.version} of ${row.name} is active; disable it first`);
      // A re-enabled runtime tool gets a new TTL unless it was promoted.
      await move(
        "active",
        row.kind === "runtime_tool" ? { expiresAt: row.promoted ? null : new Date(Date.now() + 7 * 24 * 3600_000) } : {},
      );
      if (row.kind === "runtime_tool") await deps.load(id);
      break;
    }
    case "promote":
      if (row.kind !== "runtime_tool") throw new ImprovementError("INVALID_INPUT", "Only runtime tools are promoted; skills do not expire");
      if (row.state !== "active") throw new ImprovementError("CONFLICT", `A ${row.state} runtime tool cannot be promoted; enable it first`);
      if (row.promoted) throw new ImprovementError("CONFLICT", `${subject} is already promoted`);
      await deps.promote(id, by, channel);
      return getImprovement(db, actor, id);
    case "delete":
      if (row.kind === "runtime_tool" && row.state === "active") deps.unload(row.name);
      await db.improvement.delete({ where: { id } });
      break;
  }
  await recordAudit(db, {
    kind: `improvement.${action}d`,
    actorId: by.id,
    actorName: by.name,
    channel,
    subject,
    detail: { improvementId: id, kind: row.kind, ...(reason ? { reason } : {}) },
  });
  return action === "delete" ? null : getImprovement(db, actor, id);
}
