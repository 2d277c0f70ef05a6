// Backfills: the part of a migration that rewrites the rows of a table that grows with use
// (docs/development.md#rewriting-a-large-table). A migration's SQL runs in one transaction; an
// UPDATE of every span or event in it would hold SQLite's write lock, or PostgreSQL's row locks, for
// as long as the whole table takes. So a migration only adds the column, and the backfill declared
// here fills it afterwards in batches of a few thousand rows, each batch its own short transaction,
// saying how far it is. A backfill stopped half-way (a crash, Ctrl-C) goes on from the last batch
// it committed. `npm run db:migrate` (and so `npm start` and `npm run up`) runs the backfills the
// database lacks after its migrations; a server does not start while one is unfinished.
//
// Self-contained (node:* , pg and better-sqlite3 only) so that plain Node runs it directly, as it
// runs server/db/migrate-postgres.ts.
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";

export interface Backfill {
  /** Unique, and never renamed: the progress table keeps it. */
  name: string;
  /** The migration that added what this fills: the backfill runs once that migration is applied. */
  migration: string;
  table: string;
  /** A single-column key of the table (unique, indexed), which the batches walk in order; per dialect if they differ. */
  key: string | Record<Dialect, string>;
  /** What it does, in words, for the progress lines: "span durations for the span search". */
  says: string;
  /** The SET clause and an optional filter of the rows to rewrite, per dialect. */
  set?: Record<Dialect, string>;
  where?: Record<Dialect, string>;
  /**
   * Instead of rewriting rows in place: moves every row of `table` into the table `into` (these
   * columns), a batch per transaction, deleting each batch from `table`, and drops `table` when it
   * is empty. For a table whose key changes: the migration renames the old table and creates the
   * new one, and this fills it (on SQLite the freed pages take the moved rows, so the file barely grows).
   */
  move?: { into: string; columns: readonly string[] };
  /**
   * A query (the same SQL on both databases) that returns a row while some row still needs this
   * backfill. When it returns none, the backfill is not pending: a database migrated empty (a fresh
   * install, a test's) starts without running it. Keep it cheap, over an index.
   */
  left?: string;
}

type Dialect = "sqlite" | "postgres";

/**
 * The tables that grow with use. A migration that rewrites one of them (an UPDATE, a DELETE, or
 * SQLite's copy of a table into a new one) is refused by test/migrations.test.ts: its rows are
 * rewritten by a backfill instead.
 */
export const LARGE_TABLES = [
  "Run",
  "RunTag",
  "RunEvent",
  "Checkpoint",
  "ToolCallResult",
  "HumanRequest",
  "ResumeToken",
  "AuditEntry",
  "Span",
  "SpanRollup",
  "CostRollup",
  "ExperimentTrial",
  "FrictionOccurrence",
  "ImprovementUse",
  "ChangeCheck",
  "OutboxMessage",
  "WebhookDelivery",
  "WebhookAttempt",
  "ChannelMessage",
  "SlackSeenAction",
  "Memory",
] as const;

/** Every backfill, oldest first. */
export const BACKFILLS: readonly Backfill[] = [
  {
    name: "audit-team",
    migration: "20270101090000_audit_team",
    table: "AuditEntry",
    key: "id",
    says: "the team of each audit row, from its run",
    set: {
      sqlite: `"teamId" = (SELECT r."teamId" FROM "Run" r WHERE r."id" = "AuditEntry"."runId")`,
      postgres: `"teamId" = (SELECT r."teamId" FROM "Run" r WHERE r."id" = "AuditEntry"."runId")`,
    },
    where: {
      sqlite: `"teamId" IS NULL AND "runId" IS NOT NULL`,
      postgres: `"teamId" IS NULL AND "runId" IS NOT NULL`,
    },
    // Over the (teamId, id) index: only rows without a team are looked at.
    left: `SELECT 1 AS "left" FROM "AuditEntry" a WHERE a."teamId" IS NULL AND a."runId" IS NOT NULL AND EXISTS (SELECT 1 FROM "Run" r WHERE r."id" = a."runId" AND r."teamId" IS NOT NULL) LIMIT 1`,
  },
  {
    // Span's key became (runId, spanId) (docs/performance.md#span-ingest-and-search); the migration
    // left the spans written before it in the old table under this name.
    name: "span-key",
    migration: "20270102120000_span_key",
    table: "_rein_spans_to_move",
    // On SQLite the row id: the order the spans were written in, so the new table's indexes take
    // them as they take new spans, at a few places, not at random.
    key: { sqlite: "rowid", postgres: "spanId" },
    says: "spans into their table keyed by run",
    move: {
      into: "Span",
      // The columns as this migration left them, written out rather than the sinks' list: a column added
      // later is its own migration's to fill, and this move must copy what the old table has.
      columns: [
        "spanId",
        "traceId",
        "parentSpanId",
        "runId",
        "kind",
        "name",
        "startTime",
        "endTime",
        "durationMs",
        "status",
        "teamId",
        "workflowId",
        "userId",
        "model",
        "tool",
        "inputTokens",
        "outputTokens",
        "cachedInputTokens",
        "costUsd",
        "attributes",
        "detail",
      ],
    },
    left: `SELECT 1 AS "left" FROM "_rein_spans_to_move" LIMIT 1`,
  },
];

export const DEFAULT_BATCH_ROWS = 2_000;
/** A progress line at most this often while a backfill runs (and one when it ends). */
const SAY_EVERY_MS = 2_000;
const LOCK_NAMESPACE = 0x5245494e; // "REIN", as in server/db/migrate-postgres.ts
const BACKFILL_LOCK = 2;
const PROGRESS_TABLE = "_rein_backfills";

export interface BackfillOptions {
  backfills?: readonly Backfill[];
  batchRows?: number;
  say?: (line: string) => void;
  /** Tests: stop (as a crash would) after this many batches, counted over the whole call. */
  stopAfterBatches?: number;
}

export interface BackfillResult {
  /** The backfills this call finished, with the rows each rewrote over all its calls. */
  finished: Array<{ name: string; rows: number }>;
  /** Stopped by stopAfterBatches before it was done. */
  stopped: string | null;
}

/** One connection to either database, with the few operations a backfill needs. */
interface Conn {
  dialect: Dialect;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `work` in one transaction that holds the write lock from its start. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** Runs one statement; the rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

function quote(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `"${name}"`;
}

/** `$1, $2 …` for PostgreSQL; SQLite's driver takes `?` in the same order. */
function placeholders(dialect: Dialect, sql: string): string {
  return dialect === "postgres" ? sql : sql.replace(/\$\d+/g, "?");
}

async function connect(databaseUrl: string): Promise<Conn> {
  if (databaseUrl.startsWith("file:")) {
    const db = new Database(path.resolve(databaseUrl.slice("file:".length)), { fileMustExist: true, timeout: 15_000 });
    db.pragma("journal_mode = WAL");
    const one = (sql: string) => db.prepare(placeholders("sqlite", sql));
    return {
      dialect: "sqlite",
      all: async <T>(sql: string, params: unknown[] = []) => one(sql).all(...params) as T[],
      run: async (sql, params = []) => one(sql).run(...params).changes,
      // better-sqlite3 is synchronous, so the work's statements run before any other of this
      // process; IMMEDIATE takes the write lock first, so two processes never read the same cursor.
      transaction: async (work) => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const out = await work();
          db.exec("COMMIT");
          return out;
        } catch (err) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw err;
        }
      },
      close: async () => void db.close(),
    };
  }
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get("schema") ?? "public";
  url.searchParams.delete("schema");
  const client = new pg.Client({
    connectionString: url.toString(),
    options: `-c search_path=${quote(schema)}`,
    connectionTimeoutMillis: 10_000,
  });
  await client.connect();
  return {
    dialect: "postgres",
    all: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    run: async (sql, params = []) => (await client.query(sql, params)).rowCount ?? 0,
    transaction: async (work) => {
      await client.query("BEGIN");
      try {
        const out = await work();
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    },
    close: () => client.end(),
  };
}

interface Progress {
  name: string;
  /** The last key rewritten, as JSON (keys are text or whole numbers). */
  cursor: string | null;
  /** Rows changed, and rows gone through, so far. */
  rows: number | string;
  walked: number | string;
  finished_at: string | null;
}

async function appliedMigrations(conn: Conn): Promise<Set<string>> {
  try {
    const rows = await conn.all<{ migration_name: string }>(
      `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    return new Set(rows.map((r) => r.migration_name));
  } catch {
    return new Set();
  }
}

/** The backfills whose migration the database has and which have not finished: a server does not start on them. */
export async function unfinishedBackfills(
  query: (sql: string) => Promise<Array<{ name: string; finished_at: unknown }>>,
  applied: readonly string[],
  backfills: readonly Backfill[] = BACKFILLS,
): Promise<string[]> {
  const due = backfills.filter((b) => applied.includes(b.migration));
  if (!due.length) return [];
  let done = new Set<string>();
  try {
    done = new Set((await query(`SELECT name, finished_at FROM "${PROGRESS_TABLE}"`)).filter((r) => r.finished_at).map((r) => r.name));
  } catch {
    // No progress table yet: none has run.
  }
  const unfinished: string[] = [];
  for (const b of due) {
    if (done.has(b.name)) continue;
    if (b.left && (await query(b.left)).length === 0) continue;
    unfinished.push(b.name);
  }
  return unfinished;
}

const count = (n: number) => n.toLocaleString("en-US");
const keyOf = (b: Backfill, dialect: Dialect) => (typeof b.key === "string" ? b.key : b.key[dialect]);

/**
 * A move backfill: each batch, in one transaction, copies the first rows of the table by its key
 * into the new table and deletes them, so a stop half-way loses nothing and moves nothing twice;
 * the empty table is then dropped.
 */
async function moveRows(
  conn: Conn,
  b: Backfill,
  move: NonNullable<Backfill["move"]>,
  run: { batchRows: number; say: (line: string) => void; stopAfter?: number; batches: number },
): Promise<{ rows: number; batches: number; stopped: boolean }> {
  const table = quote(b.table);
  const key = quote(keyOf(b, conn.dialect));
  const columns = move.columns.map(quote).join(", ");
  const [{ n: leftRows }] = await conn.all<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
  const [p] = await conn.all<Progress>(`SELECT * FROM "${PROGRESS_TABLE}" WHERE "name" = $1`, [b.name]);
  const total = Number(leftRows) + Number(p?.walked ?? 0);
  run.say(`Moving ${b.table} (${b.says}) in batches of ${count(run.batchRows)} rows: ${count(Number(leftRows))} rows to move`);
  let batches = run.batches;
  let lastSaid = Date.now();
  for (;;) {
    if (run.stopAfter !== undefined && batches >= run.stopAfter) return { rows: 0, batches, stopped: true };
    const step = await conn.transaction(async () => {
      const [last] = await conn.all<{ k: unknown }>(`SELECT ${key} AS k FROM ${table} ORDER BY ${key} LIMIT 1 OFFSET ${run.batchRows - 1}`);
      const upTo = last?.k ?? (await conn.all<{ k: unknown }>(`SELECT max(${key}) AS k FROM ${table}`))[0]?.k ?? null;
      const [now] = await conn.all<Progress>(`SELECT * FROM "${PROGRESS_TABLE}" WHERE "name" = $1`, [b.name]);
      const rows = Number(now?.rows ?? 0);
      if (upTo === null) {
        await conn.run(`DROP TABLE ${table}`);
        await conn.run(`UPDATE "${PROGRESS_TABLE}" SET "finished_at" = $1 WHERE "name" = $2`, [new Date().toISOString(), b.name]);
        return { done: true, rows };
      }
      const moved = await conn.run(
        `INSERT INTO ${quote(move.into)} (${columns}) SELECT ${columns} FROM ${table} WHERE ${key} <= $1 ORDER BY ${key}`,
        [upTo],
      );
      const deleted = await conn.run(`DELETE FROM ${table} WHERE ${key} <= $1`, [upTo]);
      if (deleted !== moved) throw new Error(`moved ${moved} rows of ${b.table} but deleted ${deleted}`);
      await conn.run(`UPDATE "${PROGRESS_TABLE}" SET "rows" = $1, "walked" = $2 WHERE "name" = $3`, [
        rows + moved,
        Number(now?.walked ?? 0) + moved,
        b.name,
      ]);
      return { done: false, rows: rows + moved };
    });
    if (step.done) {
      run.say(`Moved ${b.table} (${b.says}): ${count(step.rows)} rows`);
      return { rows: step.rows, batches, stopped: false };
    }
    batches++;
    if (Date.now() - lastSaid >= SAY_EVERY_MS) {
      lastSaid = Date.now();
      const share = total ? Math.min(100, Math.floor((step.rows / total) * 100)) : 100;
      run.say(`Moving ${b.table}: ${count(step.rows)} of ${count(total)} rows (${share}%)`);
    }
  }
}

/** Runs the backfills the database lacks, in order; see the head of this file. */
export async function runBackfills(databaseUrl: string, options: BackfillOptions = {}): Promise<BackfillResult> {
  const { backfills = BACKFILLS, batchRows = DEFAULT_BATCH_ROWS, say = console.log } = options;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw new Error(`batchRows must be a positive whole number, got ${batchRows}`);
  const result: BackfillResult = { finished: [], stopped: null };
  if (!backfills.length) return result;
  const conn = await connect(databaseUrl);
  const q = conn.dialect === "postgres";
  try {
    if (q) {
      const [turn] = await conn.all<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1::int, $2::int) AS ok`, [
        LOCK_NAMESPACE,
        BACKFILL_LOCK,
      ]);
      if (!turn?.ok) {
        say("Another process is rewriting tables for this upgrade; waiting for it to finish");
        await conn.all(`SELECT pg_advisory_lock($1::int, $2::int)`, [LOCK_NAMESPACE, BACKFILL_LOCK]);
      }
    }
    await conn.run(
      `CREATE TABLE IF NOT EXISTS "${PROGRESS_TABLE}" ("name" TEXT PRIMARY KEY, "cursor" TEXT, "rows" BIGINT NOT NULL DEFAULT 0, "walked" BIGINT NOT NULL DEFAULT 0, "finished_at" TEXT)`,
    );
    const applied = await appliedMigrations(conn);
    let batches = 0;
    for (const b of backfills) {
      if (!applied.has(b.migration)) continue;
      const [seen] = await conn.all<Progress>(`SELECT * FROM "${PROGRESS_TABLE}" WHERE "name" = $1`, [b.name]);
      if (seen?.finished_at) continue;
      if (!seen) await conn.run(`INSERT INTO "${PROGRESS_TABLE}" ("name") VALUES ($1)`, [b.name]);
      if (b.left && (await conn.all(b.left)).length === 0) {
        // Nothing to rewrite (a database migrated empty): finished without walking the table.
        await conn.transaction(async () => {
          if (b.move) await conn.run(`DROP TABLE IF EXISTS ${quote(b.table)}`);
          await conn.run(`UPDATE "${PROGRESS_TABLE}" SET "finished_at" = $1 WHERE "name" = $2`, [new Date().toISOString(), b.name]);
        });
        result.finished.push({ name: b.name, rows: Number(seen?.rows ?? 0) });
        continue;
      }
      if (b.move) {
        const moved = await moveRows(conn, b, b.move, { batchRows, say, stopAfter: options.stopAfterBatches, batches });
        batches = moved.batches;
        if (moved.stopped) {
          result.stopped = b.name;
          return result;
        }
        result.finished.push({ name: b.name, rows: moved.rows });
        continue;
      }
      if (!b.set) throw new Error(`backfill ${b.name} neither sets nor moves rows`);
      const table = quote(b.table);
      const key = quote(keyOf(b, conn.dialect));
      const filter = b.where ? ` AND (${b.where[conn.dialect]})` : "";
      const [{ n: totalRows }] = await conn.all<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`);
      const total = Number(totalRows);
      say(`Rewriting ${b.table} (${b.says}) in batches of ${count(batchRows)} rows: ${count(total)} rows to go through`);
      let lastSaid = Date.now();
      for (;;) {
        if (options.stopAfterBatches !== undefined && batches >= options.stopAfterBatches) {
          result.stopped = b.name;
          return result;
        }
        // One batch: read the cursor, find the batch's last key, rewrite the rows up to it, move the cursor.
        const step = await conn.transaction(async () => {
          const [p] = await conn.all<Progress>(`SELECT * FROM "${PROGRESS_TABLE}" WHERE "name" = $1`, [b.name]);
          const after: unknown = p?.cursor == null ? null : JSON.parse(p.cursor);
          const from = after === null ? "" : ` WHERE ${key} > $1`;
          const args = after === null ? [] : [after];
          const [last] = await conn.all<{ k: unknown }>(
            `SELECT ${key} AS k FROM ${table}${from} ORDER BY ${key} LIMIT 1 OFFSET ${batchRows - 1}`,
            args,
          );
          let upTo = last?.k ?? null;
          let walked = batchRows;
          if (upTo === null) {
            // The last batch, shorter than the others.
            const [rest] = await conn.all<{ k: unknown; n: number | string }>(
              `SELECT max(${key}) AS k, count(*) AS n FROM ${table}${from}`,
              args,
            );
            upTo = rest?.k ?? null;
            walked = Number(rest?.n ?? 0);
          }
          const rows = Number(p?.rows ?? 0);
          const seen = Number(p?.walked ?? 0) + walked;
          if (upTo === null) {
            await conn.run(`UPDATE "${PROGRESS_TABLE}" SET "finished_at" = $1 WHERE "name" = $2`, [new Date().toISOString(), b.name]);
            return { done: true, rows, walked: seen };
          }
          const bounds = after === null ? `${key} <= $1` : `${key} > $1 AND ${key} <= $2`;
          const changed = await conn.run(`UPDATE ${table} SET ${b.set![conn.dialect]} WHERE ${bounds}${filter}`, [...args, upTo]);
          await conn.run(`UPDATE "${PROGRESS_TABLE}" SET "cursor" = $1, "rows" = $2, "walked" = $3 WHERE "name" = $4`, [
            JSON.stringify(upTo),
            rows + changed,
            seen,
            b.name,
          ]);
          return { done: false, rows: rows + changed, walked: seen };
        });
        if (step.done) {
          say(`Rewrote ${b.table} (${b.says}): ${count(step.rows)} rows changed`);
          result.finished.push({ name: b.name, rows: step.rows });
          break;
        }
        batches++;
        if (Date.now() - lastSaid >= SAY_EVERY_MS) {
          lastSaid = Date.now();
          const share = total ? Math.min(100, Math.floor((step.walked / total) * 100)) : 100;
          say(`Rewriting ${b.table}: ${count(step.walked)} of ${count(total)} rows (${share}%)`);
        }
      }
    }
    return result;
  } finally {
    if (q) await conn.all(`SELECT pg_advisory_unlock($1::int, $2::int)`, [LOCK_NAMESPACE, BACKFILL_LOCK]).catch(() => {});
    await conn.close();
  }
}

// `node server/db/backfill.ts` (scripts/db-migrate.sh, after the migrations): fills DATABASE_URL's new columns.
if (/^backfill\.[cm]?[jt]s$/.test(path.basename(process.argv[1] ?? ""))) {
  runBackfills(process.env.DATABASE_URL ?? "").then(
    () => {},
    (err: Error) => {
      console.error(
        `Rewriting a table for this upgrade failed; what was done is kept, and npm run db:migrate goes on from there: ${err.message}`,
      );
      process.exit(1);
    },
  );
}
