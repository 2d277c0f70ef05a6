// Full-text search over memories, ranked, with no service outside the
// database: SQLite FTS5 ranked with bm25(), PostgreSQL's text search (a GIN
// index over to_tsvector, ranked with ts_rank_cd).
//
// Why the index is created here, idempotently, and not in a migration: FTS5
// is a virtual table with five shadow tables, none of which Prisma's schema
// can express; test/architecture.test.ts checks that SQLite and PostgreSQL
// migrations create the same tables and columns, which extra SQLite-only
// tables would break, and tests copy a template database migrated once.
// Creating the index on first use (memoized per client) works the same on a
// fresh database, a test copy and an upgraded one (rows already there are
// indexed when the table is first created).
import type { Db } from "@/server/db";
import { dbDialect } from "@/server/db";
import { MAX_QUERY_CHARS } from "./types";

const ready = new WeakMap<object, Promise<void>>();

/** Creates the full-text index and its triggers once per database client. */
export function ensureSearchIndex(db: Db): Promise<void> {
  let p = ready.get(db);
  if (!p) {
    p = (dbDialect(db) === "postgres" ? ensurePostgres(db) : ensureSqlite(db)).catch((err) => {
      ready.delete(db);
      throw err;
    });
    ready.set(db, p);
  }
  return p;
}

async function ensureSqlite(db: Db): Promise<void> {
  const exists = await db.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'MemoryFts'`,
  );
  if (exists.length) return;
  // External content: the text lives once, in "Memory"; the index is keyed by
  // its rowid (stable: Rein never runs VACUUM, and a rebuild re-reads rowids).
  await db.$transaction([
    // teamId is indexed too, so a run's search intersects its team's rows
    // inside the index instead of ranking every team's matches first.
    db.$executeRawUnsafe(
      `CREATE VIRTUAL TABLE IF NOT EXISTS "MemoryFts" USING fts5(title, text, teamId, content='Memory', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2')`,
    ),
    db.$executeRawUnsafe(`CREATE TRIGGER IF NOT EXISTS "Memory_fts_ai" AFTER INSERT ON "Memory" BEGIN
      INSERT INTO "MemoryFts"(rowid, title, text, teamId) VALUES (new.rowid, new.title, new.text, new.teamId); END`),
    db.$executeRawUnsafe(`CREATE TRIGGER IF NOT EXISTS "Memory_fts_ad" AFTER DELETE ON "Memory" BEGIN
      INSERT INTO "MemoryFts"("MemoryFts", rowid, title, text, teamId) VALUES ('delete', old.rowid, old.title, old.text, old.teamId); END`),
    // Only a change of the searched text or the team touches the index (uses and pins do not).
    db.$executeRawUnsafe(`CREATE TRIGGER IF NOT EXISTS "Memory_fts_au" AFTER UPDATE OF title, text, teamId ON "Memory" BEGIN
      INSERT INTO "MemoryFts"("MemoryFts", rowid, title, text, teamId) VALUES ('delete', old.rowid, old.title, old.text, old.teamId);
      INSERT INTO "MemoryFts"(rowid, title, text, teamId) VALUES (new.rowid, new.title, new.text, new.teamId); END`),
    db.$executeRawUnsafe(`INSERT INTO "MemoryFts"("MemoryFts") VALUES ('rebuild')`),
  ]);
}

const PG_VECTOR = `to_tsvector('english', "title" || ' ' || "text")`;

async function ensurePostgres(db: Db): Promise<void> {
  try {
    await db.$executeRawUnsafe(`CREATE INDEX IF NOT EXISTS "Memory_fts_idx" ON "Memory" USING GIN (${PG_VECTOR})`);
  } catch (err) {
    // Another process created it at the same moment.
    if (!/already exists|duplicate key/i.test(String((err as Error).message))) throw err;
  }
}

/**
 * What a person or an agent typed, as search terms: words of letters and
 * digits only, so nothing of the text is ever read as FTS5 or tsquery syntax
 * (quotes, NEAR, *, ^, column filters, OR/AND/NOT as operators).
 */
export function searchTerms(text: string): string[] {
  const words =
    text
      .slice(0, MAX_QUERY_CHARS)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    const term = w.slice(0, 64);
    if (!out.includes(term)) out.push(term);
    if (out.length === 32) break;
  }
  return out;
}

/** The terms as an FTS5 query: each one a quoted string, any of them may match (bm25 ranks rows with more first). */
export function fts5Query(terms: string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}

/** The terms as a tsquery: letters and digits joined by "|" (terms hold nothing else). */
export function tsQuery(terms: string[]): string {
  return terms
    .map((t) => t.replace(/[^\p{L}\p{N}]/gu, ""))
    .filter(Boolean)
    .join(" | ");
}

/** A condition on "Memory" (alias m), with `?` placeholders. */
export interface SqlFilter {
  sql: string;
  params: unknown[];
}

export function and(...parts: SqlFilter[]): SqlFilter {
  const kept = parts.filter((p) => p.sql);
  return { sql: kept.map((p) => `(${p.sql})`).join(" AND "), params: kept.flatMap((p) => p.params) };
}

/** `?` placeholders become $1, $2… on PostgreSQL. */
function numbered(db: Db, sql: string): string {
  if (dbDialect(db) !== "postgres") return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * Ids of memories matching the terms and the filter, best first. `teamId`
 * (when the filter keeps only that team's rows) narrows the search inside the
 * index as well; the filter still decides.
 */
export async function rankedIds(
  db: Db,
  terms: string[],
  filter: SqlFilter,
  limit: number,
  teamId?: string | null,
): Promise<Array<{ id: string; rank: number }>> {
  if (!terms.length) return [];
  await ensureSearchIndex(db);
  const where = filter.sql ? ` AND ${filter.sql}` : "";
  if (dbDialect(db) === "postgres") {
    const q = tsQuery(terms);
    if (!q) return [];
    const sql = `SELECT m."id" AS id, ts_rank_cd(${PG_VECTOR.replace(/"(title|text)"/g, 'm."$1"')}, query, 1) AS rank
      FROM "Memory" m, to_tsquery('english', ?) query
      WHERE ${PG_VECTOR.replace(/"(title|text)"/g, 'm."$1"')} @@ query${where}
      ORDER BY rank DESC, m."updatedAt" DESC LIMIT ?`;
    const rows = await db.$queryRawUnsafe<Array<{ id: string; rank: number }>>(numbered(db, sql), q, ...filter.params, limit);
    return rows.map((r) => ({ id: r.id, rank: Number(r.rank) }));
  }
  // bm25() is lower for better matches; the title weighs twice the text, the team nothing.
  const sql = `SELECT m."id" AS id, bm25("MemoryFts", 2.0, 1.0, 0.0) AS rank
    FROM "MemoryFts" JOIN "Memory" m ON m.rowid = "MemoryFts".rowid
    WHERE "MemoryFts" MATCH ?${where}
    ORDER BY rank ASC, m."updatedAt" DESC LIMIT ?`;
  const words = `{title text} : (${fts5Query(terms)})`;
  const match = teamId ? `teamId : "${teamId.replace(/"/g, '""')}" AND ${words}` : words;
  const rows = await db.$queryRawUnsafe<Array<{ id: string; rank: number }>>(sql, match, ...filter.params, limit);
  return rows.map((r) => ({ id: r.id, rank: -Number(r.rank) }));
}

/** The same question answered by a plain LIKE scan (the bench's baseline). */
export async function likeScanIds(db: Db, terms: string[], filter: SqlFilter, limit: number): Promise<string[]> {
  if (!terms.length) return [];
  const like = terms.map(() => `(m."title" LIKE ? OR m."text" LIKE ?)`).join(" OR ");
  const where = filter.sql ? ` AND ${filter.sql}` : "";
  const sql = `SELECT m."id" AS id FROM "Memory" m WHERE (${like})${where} ORDER BY m."updatedAt" DESC LIMIT ?`;
  const rows = await db.$queryRawUnsafe<Array<{ id: string }>>(
    numbered(db, sql),
    ...terms.flatMap((t) => [`%${t}%`, `%${t}%`]),
    ...filter.params,
    limit,
  );
  return rows.map((r) => r.id);
}
