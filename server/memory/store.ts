// MemoryStore: memories in the database, scoped by team like runs are
// (runsVisibleTo): admins see all; others their teams' memories and the
// team-less ones of runs they launched. A run sees only its own team's.
import type { Db, Prisma } from "@/server/db";
import { roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { recordAudit } from "@/server/audit";
import { and, rankedIds, searchTerms, type SqlFilter } from "./search";
import { scenarioMemoriesShared } from "./sharing";
import {
  ListMemoriesInput,
  MAX_MEMORY_TEXT,
  MAX_MEMORY_TITLE,
  MemoryError,
  UpdateMemoryInput,
  type MemoryKind,
  type MemoryOrigin,
  type MemoryRunScope,
  type MemoryScope,
  type MemoryState,
  type MemoryView,
} from "./types";

type Row = Prisma.MemoryGetPayload<object>;

export interface NewMemory {
  scope: MemoryScope;
  kind: MemoryKind;
  title: string;
  text: string;
  agentName: string;
  teamId: string | null;
  ownerId?: string | null;
  state?: MemoryState;
  pinned?: boolean;
  sourceRunId?: string | null;
  createdBy: string;
  origin?: MemoryOrigin;
  /** A save made again (a replayed tool call, a run ending twice) finds this key and writes nothing new. */
  key?: string | null;
}

export function toView(r: Row): MemoryView {
  return {
    id: r.id,
    scope: r.scope as MemoryScope,
    agentName: r.agentName,
    teamId: r.teamId,
    ownerId: r.ownerId,
    kind: r.kind as MemoryKind,
    title: r.title,
    text: r.text,
    state: r.state as MemoryState,
    pinned: r.pinned,
    sourceRunId: r.sourceRunId,
    requestId: r.requestId,
    createdBy: r.createdBy,
    origin: r.origin === "scenario" ? "scenario" : "agent",
    decidedById: r.decidedById,
    decidedAt: r.decidedAt,
    uses: r.uses,
    lastUsedAt: r.lastUsedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** The memories a person may see. */
export function memoriesVisibleTo(actor: Actor): Prisma.MemoryWhereInput {
  if (actor.role === "admin") return {};
  return { OR: [{ teamId: { in: actor.teamIds } }, { teamId: null, ownerId: actor.userId }] };
}

/**
 * The memories a run may load or recall: active, of its team (or its
 * launcher's when it has none), its agent's or the team's; a scenario run's
 * memories only in that run unless the team shares them.
 */
export function memoriesOfRun(run: MemoryRunScope): Prisma.MemoryWhereInput {
  return {
    state: "active",
    ...(run.teamId ? { teamId: run.teamId } : { teamId: null, ownerId: run.ownerId ?? "\u0000no-owner" }),
    AND: [
      { OR: [{ scope: "team" }, { scope: "agent", agentName: run.agentName }] },
      run.scenarioShared ? {} : { OR: [{ origin: "agent" }, { sourceRunId: run.runId ?? "\u0000no-run" }] },
    ],
  };
}

/** memoriesOfRun as SQL over "Memory" m, for ranked search. */
function runFilter(run: MemoryRunScope): SqlFilter {
  const team: SqlFilter = run.teamId
    ? { sql: `m."teamId" = ?`, params: [run.teamId] }
    : { sql: `m."teamId" IS NULL AND m."ownerId" = ?`, params: [run.ownerId ?? "\u0000no-owner"] };
  return and(
    { sql: `m."state" = ?`, params: ["active"] },
    team,
    { sql: `m."scope" = ? OR (m."scope" = ? AND m."agentName" = ?)`, params: ["team", "agent", run.agentName] },
    run.scenarioShared
      ? { sql: "", params: [] }
      : { sql: `m."origin" = ? OR m."sourceRunId" = ?`, params: ["agent", run.runId ?? "\u0000no-run"] },
  );
}

function actorFilter(actor: Actor): SqlFilter {
  if (actor.role === "admin") return { sql: "", params: [] };
  const teams = actor.teamIds.length ? `m."teamId" IN (${actor.teamIds.map(() => "?").join(", ")}) OR ` : "";
  return { sql: `${teams}(m."teamId" IS NULL AND m."ownerId" = ?)`, params: [...actor.teamIds, actor.userId] };
}

function inputFilter(input: ListMemoriesInput): SqlFilter {
  const parts: SqlFilter[] = [];
  if (input.agent) parts.push({ sql: `m."agentName" = ?`, params: [input.agent] });
  if (input.kind) parts.push({ sql: `m."kind" = ?`, params: [input.kind] });
  if (input.state) parts.push({ sql: `m."state" = ?`, params: [input.state] });
  if (input.scope) parts.push({ sql: `m."scope" = ?`, params: [input.scope] });
  if (input.teamId) parts.push({ sql: `m."teamId" = ?`, params: [input.teamId] });
  if (input.pinned !== undefined) parts.push({ sql: `m."pinned" = ?`, params: [input.pinned] });
  return and(...parts);
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A title from the text's first line, when the agent gave none. */
export function titleOf(text: string): string {
  return clip(text.trim().split("\n")[0].replace(/\s+/g, " "), 80) || "Untitled";
}

export interface MemoryStoreDeps {
  db: Db;
  now?: () => Date;
}

export class MemoryStore {
  constructor(readonly deps: MemoryStoreDeps) {}

  private get db() {
    return this.deps.db;
  }

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  async create(m: NewMemory): Promise<{ memory: MemoryView; created: boolean }> {
    if (m.key) {
      const existing = await this.db.memory.findUnique({ where: { key: m.key } });
      if (existing) return { memory: toView(existing), created: false };
    }
    try {
      const row = await this.db.memory.create({
        data: {
          scope: m.scope,
          kind: m.kind,
          title: clip(m.title.trim() || titleOf(m.text), MAX_MEMORY_TITLE),
          text: clip(m.text, MAX_MEMORY_TEXT),
          agentName: m.agentName,
          teamId: m.teamId,
          ownerId: m.teamId ? null : (m.ownerId ?? null),
          state: m.state ?? "active",
          pinned: m.pinned ?? false,
          sourceRunId: m.sourceRunId ?? null,
          createdBy: m.createdBy,
          origin: m.origin ?? "agent",
          key: m.key ?? null,
        },
      });
      return { memory: toView(row), created: true };
    } catch (err) {
      // The same key written at the same moment by another process.
      const again = m.key ? await this.db.memory.findUnique({ where: { key: m.key } }) : null;
      if (again) return { memory: toView(again), created: false };
      throw err;
    }
  }

  /** Without access checks: for the kernel's own use. */
  async get(id: string): Promise<MemoryView | null> {
    const row = await this.db.memory.findUnique({ where: { id } });
    return row ? toView(row) : null;
  }

  async findByKey(key: string): Promise<MemoryView | null> {
    const row = await this.db.memory.findUnique({ where: { key } });
    return row ? toView(row) : null;
  }

  /** Rewrites a memory kept under this key (an episode written again when its run ends again). */
  async replaceByKey(key: string, patch: { title: string; text: string }): Promise<MemoryView | null> {
    const res = await this.db.memory.updateMany({
      where: { key },
      data: { title: clip(patch.title, MAX_MEMORY_TITLE), text: clip(patch.text, MAX_MEMORY_TEXT) },
    });
    return res.count ? this.findByKey(key) : null;
  }

  async getFor(actor: Actor, id: string): Promise<MemoryView> {
    const row = await this.db.memory.findFirst({ where: { id, ...memoriesVisibleTo(actor) } });
    if (!row) throw new MemoryError("NOT_FOUND", `There is no memory ${id}`);
    return toView(row);
  }

  /** The Memory page: newest first, or best match first with `q`; pinned ones lead either way. */
  async list(actor: Actor, raw: ListMemoriesInput): Promise<{ items: MemoryView[]; nextCursor: string | null }> {
    const input = ListMemoriesInput.parse(raw);
    const limit = input.limit ?? 50;
    const terms = input.q ? searchTerms(input.q) : [];
    if (input.q && terms.length) {
      const ranked = await rankedIds(this.db, terms, and(actorFilter(actor), inputFilter(input)), limit);
      const rows = await this.db.memory.findMany({ where: { id: { in: ranked.map((r) => r.id) } } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return {
        items: ranked
          .map((r) => byId.get(r.id))
          .filter((r): r is Row => !!r)
          .map(toView),
        nextCursor: null,
      };
    }
    if (input.q) return { items: [], nextCursor: null }; // only punctuation: nothing to search for
    const where: Prisma.MemoryWhereInput = {
      AND: [
        memoriesVisibleTo(actor),
        input.agent ? { agentName: input.agent } : {},
        input.kind ? { kind: input.kind } : {},
        input.state ? { state: input.state } : {},
        input.scope ? { scope: input.scope } : {},
        input.teamId ? { teamId: input.teamId } : {},
        input.pinned !== undefined ? { pinned: input.pinned } : {},
      ],
    };
    const rows = await this.db.memory.findMany({
      where,
      orderBy: [{ pinned: "desc" }, { updatedAt: "desc" }, { id: "desc" }],
      take: limit + 1,
      ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
    });
    const page = rows.slice(0, limit);
    return { items: page.map(toView), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
  }

  /** Editing needs the operator role in the memory's team (a team-less one: its owner, or an admin). */
  private async editable(actor: Actor, id: string): Promise<Row> {
    const row = await this.db.memory.findFirst({ where: { id, ...memoriesVisibleTo(actor) } });
    if (!row) throw new MemoryError("NOT_FOUND", `There is no memory ${id}`);
    const role = roleIn(actor, row.teamId);
    if (!role || !roleAtLeast(role, "operator"))
      throw new MemoryError(
        "FORBIDDEN",
        `Changing a memory needs the operator role${row.teamId ? " in its team" : ""}; you are ${role ?? "not in its team"}`,
      );
    return row;
  }

  async update(
    actor: Actor,
    id: string,
    raw: UpdateMemoryInput & { state?: "active" | "rejected" },
    channel = "inbox",
  ): Promise<MemoryView> {
    const patch = UpdateMemoryInput.parse({ title: raw.title, text: raw.text, kind: raw.kind, pinned: raw.pinned });
    const row = await this.editable(actor, id);
    const decide = raw.state && raw.state !== row.state ? raw.state : undefined;
    if (decide && !["active", "rejected"].includes(decide))
      throw new MemoryError("INVALID_INPUT", `state can be set to active or rejected, not ${decide}`);
    const updated = await this.db.memory.update({
      where: { id },
      data: { ...patch, ...(decide ? { state: decide, decidedById: actor.userId, decidedAt: this.now() } : {}) },
    });
    await recordAudit(this.db, {
      kind: "memory.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      runId: row.sourceRunId,
      subject: updated.title,
      ...(decide ? { fromState: row.state, toState: decide } : {}),
      detail: { memoryId: id, fields: Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined) },
    });
    return toView(updated);
  }

  async setPinned(actor: Actor, id: string, pinned: boolean, channel = "inbox"): Promise<MemoryView> {
    return this.update(actor, id, { pinned }, channel);
  }

  async remove(actor: Actor, id: string, channel = "inbox"): Promise<{ id: string; deleted: true }> {
    const row = await this.editable(actor, id);
    await this.db.memory.delete({ where: { id } });
    await recordAudit(this.db, {
      kind: "memory.deleted",
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      runId: row.sourceRunId,
      subject: row.title,
      detail: { memoryId: id, kind: row.kind, scope: row.scope, teamId: row.teamId },
    });
    return { id, deleted: true };
  }

  /** Active memories of the run's agent and team that match the query, best first; each counts as used. */
  /** The run's scope with its team's sharing of scenario memories read now (a setting changed mid-run counts at once). */
  private async withSharing(run: MemoryRunScope): Promise<MemoryRunScope> {
    if (run.scenarioShared !== undefined) return run;
    return { ...run, scenarioShared: run.teamId ? await scenarioMemoriesShared(this.db, run.teamId) : false };
  }

  async recall(query: string, scope: MemoryRunScope, limit = 5): Promise<Array<MemoryView & { rank: number }>> {
    const run = await this.withSharing(scope);
    const ranked = await rankedIds(this.db, searchTerms(query), runFilter(run), Math.min(Math.max(limit, 1), 20), run.teamId);
    if (!ranked.length) return [];
    const rows = await this.db.memory.findMany({ where: { id: { in: ranked.map((r) => r.id) }, ...memoriesOfRun(run) } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const found = ranked.flatMap((r) => (byId.has(r.id) ? [{ ...toView(byId.get(r.id)!), rank: r.rank }] : []));
    await this.markUsed(found.map((m) => m.id));
    return found;
  }

  /** Pinned memories of the run's scope (the prompt loader puts them first). */
  async pinnedFor(scope: MemoryRunScope, limit = 50): Promise<MemoryView[]> {
    const run = await this.withSharing(scope);
    const rows = await this.db.memory.findMany({
      where: { ...memoriesOfRun(run), pinned: true },
      orderBy: [{ updatedAt: "desc" }],
      take: limit,
    });
    return rows.map(toView);
  }

  /** The run's memories most relevant to a text (its goal), best first; not counted as used. */
  async relevantTo(text: string, scope: MemoryRunScope, limit = 50): Promise<MemoryView[]> {
    const run = await this.withSharing(scope);
    const ranked = await rankedIds(this.db, searchTerms(text), runFilter(run), limit, run.teamId);
    if (!ranked.length) return [];
    const rows = await this.db.memory.findMany({ where: { id: { in: ranked.map((r) => r.id) }, ...memoriesOfRun(run) } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ranked.flatMap((r) => (byId.has(r.id) ? [toView(byId.get(r.id)!)] : []));
  }

  async markUsed(ids: string[]): Promise<void> {
    if (ids.length)
      await this.db.memory.updateMany({ where: { id: { in: ids } }, data: { uses: { increment: 1 }, lastUsedAt: this.now() } });
  }

  /** A person kept or discarded a pending memory (its confirmation request). */
  async settle(id: string, keep: boolean, by: string | null): Promise<boolean> {
    const res = await this.db.memory.updateMany({
      where: { id, state: "pending" },
      data: { state: keep ? "active" : "rejected", decidedById: by, decidedAt: this.now() },
    });
    return res.count === 1;
  }

  async setRequest(id: string, requestId: string): Promise<void> {
    await this.db.memory.update({ where: { id }, data: { requestId } });
  }
}
