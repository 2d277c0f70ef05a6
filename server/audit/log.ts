// Writing and reading audit rows, newest first, paged by id.
import type { z } from "zod";
import { textSearch, type Db, type Prisma } from "@/server/db";
import { AuditFilter, type AuditInput, type AuditPage, type AuditRecord } from "./types";

/** The database or a transaction: audit rows can be written inside the change they record. */
export type AuditDb = Pick<Db, "auditEntry">;

const COLUMNS = {
  id: true, at: true, kind: true, actorId: true, actorName: true, onBehalfOf: true, channel: true,
  runId: true, requestId: true, subject: true, fromState: true, toState: true, detail: true,
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

export async function recordAudit(db: AuditDb, entry: AuditInput): Promise<AuditRecord> {
  if (!entry.kind?.trim()) throw new Error("An audit entry needs a kind");
  const row = await db.auditEntry.create({
    data: {
      ...(entry.at ? { at: entry.at } : {}),
      kind: entry.kind,
      actorId: entry.actorId ?? null,
      actorName: entry.actorName ?? null,
      onBehalfOf: entry.onBehalfOf ?? null,
      channel: entry.channel ?? null,
      runId: entry.runId ?? null,
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

function auditWhere(db: AuditDb, f: ParsedFilter): Prisma.AuditEntryWhereInput {
  const and: Prisma.AuditEntryWhereInput[] = [];
  // "user.*" is every kind of that family (user.created, user.disabled, ...).
  if (f.kind) and.push(f.kind.endsWith(".*") ? { kind: { startsWith: f.kind.slice(0, -1) } } : { kind: f.kind });
  if (f.runId) and.push({ runId: f.runId });
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
  const rows = await db.auditEntry.findMany({ where: auditWhere(db, f), orderBy: { id: "desc" }, take: limit + 1, select: COLUMNS });
  const page = rows.slice(0, limit).map(present);
  return { entries: page, nextCursor: rows.length > limit ? page[page.length - 1].id : null };
}

export async function listAudit(db: AuditDb, filter: AuditFilter = {}): Promise<AuditPage> {
  return auditPage(db, AuditFilter.parse(filter));
}

export function parseAuditFilter(filter: AuditFilter): ParsedFilter {
  return AuditFilter.parse(filter);
}
