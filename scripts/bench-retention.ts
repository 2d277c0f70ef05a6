// npm run bench:retention — a year of runs pruned to the retention settings
// while the server serves (docs/operations.md#retention), on SQLite, against
// a baseline measured in the same run on a copy of the same database: the
// naive prune, one DELETE per kind over every old run at once.
//
// It generates BENCH_RUNS ended runs (default 20,000; the issue's year is
// 100,000) spread over the last 365 days, each with BENCH_EVENTS events
// (default 200), 5 checkpoints with their replay rows and 10 spans with
// detail, and a workspace folder for BENCH_FOLDERS of them (default 500).
// While each prune runs, a writer commits an event to a live run every 5 ms
// through Prisma, as the run loop does, and the event loop's delay is
// sampled every millisecond.
//
// Prints, for each: the time it took, rows per second, the event loop's
// delay p50/p99/max, and the writer's commit latency p99/max and how many
// commits it got in. Asserts nothing; a failure stops it with a message.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, openNativeSqlite, startWalCheckpointer, sqliteNow, type Db } from "@/server/db";
import { Pruner, saveRetentionSettings } from "@/server/retention";
import { CHECKPOINTS, SPANS, generateBacklog } from "./bench-backlog";
import { migratedDb, summary } from "./bench-stats";

const RUNS = Number(process.env.BENCH_RUNS) || 20_000;
const EVENTS = Number(process.env.BENCH_EVENTS) || 200;
const FOLDERS = Number(process.env.BENCH_FOLDERS ?? 500);
const DAY = 86_400_000;

const round = (n: number, d = 1) => (Math.round(n * 10 ** d) / 10 ** d).toFixed(d);
const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

interface Measured {
  ms: number;
  rows: number;
  lag: { p50: number; p99: number; max: number };
  writes: { n: number; p99: number; max: number };
}

/** The last queries of a client, with when each started and ended: a long delay of the loop is blamed on those it overlapped. */
interface QueryLog {
  db: Db;
  recent: Array<{ what: string; start: number; end: number }>;
}

function loggedQueries(base: Db): QueryLog {
  const recent: QueryLog["recent"] = [];
  const db = base.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        const entry = { what: `${model ?? "raw"}.${operation}`, start: performance.now(), end: Infinity };
        recent.push(entry);
        if (recent.length > 200) recent.shift();
        try {
          return await query(args);
        } finally {
          entry.end = performance.now();
        }
      },
    },
  }) as unknown as Db;
  return { db, recent };
}

/** Delays of the loop over this long are listed with the queries they overlapped. */
const STALL_MS = 50;

/** Runs `prune` while a writer commits an event every 5 ms and the event loop's delay is sampled. */
async function whileServing(db: Db, live: string, prune: () => Promise<number>, log?: QueryLog): Promise<Measured> {
  let seq = 1_000_000 + Math.floor(Math.random() * 1e6);
  const latencies: number[] = [];
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      const t = performance.now();
      await db.runEvent.create({ data: { runId: live, seq: seq++, type: "model.turn", payload: "{}" } });
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  // The event loop's delay: how late each 1 ms timer fires, the last stretch included (a loop
  // blocked from start to end shows as one long delay, not as no sample).
  const lags: number[] = [];
  let last = performance.now();
  const stalls: string[] = [];
  const ticker = setInterval(() => {
    const t = performance.now();
    const lag = Math.max(0, t - last - 1);
    lags.push(lag);
    if (log && lag > STALL_MS) {
      const during = log.recent.filter((q) => q.start < t && q.end > last && q.end - q.start > lag / 2).map((q) => q.what);
      stalls.push(`${round(lag)} ms: ${[...new Set(during)].join(", ") || "no query"}`);
    }
    last = t;
  }, 1);
  const started = performance.now();
  const rows = await prune();
  const ms = performance.now() - started;
  lags.push(Math.max(0, performance.now() - last - 1));
  clearInterval(ticker);
  stop = true;
  await writer;
  if (stalls.length)
    console.log(
      `\nDelays of the loop over ${STALL_MS} ms (${stalls.length}), with the queries they overlapped:\n  ${stalls.slice(0, 20).join("\n  ")}`,
    );
  const l = summary(lags);
  const w = summary(latencies);
  return {
    ms,
    rows,
    lag: { p50: l.p50, p99: l.p99, max: Math.max(...lags) },
    writes: { n: latencies.length, p99: w.p99, max: Math.max(...latencies) },
  };
}

function print(name: string, m: Measured) {
  console.log(
    `${name.padEnd(30)} ${round(m.ms / 1000).padStart(7)} s   ${String(Math.round(m.rows / (m.ms / 1000))).padStart(8)} rows/s   ` +
      `loop delay p50 ${round(m.lag.p50).padStart(5)} ms  p99 ${round(m.lag.p99).padStart(6)} ms  max ${round(m.lag.max).padStart(7)} ms   ` +
      `commits ${String(m.writes.n).padStart(6)}  p99 ${round(m.writes.p99).padStart(6)} ms  max ${round(m.writes.max).padStart(7)} ms`,
  );
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-retention-"));
  try {
    const dataDir = path.join(root, "data");
    fs.mkdirSync(dataDir);
    const url = `file:${path.join(dataDir, "rein.db")}`;
    const setup = await migratedDb(url);
    const user = await setup.user.create({ data: { email: "bench@rein.test", name: "Bench", role: "admin", passwordHash: "x" } });
    const teams = await Promise.all(["alpha", "beta", "gamma", "delta"].map((name) => setup.team.create({ data: { name } })));
    await setup.$disconnect();
    console.log(
      `Generating ${RUNS} runs over a year: ${RUNS * EVENTS} events, ${RUNS * CHECKPOINTS} checkpoints, ${RUNS * SPANS} spans, ${Math.min(FOLDERS, RUNS)} workspace folders…`,
    );
    const t0 = Date.now();
    const now = Date.now();
    generateBacklog(url, dataDir, {
      runs: RUNS,
      events: EVENTS,
      folders: FOLDERS,
      userId: user.id,
      teamIds: teams.map((t) => t.id),
      prefix: "bench",
      endedAt: (i) => now - Math.floor(((i + 0.5) / RUNS) * 365 * DAY),
      say: (line) => process.stdout.write(`${line}\r`),
    });
    // The live run the writer appends to while pruning runs.
    const live = "benchlive";
    const writer = openNativeSqlite(url);
    writer
      .prepare(
        `INSERT INTO "Run" (id, goal, agentName, agentVersion, teamId, createdById, status, model, tier, maxSteps, stepCount, costUsd, lastSeq, createdAt, startedAt, updatedAt)
         VALUES (?, 'Live', 'demo-coder', 1, ?, ?, 'running', 'scripted/demo-coder', 'T1', 50, 0, 0, 0, ?, ?, ?)`,
      )
      .run(live, teams[0].id, user.id, sqliteNow(), sqliteNow(), sqliteNow());
    writer.close();
    const size = fs.statSync(path.join(dataDir, "rein.db")).size;
    console.log(`\nGenerated in ${round((Date.now() - t0) / 1000)} s; the database is ${round(size / 1e9, 2)} GB.`);

    // The baseline works on a copy of the same database.
    const baseDir = path.join(root, "baseline");
    fs.mkdirSync(baseDir);
    fs.copyFileSync(path.join(dataDir, "rein.db"), path.join(baseDir, "rein.db"));
    const cutoffDays = { events: 180, terminal: 30, checkpoints: 30, snapshots: 14, workspaces: 14, spanDetail: 30, spans: 180 };

    // As the server runs SQLite: WAL checkpoints on a worker thread, not inside commits.
    const db = await openDb(url);
    const native = openNativeSqlite(url);
    const checkpoints = startWalCheckpointer(native, url, { prisma: db });
    await saveRetentionSettings(db, { ...cutoffDays, deliveries: null, audit: null }, { id: user.id, name: "Bench" });
    // Both prunes cut at the same moment.
    const at = Date.now();
    const queries = loggedQueries(db);
    const pruner = new Pruner({ db: queries.db, dataDir, databaseUrl: url, now: () => new Date(at) });
    const rein = await whileServing(
      db,
      live,
      async () => {
        const report = (await pruner.pass())!;
        if (report.error) throw new Error(`the pass stopped: ${report.error}`);
        return Object.entries(report.dropped).reduce((n, [k, v]) => n + (k === "snapshots" || k === "workspaces" ? 0 : v), 0);
      },
      queries,
    );
    const left = await db.runEvent.count();
    await checkpoints.stop();
    native.close();
    await db.$disconnect();

    const baseUrl = `file:${path.join(baseDir, "rein.db")}`;
    const base = await openDb(baseUrl);
    const baseNative = openNativeSqlite(baseUrl);
    const baseCheckpoints = startWalCheckpointer(baseNative, baseUrl, { prisma: base });
    const naive = await whileServing(base, live, async () => {
      // One statement per kind over every old run at once.
      const old = (d: number) => iso(at - d * DAY);
      const run = (sql: string, d: number) => base.$executeRawUnsafe(sql, old(d));
      const runs = `SELECT "id" FROM "Run" WHERE "endedAt" < ?`;
      let rows = 0;
      rows += await run(`DELETE FROM "Checkpoint" WHERE "runId" IN (${runs})`, cutoffDays.checkpoints);
      rows += await run(`DELETE FROM "ToolCallResult" WHERE "runId" IN (${runs})`, cutoffDays.checkpoints);
      rows += await run(`DELETE FROM "RunEvent" WHERE "type" LIKE 'terminal.%' AND "runId" IN (${runs})`, cutoffDays.terminal);
      rows += await run(`UPDATE "Span" SET "detail" = NULL WHERE "detail" IS NOT NULL AND "runId" IN (${runs})`, cutoffDays.spanDetail);
      rows += await run(`DELETE FROM "RunEvent" WHERE "runId" IN (${runs})`, cutoffDays.events);
      rows += await run(`DELETE FROM "Span" WHERE "runId" IN (${runs})`, cutoffDays.spans);
      return rows;
    });
    const baseLeft = await base.runEvent.count();
    await baseCheckpoints.stop();
    baseNative.close();
    await base.$disconnect();

    console.log("");
    print("Rein's pruner (batches of 200)", rein);
    print("baseline: one DELETE per kind", naive);
    console.log(
      `Both left ${left - rein.writes.n === baseLeft - naive.writes.n ? left - rein.writes.n : `${left - rein.writes.n} (Rein) and ${baseLeft - naive.writes.n} (baseline)`} of the old events. ` +
        `Loop delay p99: ${round(rein.lag.p99)} ms against ${round(naive.lag.p99)} ms; longest commit wait ${round(rein.writes.max)} ms against ${round(naive.writes.max)} ms.`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`bench:retention failed: ${(err as Error).message}`);
  process.exit(1);
});
