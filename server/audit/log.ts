// Writing and reading audit rows, newest first, paged by id.
import type { z } from "zod";
import { dbDialect, textSearch, type Db, type Prisma } from "@/server/db";
import { AuditFilter, type AuditInput, type AuditPage, type AuditPerson, type AuditRecord } from "./types";

/**
 * The database or a transaction: audit rows can be written inside the change they record. With `run`,
 * a row about a run without a team given gets the run's team.
 */
export type AuditDb = Pick<Db, "auditEntry"> & Partial<Pick<Db, "run">>;

const COLUMNS = {
  id: true,
  at: true,
  kind: true,
  actorId: true,
  actorName: true,
  onBehalfOf: true,
  channel: true,
  runId: true,
  teamId: true,
  requestId: true,
  subject: true,
  fromState: true,
  toState: true,
  detail: true,
} as const;

type Row = Prisma.AuditEntryGetPayload<{ select: typeof COLUMNS }>;

function present(row: Row): AuditRecord {
  let detail: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(row.detail);
    detail = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    detail = { unparsed: row.detail };
  }
  return { ...row, detail };
}

/** The team a row is about: the one given (null: none), else its run's. */
async function teamOf(db: AuditDb, entry: AuditInput): Promise<string | null> {
  if (entry.teamId !== undefined) return entry.teamId;
  if (!entry.runId || !db.run) return null;
  return (await db.run.findUnique({ where: { id: entry.runId }, select: { teamId: true } }))?.teamId ?? null;
}

export async function recordAudit(db: AuditDb, entry: AuditInput): Promise<AuditRecord> {
  if (!entry.kind?.trim()) throw new Error("An audit entry needs a kind");
  const teamId = await teamOf(db, entry);
  const row = await db.auditEntry.create({
    data: {
      ...(entry.at ? { at: entry.at } : {}),
      kind: entry.kind,
      actorId: entry.actorId ?? null,
      actorName: entry.actorName ?? null,
      onBehalfOf: entry.onBehalfOf ?? null,
      channel: entry.channel ?? null,
      runId: entry.runId ?? null,
      teamId,
      requestId: entry.requestId ?? null,
      subject: entry.subject ?? null,
      fromState: entry.fromState ?? null,
      toState: entry.toState ?? null,
      detail: JSON.stringify(entry.detail ?? {}),
    },
    select: COLUMNS,
  });
  return present(row);
}

type ParsedFilter = z.output<typeof AuditFilter>;

/** Kinds too many to list in one query: past this, the prefix is not a useful filter. */
const MAX_KINDS = 500;

/**
 * The kinds starting with `prefix`, exactly: LIKE with the prefix's own %, _
 * and \ escaped (hostile input matches only itself). The distinct kinds are
 * found by seeking the (kind) index from one kind to the next, a few dozen
 * seeks however many rows there are; a LIKE over the column itself read every
 * row on PostgreSQL (docs/performance.md#a-year-of-data).
 */
export async function kindsStartingWith(db: Pick<Db, "$queryRawUnsafe">, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const pg = dbDialect(db as Db) === "postgres";
  const rows = await db.$queryRawUnsafe<Array<{ kind: string }>>(
    `WITH RECURSIVE kinds("kind") AS (
       SELECT MIN("kind") FROM "AuditEntry"
       UNION ALL
       SELECT (SELECT MIN(a."kind") FROM "AuditEntry" a WHERE a."kind" > kinds."kind") FROM kinds WHERE kinds."kind" IS NOT NULL
     )
     SELECT "kind" FROM kinds WHERE "kind" LIKE ${pg ? "$1" : "?"} ESCAPE '\\' LIMIT ${MAX_KINDS}`,
    pattern,
  );
  return rows.map((r) => r.kind);
}

/** The kind filter as a prefix: "request" and "request.*" both find request.transition, ... */
export function kindPrefix(kind: string): string {
  return kind.endsWith("*") ? kind.slice(0, -1) : kind;
}

function auditWhere(db: AuditDb, f: ParsedFilter, kinds: string[] | null): Prisma.AuditEntryWhereInput {
  const and: Prisma.AuditEntryWhereInput[] = [];
  if (kinds) and.push({ kind: { in: kinds } });
  // Spelled out so a row without a toState is kept (SQL's NOT of a NULL comparison would drop it).
  if (f.hideRoutine) and.push({ OR: [{ kind: { not: "policy.decision" } }, { toState: null }, { toState: { not: "allow" } }] });
  if (f.runId) and.push({ runId: f.runId });
  if (f.teamId) and.push({ teamId: f.teamId });
  if (f.requestId) and.push({ requestId: f.requestId });
  if (f.actorId) and.push({ actorId: f.actorId });
  if (f.channel) and.push({ channel: f.channel });
  if (f.from) and.push({ at: { gte: f.from } });
  if (f.to) and.push({ at: { lte: f.to } });
  if (f.q) and.push({ OR: [{ subject: textSearch(db, f.q) }, { actorName: textSearch(db, f.q) }, { detail: textSearch(db, f.q) }] });
  if (f.cursor) and.push({ id: { lt: f.cursor } });
  return and.length ? { AND: and } : {};
}

/** One page of a validated filter; `limit` may exceed the API's cap (exports read big pages). */
export async function auditPage(db: AuditDb, f: ParsedFilter, limit = f.limit): Promise<AuditPage> {
  const kinds = f.kind ? await kindsStartingWith(db as unknown as Db, kindPrefix(f.kind)) : null;
  if (kinds && kinds.length === 0) return { entries: [], nextCursor: null };
  const rows = await db.auditEntry.findMany({ where: auditWhere(db, f, kinds), orderBy: { id: "desc" }, take: limit + 1, select: COLUMNS });
  const page = rows.slice(0, limit).map(present);
  return { entries: page, nextCursor: rows.length > limit ? page[page.length - 1].id : null };
}

/** The people a page names (actors and on-whose-behalf), by user id, for showing names with their e-mail on hover. */
async function peopleOf(db: Pick<Db, "user">, entries: AuditRecord[]): Promise<Record<string, AuditPerson>> {
  const ids = [
    ...new Set(
      entries.flatMap((e) => [e.actorId, e.onBehalfOf]).filter((id): id is string => !!id && id !== "system" && !id.includes(":")),
    ),
  ];
  if (!ids.length) return {};
  const users = await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } });
  return Object.fromEntries(users.map((u) => [u.id, { name: u.name, email: u.email }]));
}

/** The names of the teams a page names, by id. */
async function teamsOf(db: Pick<Db, "team">, entries: AuditRecord[]): Promise<Record<string, string>> {
  const ids = [...new Set(entries.map((e) => e.teamId).filter((id): id is string => !!id))];
  if (!ids.length) return {};
  const teams = await db.team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return Object.fromEntries(teams.map((t) => [t.id, t.name]));
}

export async function listAudit(db: AuditDb & Pick<Db, "user" | "team">, filter: AuditFilter = {}): Promise<AuditPage> {
  const page = await auditPage(db, AuditFilter.parse(filter));
  const [people, teams] = await Promise.all([peopleOf(db, page.entries), teamsOf(db, page.entries)]);
  return { ...page, people, teams };
}

export function parseAuditFilter(filter: AuditFilter): ParsedFilter {
  return AuditFilter.parse(filter);
}

/** Saves a setting row (JSON) an admin changed, with its audit entry: "settings.updated", the key as subject. */
export async function saveAuditedSetting(
  db: Pick<Db, "setting" | "auditEntry">,
  key: string,
  value: unknown,
  actor: { id: string; name: string },
  detail: Record<string, unknown>,
): Promise<void> {
  const json = JSON.stringify(value);
  await db.setting.upsert({
    where: { key },
    create: { key, value: json, updatedById: actor.id },
    update: { value: json, updatedById: actor.id },
  });
  await recordAudit(db, { kind: "settings.updated", actorId: actor.id, actorName: actor.name, channel: "admin", subject: key, detail });
}
