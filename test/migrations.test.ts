// Migrations that rewrite large tables run in batches and say so (docs/development.md#rewriting-a-large-table):
// a migration may not rewrite a table that grows with use in its one transaction; a backfill
// (server/db/backfill.ts) fills the rows afterwards, a batch per short transaction, saying how far it
// is, and goes on from its last batch after a crash. A server does not start while one is unfinished.
// The backfill runs on SQLite and PostgreSQL.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrationState, runBackfills, BACKFILLS, LARGE_TABLES, type Backfill } from "@/server/db";
import { createSqliteTestDb, type TestDb } from "./helpers/db";
import { createPgTestDb } from "./helpers/pg";
import { makeTempDir } from "./helpers/db";

/** The newest migration written before the rule; those up to it ran on every database long ago. */
const BEFORE_THE_RULE = "20261230090000_retention";
const DIRS = [path.resolve("prisma", "migrations"), path.resolve("prisma", "postgres", "migrations")];

/** What a migration's SQL rewrites of the large tables: "UPDATE Span", "copies Run into a new table", … */
function largeRewrites(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, "");
  const large = new Set<string>(LARGE_TABLES);
  const found: string[] = [];
  const look = (re: RegExp, says: (table: string) => string) => {
    for (const m of code.matchAll(re)) if (large.has(m[1])) found.push(says(m[1]));
  };
  look(/\bUPDATE\s+"(\w+)"/gi, (t) => `UPDATE ${t}`);
  look(/\bDELETE\s+FROM\s+"(\w+)"/gi, (t) => `DELETE FROM ${t}`);
  look(/\bINSERT\s+INTO\s+"new_(\w+)"/gi, (t) => `copies ${t} into a new table`);
  look(/\bALTER\s+TABLE\s+"(\w+)"\s+ALTER\s+COLUMN\s+"\w+"\s+(?:SET\s+DATA\s+)?TYPE\b/gi, (t) => `changes a column's type in ${t}`);
  return found;
}

describe("the rule", () => {
  it("no migration since the rule rewrites a large table in its one transaction", () => {
    const offending: string[] = [];
    for (const dir of DIRS)
      for (const name of fs.readdirSync(dir).filter((n) => n > BEFORE_THE_RULE && !n.endsWith(".toml"))) {
        const found = largeRewrites(fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"));
        if (found.length)
          offending.push(
            `${path.relative(process.cwd(), path.join(dir, name))}: ${found.join(", ")}: add the column in the migration and fill it with a backfill in server/db/backfill.ts`,
          );
      }
    expect(offending).toEqual([]);
  });

  it("finds the rewrites the migrations before it made", () => {
    const read = (name: string) => fs.readFileSync(path.join(DIRS[0], name, "migration.sql"), "utf8");
    expect(largeRewrites(read("20261203090000_span_search"))).toEqual(["UPDATE Span"]);
    expect(largeRewrites(read("20261228090000_run_duration"))).toEqual(["UPDATE Run", "UPDATE Run"]);
    expect(largeRewrites(read("20261122300000_telemetry"))).toContain("copies Run into a new table");
    expect(largeRewrites(`-- UPDATE "Span" in a comment\nUPDATE "Setting" SET value = '1';`)).toEqual([]);
    expect(largeRewrites(`ALTER TABLE "RunEvent" ALTER COLUMN "type" SET DATA TYPE TEXT;`)).toEqual([
      "changes a column's type in RunEvent",
    ]);
  });
});

const DATABASES = [
  { name: "SQLite", open: () => createSqliteTestDb() },
  { name: "PostgreSQL", open: () => createPgTestDb(makeTempDir("rein-backfill-")) },
];

describe.each(DATABASES)("a backfill on $name", ({ open }) => {
  let t: TestDb;
  afterEach(async () => {
    await t?.cleanup();
  });

  // Fills AuditEntry.subject (a whole-number key) of the rows of one kind, as a backfill of the last migration would.
  const FILL: Backfill = {
    name: "test-audit-subject",
    migration: BEFORE_THE_RULE,
    table: "AuditEntry",
    key: "id",
    says: "audit subjects for the test",
    set: { sqlite: `"subject" = 'filled:' || "kind"`, postgres: `"subject" = 'filled:' || "kind"` },
    where: { sqlite: `"kind" LIKE 'test.%'`, postgres: `"kind" LIKE 'test.%'` },
  };
  // And Span.name's copy into Span.tool (a text key), to walk a table keyed by text.
  const COPY: Backfill = {
    name: "test-span-copy",
    migration: BEFORE_THE_RULE,
    table: "Span",
    key: "spanId",
    says: "span names copied for the test",
    set: { sqlite: `"tool" = "name"`, postgres: `"tool" = "name"` },
  };

  it("fills a large table in batches, says how far it is, goes on after a crash, and holds the server back until done", async () => {
    t = await open();
    const db = t.db;
    await db.auditEntry.createMany({
      data: [...Array.from({ length: 23 }, (_, i) => ({ kind: `test.${i % 3}` })), ...Array.from({ length: 4 }, () => ({ kind: "other" }))],
    });
    await db.span.createMany({
      data: Array.from({ length: 9 }, (_, i) => ({
        spanId: `s${String(i).padStart(3, "0")}`,
        traceId: "t",
        runId: "r",
        workflowId: "w",
        attributes: "{}",
        name: `chat ${i}`,
        kind: "chat",
        startTime: new Date(),
      })),
    });
    const migrations = path.resolve("prisma", ...(t.url.startsWith("file:") ? ["migrations"] : ["postgres", "migrations"]));
    const backfills = [FILL, COPY];
    // Applied but not filled: the server would not start.
    expect((await migrationState(db, migrations, backfills)).pending).toEqual(["backfill test-audit-subject", "backfill test-span-copy"]);

    // Three batches of five, then a crash.
    const said: string[] = [];
    const first = await runBackfills(t.url, { backfills, batchRows: 5, stopAfterBatches: 3, say: (l) => said.push(l) });
    expect(first).toEqual({ finished: [], stopped: "test-audit-subject" });
    expect(said[0]).toBe("Rewriting AuditEntry (audit subjects for the test) in batches of 5 rows: 27 rows to go through");
    const filled = await db.auditEntry.count({ where: { subject: { startsWith: "filled:" } } });
    expect(filled).toBeGreaterThan(0);
    expect(filled).toBeLessThan(23);
    expect((await migrationState(db, migrations, backfills)).pending).toEqual(["backfill test-audit-subject", "backfill test-span-copy"]);

    // Started again: from the last batch it committed, nothing twice, then the next backfill.
    said.length = 0;
    const second = await runBackfills(t.url, { backfills, batchRows: 5, say: (l) => said.push(l) });
    expect(second).toEqual({
      finished: [
        { name: "test-audit-subject", rows: 23 },
        { name: "test-span-copy", rows: 9 },
      ],
      stopped: null,
    });
    expect(said).toContain("Rewrote AuditEntry (audit subjects for the test): 23 rows changed");
    expect(said).toContain("Rewrote Span (span names copied for the test): 9 rows changed");
    const audit = await db.auditEntry.findMany({ select: { kind: true, subject: true } });
    for (const a of audit) expect(a.subject).toBe(a.kind.startsWith("test.") ? `filled:${a.kind}` : null);
    for (const s of await db.span.findMany()) expect(s.tool).toBe(s.name);
    expect((await migrationState(db, migrations, backfills)).pending).toEqual([]);

    // Done is done: a third call changes nothing.
    await db.auditEntry.updateMany({ data: { subject: "later" } });
    expect(await runBackfills(t.url, { backfills, batchRows: 5, say: () => {} })).toEqual({ finished: [], stopped: null });
    expect(await db.auditEntry.count({ where: { subject: "later" } })).toBe(27);
  });

  it("waits for its migration: a backfill of a migration the database lacks does not run", async () => {
    t = await open();
    const later = { ...FILL, name: "test-later", migration: "29991231000000_not_yet" };
    const migrations = path.resolve("prisma", ...(t.url.startsWith("file:") ? ["migrations"] : ["postgres", "migrations"]));
    expect(await runBackfills(t.url, { backfills: [later], say: () => {} })).toEqual({ finished: [], stopped: null });
    expect((await migrationState(t.db, migrations, [later])).pending).toEqual([]);
  });
});

// The first real backfill: the team of each audit row (docs/human-requests-and-policy.md#audit).
describe.each(DATABASES)("the audit-team backfill on $name", ({ open }) => {
  let t: TestDb;
  afterEach(async () => {
    await t?.cleanup();
  });

  it("holds nothing back on a database migrated empty, and gives rows written before it their run's team", async () => {
    t = await open();
    const db = t.db;
    const migrations = path.resolve("prisma", ...(t.url.startsWith("file:") ? ["migrations"] : ["postgres", "migrations"]));
    // Migrated empty, as a fresh install or a test's database: nothing to fill, the server may start.
    expect((await migrationState(db, migrations)).pending).toEqual([]);

    const team = await db.team.create({ data: { name: "payments" } });
    const user = await db.user.create({ data: { email: "ann@example.com", name: "Ann", passwordHash: "-" } });
    const run = (teamId: string | null, goal: string) =>
      db.run.create({
        data: { goal, agentName: "demo-coder", agentVersion: 1, model: "scripted/demo", status: "succeeded", teamId, createdById: user.id },
      });
    const teamed = await run(team.id, "in a team");
    const teamless = await run(null, "in no team");
    // Rows as an earlier build wrote them: no team.
    await db.auditEntry.createMany({
      data: [
        ...Array.from({ length: 7 }, () => ({ kind: "policy.decision", runId: teamed.id })),
        { kind: "policy.decision", runId: teamless.id },
        { kind: "policy.decision", runId: "run-that-is-gone" },
        { kind: "settings.updated" },
      ],
    });
    expect((await migrationState(db, migrations)).pending).toEqual(["backfill audit-team"]);

    const said: string[] = [];
    const result = await runBackfills(t.url, { batchRows: 3, say: (l) => said.push(l) });
    expect(result.finished.filter((b) => b.name === "audit-team")).toEqual([{ name: "audit-team", rows: 9 }]);
    expect(said).toContain("Rewrote AuditEntry (the team of each audit row, from its run): 9 rows changed");
    const rows = await db.auditEntry.findMany({ select: { runId: true, teamId: true } });
    for (const r of rows) expect(r.teamId, String(r.runId)).toBe(r.runId === teamed.id ? team.id : null);
    expect((await migrationState(db, migrations)).pending).toEqual([]);
  });
});

// Span's key became (runId, spanId) (docs/performance.md#span-ingest-and-search): the migration renamed the
// old table, and the span-key backfill moves its rows into the new one in batches, then drops it.
describe.each(DATABASES)("the span-key backfill on $name", ({ open }) => {
  let t: TestDb;
  afterEach(async () => {
    await t?.cleanup();
  });

  const OLD = `"_rein_spans_to_move"`;
  const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000+00:00`;
  /** Spans as the earlier build stored them: three runs, one span id in two of them only once (ids were unique). */
  const rows = Array.from({ length: 7 }, (_, i) => ({
    spanId: `span-${i}`,
    runId: `run-${i % 3}`,
    kind: i % 2 ? "chat" : "execute_tool",
    minute: i,
    durationMs: i * 100,
    detail: i === 4 ? null : `{"output":"o${i}"}`,
  }));

  it("holds nothing back on a database migrated empty, and moves the spans stored before it in batches, going on after a crash", async () => {
    t = await open();
    const db = t.db;
    const migrations = path.resolve("prisma", ...(t.url.startsWith("file:") ? ["migrations"] : ["postgres", "migrations"]));
    const spanKey = BACKFILLS.filter((b) => b.name === "span-key");
    expect(spanKey).toHaveLength(1);
    expect((await migrationState(db, migrations)).pending).toEqual([]);

    for (const r of rows)
      await db.$executeRawUnsafe(
        `INSERT INTO ${OLD} ("spanId", "traceId", "runId", "kind", "name", "startTime", "endTime", "durationMs", "workflowId", "attributes", "costUsd", "detail")
         VALUES ('${r.spanId}', 'trace-${r.runId}', '${r.runId}', '${r.kind}', '${r.kind} ${r.minute}', '${at(r.minute)}', '${at(r.minute + 1)}',
           ${r.durationMs}, 'w', '{}', ${r.minute / 100}, ${r.detail === null ? "NULL" : `'${r.detail}'`})`,
      );
    expect((await migrationState(db, migrations)).pending).toEqual(["backfill span-key"]);

    // Two batches of three, then a crash: those six moved, none twice, the seventh still waiting.
    const said: string[] = [];
    const first = await runBackfills(t.url, { backfills: spanKey, batchRows: 3, stopAfterBatches: 2, say: (l) => said.push(l) });
    expect(first).toEqual({ finished: [], stopped: "span-key" });
    expect(said[0]).toBe("Moving _rein_spans_to_move (spans into their table keyed by run) in batches of 3 rows: 7 rows to move");
    expect(await db.span.count()).toBe(6);
    expect((await migrationState(db, migrations)).pending).toEqual(["backfill span-key"]);

    const second = await runBackfills(t.url, { backfills: spanKey, batchRows: 3, say: (l) => said.push(l) });
    expect(second).toEqual({ finished: [{ name: "span-key", rows: 7 }], stopped: null });
    expect(said.at(-1)).toBe("Moved _rein_spans_to_move (spans into their table keyed by run): 7 rows");
    const moved = await db.span.findMany({ orderBy: { spanId: "asc" } });
    expect(
      moved.map((s) => [s.spanId, s.runId, s.kind, s.startTime.toISOString(), s.endTime?.toISOString(), s.durationMs, s.costUsd, s.detail]),
    ).toEqual(
      rows.map((r) => [
        r.spanId,
        r.runId,
        r.kind,
        at(r.minute).replace("+00:00", "Z"),
        at(r.minute + 1).replace("+00:00", "Z"),
        r.durationMs,
        r.minute / 100,
        r.detail,
      ]),
    );
    // The old table is gone, and the spans are found by their key.
    await expect(db.$queryRawUnsafe(`SELECT 1 FROM ${OLD}`)).rejects.toThrow();
    expect(await db.span.findUnique({ where: { runId_spanId: { runId: "run-1", spanId: "span-4" } } })).toMatchObject({ detail: null });
    expect((await migrationState(db, migrations)).pending).toEqual([]);
    expect(await runBackfills(t.url, { backfills: spanKey, say: () => {} })).toEqual({ finished: [], stopped: null });
  });
});
