// npm run bench:telemetry — span ingest (batched, SQLite) into two scratch
// databases in the same run, batch by batch in turn: one with the Span table as
// it was before its key became (runId, spanId) ("before": keyed by the span id
// alone), one as migrated now ("after"); and event-log appends beside them.
// Then checks that the rollups equal the sums over the stored spans in both,
// and times the projection per run step, the trace page's query for a
// 10,000-span run, the dashboards over the rollups, and the span searches, in
// both databases, with 1,000,000 spans and 100,000 runs generated here.
// Prints figures; fails only when a rollup is not exact.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, openNativeSqlite, startWalCheckpointer, type Db, type NativeSqlite, type WalCheckpointer } from "@/server/db";
import { createUser } from "@/server/identity";
import { SqliteRunStore, event, type RunEventRecord } from "@/server/kernel";
import {
  PriceBook,
  RunProjection,
  SqliteSpanSink,
  listRunSpans,
  searchSpans,
  spanFacets,
  spanIdOf,
  traceIdOf,
  type SpanRecord,
  type SpanSearch,
} from "@/server/telemetry";

const SPANS = Number(process.env.BENCH_SPANS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const TRACE_SPANS = 10_000;
const BATCH = 1000;
/**
 * "spread": spans last from 1 ms to 30 s, as real ones do, rather than 500 ms each; then the
 * (durationMs, startTime) index takes each span at its duration's place, not at one end.
 */
const SPREAD = process.env.BENCH_SPAN_DURATIONS === "spread";
/** Rounds of each read compared between the two databases, in turn: enough for a steady median on a busy machine. */
const ROUNDS = 41;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n: number, d = 2) => n.toFixed(d).padStart(9);

function span(runId: string, i: number, at: Date, team: string, workflow: string, model: string, ms = 500): SpanRecord {
  const chat = i % 2 === 0;
  return {
    spanId: spanIdOf(runId, String(i)),
    traceId: traceIdOf(runId),
    parentSpanId: i === 0 ? null : spanIdOf(runId, "0"),
    runId,
    kind: i === 0 ? "run" : chat ? "chat" : "execute_tool",
    name: chat ? `chat ${model}` : "execute_tool shell",
    startTime: at,
    endTime: new Date(at.getTime() + ms),
    status: "ok",
    teamId: team,
    workflowId: workflow,
    userId: "bench",
    model: chat ? model : null,
    tool: chat ? null : "shell",
    inputTokens: chat ? 1200 : 0,
    outputTokens: chat ? 150 : 0,
    cachedInputTokens: chat ? 600 : 0,
    costUsd: chat ? 0.0021 : 0,
    attributes: {
      "rein.run_id": runId,
      "rein.team_id": team,
      "rein.workflow_id": workflow,
      "gen_ai.operation.name": chat ? "chat" : "execute_tool",
    },
    detail: { output: "x".repeat(200) },
  };
}

/** The Span table as it was before 20270102120000_span_key: keyed by the span id alone, with the same other indexes. */
const SPAN_BEFORE = `
  DROP TABLE "Span";
  DROP TABLE IF EXISTS "_rein_spans_to_move";
  CREATE TABLE "Span" (
    "spanId" TEXT NOT NULL PRIMARY KEY, "traceId" TEXT NOT NULL, "parentSpanId" TEXT, "runId" TEXT NOT NULL, "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL, "startTime" DATETIME NOT NULL, "endTime" DATETIME, "status" TEXT NOT NULL DEFAULT 'unset', "teamId" TEXT,
    "workflowId" TEXT NOT NULL, "userId" TEXT, "model" TEXT, "tool" TEXT, "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0, "cachedInputTokens" INTEGER NOT NULL DEFAULT 0, "costUsd" REAL NOT NULL DEFAULT 0,
    "attributes" TEXT NOT NULL, "detail" TEXT, "durationMs" INTEGER);
  CREATE INDEX "Span_runId_startTime_idx" ON "Span"("runId", "startTime");
  CREATE INDEX "Span_startTime_idx" ON "Span"("startTime");
  CREATE INDEX "Span_kind_startTime_idx" ON "Span"("kind", "startTime");
  CREATE INDEX "Span_durationMs_startTime_idx" ON "Span"("durationMs", "startTime");
  CREATE INDEX "Span_name_idx" ON "Span"("name");`;

interface Scratch {
  layout: "before" | "after";
  dir: string;
  url: string;
  db: Db;
  native: NativeSqlite;
  sink: SqliteSpanSink;
  walCheckpoints: WalCheckpointer | null;
  spanMs: number;
}

async function openScratch(layout: Scratch["layout"]): Promise<Scratch> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rein-bench-telemetry-${layout}-`));
  const url = `file:${path.join(dir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const native = openNativeSqlite(url);
  native.exec(layout === "before" ? SPAN_BEFORE : `DROP TABLE IF EXISTS "_rein_spans_to_move"`);
  return { layout, dir, url, db: await openDb(url), native, sink: new SqliteSpanSink(native), walCheckpoints: null, spanMs: 0 };
}

/**
 * The rollups against sums over the stored spans: CostRollup per (day, team, workflow, model) against the
 * model calls, SpanRollup per (day, kind, name, bucket) against the model calls and the ended tool and
 * request spans. Throws on any difference; returns the keys compared.
 */
function checkRollups(native: NativeSqlite): number {
  const spanDay = `substr("startTime", 1, 10)`;
  const costs = native
    .prepare(
      `WITH s AS (SELECT ${spanDay} AS day, COALESCE("teamId", '') AS teamId, "workflowId" AS workflowId, COALESCE("model", '') AS model,
         COUNT(*) AS calls, SUM("inputTokens") AS i, SUM("outputTokens") AS o, SUM("cachedInputTokens") AS c, SUM("costUsd") AS usd
         FROM "Span" WHERE "kind" = 'chat' GROUP BY 1, 2, 3, 4)
       SELECT r.day, r.teamId, r.workflowId, r.model, r.calls, s.calls AS sCalls, r.inputTokens, s.i, r.outputTokens, s.o,
         r.cachedInputTokens, s.c, r.costUsd, s.usd
       FROM "CostRollup" r FULL JOIN s ON s.day = r.day AND s.teamId = r.teamId AND s.workflowId = r.workflowId AND s.model = r.model
       WHERE r.calls IS NOT s.calls OR r.inputTokens IS NOT s.i OR r.outputTokens IS NOT s.o OR r.cachedInputTokens IS NOT s.c
         OR s.usd IS NULL OR r.costUsd IS NULL OR abs(r.costUsd - s.usd) > 1e-9 * max(1, abs(s.usd))`,
    )
    .all();
  if (costs.length) throw new Error(`CostRollup differs from the spans' sums at ${costs.length} keys, e.g. ${JSON.stringify(costs[0])}`);
  const bucket = `CASE WHEN "durationMs" < 1 THEN 0 ELSE CAST(floor(log2("durationMs")) AS INTEGER) + 1 END`;
  const name = `CASE "kind" WHEN 'chat' THEN COALESCE("model", '') WHEN 'execute_tool' THEN COALESCE("tool", '')
    ELSE COALESCE("attributes" ->> '$."rein.human_request.kind"', '') END`;
  const counts = native
    .prepare(
      `WITH s AS (SELECT ${spanDay} AS day, "kind" AS kind, ${name} AS name, ${bucket} AS bucket, COUNT(*) AS n,
         SUM("status" = 'error') AS errors FROM "Span"
         WHERE "kind" = 'chat' OR ("kind" IN ('execute_tool', 'human_request') AND "endTime" IS NOT NULL) GROUP BY 1, 2, 3, 4)
       SELECT r.day, r.kind, r.name, r.bucket, r.count, s.n, r.errors, s.errors AS sErrors
       FROM "SpanRollup" r FULL JOIN s ON s.day = r.day AND s.kind = r.kind AND s.name = r.name AND s.bucket = r.bucket
       WHERE r.count IS NOT s.n OR r.errors IS NOT s.errors`,
    )
    .all();
  if (counts.length)
    throw new Error(`SpanRollup differs from the spans' counts at ${counts.length} keys, e.g. ${JSON.stringify(counts[0])}`);
  const keys = native.prepare(`SELECT (SELECT COUNT(*) FROM "CostRollup") + (SELECT COUNT(*) FROM "SpanRollup")`).pluck().get() as number;
  if (!keys) throw new Error("no rollup rows to compare");
  return keys;
}

async function main() {
  const scratch = [await openScratch("before"), await openScratch("after")];
  const [before, after] = scratch;
  try {
    // The same team ids in both databases; each has its own user.
    const teams = Array.from({ length: 20 }, (_, i) => `team-${i}`);
    const users = new Map<Scratch, string>();
    for (const d of scratch) {
      users.set(d, await createUser(d.db, { email: "bench@rein.test", password: "bench-password-1", role: "admin" }));
      await d.db.team.createMany({ data: teams.map((id) => ({ id, name: id })) });
    }
    const userId = users.get(after)!;
    const workflows = Array.from({ length: 30 }, (_, i) => `workflow-${i}`);
    const models = ["openai/gpt-a", "openai/gpt-b", "anthropic/claude-a", "anthropic/claude-b", "local/llama"];

    // Runs (inserted directly: the bench measures spans, not run creation).
    const now = Date.now();
    const runAt = (r: number) => new Date(now - (r % 90) * 86_400_000 - (r % 1000) * 1000);
    const statuses = ["succeeded", "succeeded", "succeeded", "failed", "canceled"];
    // Run ids sort by creation time, as Rein's do (cuid): the oldest run first.
    const chronological = Array.from({ length: RUNS }, (_, r) => r).sort((a, b) => runAt(a).getTime() - runAt(b).getTime());
    const rank = new Array<number>(RUNS);
    chronological.forEach((r, i) => (rank[r] = i));
    const runId = (r: number) => `run-${String(rank[r]).padStart(8, "0")}`;
    const insertRun = (d: Scratch) =>
      d.native.prepare(
        `INSERT INTO "Run" (id, goal, agentName, agentVersion, teamId, createdById, status, model, tier, createdAt, updatedAt) VALUES (?, 'bench', ?, 1, ?, ?, ?, 'x', 'T1', ?, ?)`,
      );
    for (const d of scratch) {
      const insert = insertRun(d);
      d.native.transaction(() => {
        for (let r = 0; r < RUNS; r++)
          insert.run(
            runId(r),
            workflows[r % 30],
            teams[r % 20],
            users.get(d),
            statuses[r % 5],
            runAt(r).toISOString(),
            runAt(r).toISOString(),
          );
      })();
    }

    // (a) span ingest, batches of 1000, each batch into both databases, in turn first. Spans arrive as runs
    // happen, oldest run first, and each connection checkpoints on a worker thread, as the server's does.
    for (const d of scratch) d.walCheckpoints = startWalCheckpointer(d.native, d.url);
    const perRun = Math.max(2, Math.floor(SPANS / RUNS));
    let written = 0;
    for (let b = 0; written < SPANS; b++) {
      const batch: SpanRecord[] = [];
      for (; batch.length < BATCH && written < SPANS; written++) {
        const run = chronological[Math.floor(written / perRun) % RUNS];
        const ms = SPREAD ? 1 + ((written * 7919) % 30_000) : 500;
        batch.push(span(runId(run), written % perRun, runAt(run), teams[run % 20], workflows[run % 30], models[run % 5], ms));
      }
      for (const d of b % 2 ? [after, before] : [before, after]) {
        const s = performance.now();
        await d.sink.write(batch, []);
        d.spanMs += performance.now() - s;
      }
    }
    const rollupKeys = scratch.map((d) => checkRollups(d.native));
    const store = new SqliteRunStore(after.native, () => {});
    const evRun = await after.db.run.create({
      data: { goal: "events", agentName: "bench", agentVersion: 1, createdById: userId, model: "x" },
    });
    const t1 = performance.now();
    const EVENTS = 100_000;
    for (let i = 0; i < EVENTS; i += BATCH) {
      await store.appendEvents(
        evRun.id,
        Array.from({ length: BATCH }, (_, j) => event("human.note", { text: `note ${i + j} ${"x".repeat(150)}`, by: "b", byName: "b" })),
      );
    }
    const eventSecs = (performance.now() - t1) / 1000;
    // (b) projection per run step (one model turn + one tool call + its result).
    const projection = new RunProjection(
      { runId: "p", teamId: "t", workflowId: "w", userId: "u", tier: "T1", createdAt: new Date() },
      new PriceBook(),
    );
    let seq = 0;
    const step = (i: number): RunEventRecord[] => [
      {
        runId: "p",
        seq: ++seq,
        type: "model.turn",
        actor: null,
        createdAt: new Date(),
        payload: {
          step: i,
          agent: "a",
          model: "openai/gpt-a",
          text: "t",
          toolCalls: [],
          usage: { inputTokens: 100, outputTokens: 10, cachedInputTokens: 0 },
          durationMs: 5,
        },
      },
      {
        runId: "p",
        seq: ++seq,
        type: "tool.call",
        actor: null,
        createdAt: new Date(),
        payload: { toolCallId: `c${i}`, tool: "shell", args: { command: "ls" } },
      },
      {
        runId: "p",
        seq: ++seq,
        type: "tool.result",
        actor: null,
        createdAt: new Date(),
        payload: { toolCallId: `c${i}`, tool: "shell", ok: true, output: "ok", cached: false, replayClass: "unsafe_on_replay" },
      },
    ];
    const stepTimes: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const evs = step(i);
      const s = performance.now();
      projection.apply(evs);
      stepTimes.push((performance.now() - s) * 1000);
    }

    // (c) the trace page's query for a 10,000-span run, in both databases in turn.
    const big = "run-trace";
    for (const d of scratch) {
      insertRun(d).run(big, "trace", teams[0], users.get(d), "succeeded", new Date().toISOString(), new Date().toISOString());
      for (let i = 0; i < TRACE_SPANS; i += BATCH)
        await d.sink.write(
          Array.from({ length: BATCH }, (_, j) => span(big, i + j, new Date(now + (i + j) * 10), teams[0], "w", models[0])),
          [],
        );
    }
    const traceTimes = new Map<Scratch, number[]>(scratch.map((d) => [d, []]));
    for (let i = 0; i < ROUNDS; i++)
      for (const d of i % 2 ? [after, before] : [before, after]) {
        const s = performance.now();
        const { spans } = await listRunSpans(d.db, big);
        traceTimes.get(d)!.push(performance.now() - s);
        if (spans.length !== TRACE_SPANS) throw new Error(`expected ${TRACE_SPANS} spans, got ${spans.length}`);
      }

    // (d) dashboard queries read the rollups and run counts, never the spans.
    const db = after.db;
    const from = new Date(now - 30 * 86_400_000).toISOString().slice(0, 10);
    const queries: Record<string, () => Promise<unknown>> = {
      "cost by day and team (30 days)": () =>
        db.$queryRawUnsafe(`SELECT day, teamId, SUM(costUsd) c, SUM(calls) n FROM "CostRollup" WHERE day >= ? GROUP BY day, teamId`, from),
      "cost by model (30 days)": () =>
        db.$queryRawUnsafe(
          `SELECT model, SUM(costUsd), SUM(inputTokens), SUM(outputTokens) FROM "CostRollup" WHERE day >= ? GROUP BY model`,
          from,
        ),
      "runs by outcome (30 days)": () =>
        db.run.groupBy({ by: ["status"], where: { createdAt: { gte: new Date(from) } }, _count: { _all: true } }),
    };
    const rollupRows = await db.costRollup.count();
    const dashboard: Array<[string, number, number]> = [];
    for (const [name, q] of Object.entries(queries)) {
      const times: number[] = [];
      for (let i = 0; i < 15; i++) {
        const s = performance.now();
        await q();
        times.push(performance.now() - s);
      }
      dashboard.push([name, pct(times, 50), pct(times, 95)]);
    }
    const scanTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = performance.now();
      await db.$queryRawUnsafe(
        `SELECT teamId, SUM(costUsd) FROM "Span" WHERE kind = 'chat' AND startTime >= ? GROUP BY teamId`,
        `${from}T00:00:00.000+00:00`,
      );
      scanTimes.push(performance.now() - s);
    }

    // (e) the Traces page: one page of a filtered span search over the last 7 days, and its filter values,
    // in both databases in turn.
    type Searcher = Parameters<typeof searchSpans>[1];
    const admin: Searcher = { role: "admin", teamIds: [], userId: "bench" };
    const viewer: Searcher = { role: "viewer", teamIds: [teams[3]], userId: "nobody" };
    const searches: Array<[string, SpanSearch, Searcher]> = [
      ["newest 50, no filter", {}, admin],
      ["tool shell", { tool: "shell" }, admin],
      ["model + min cost, a viewer's team", { model: models[3], minCostUsd: 0.001 }, viewer],
      ["duration >= 1 s (matches none: whole range)", { minDurationMs: 1000 }, admin],
      ["name text (matches none: whole range)", { q: "no-such-span" }, admin],
      ["name text, 30 days (matches none)", { q: "no-such-span", from: new Date(now - 30 * 86_400_000) }, admin],
      ["duration >= 1 s, 30 days (matches none)", { minDurationMs: 1000, from: new Date(now - 30 * 86_400_000) }, admin],
      ["name text + duration, 30 days (none)", { q: "shell", minDurationMs: 1000, from: new Date(now - 30 * 86_400_000) }, admin],
    ];
    const search: Array<[string, number, Map<Scratch, number[]>]> = [];
    for (const [name, filter, actor] of searches) {
      const times = new Map<Scratch, number[]>(scratch.map((d) => [d, []]));
      const found = new Map<Scratch, string>();
      for (let i = 0; i < ROUNDS; i++)
        for (const d of i % 2 ? [after, before] : [before, after]) {
          const s = performance.now();
          const page = await searchSpans(d.db, actor, filter);
          times.get(d)!.push(performance.now() - s);
          found.set(d, page.spans.map((x) => `${x.runId}/${x.spanId}`).join(","));
        }
      if (found.get(before) !== found.get(after)) throw new Error(`search "${name}" found other spans before and after`);
      search.push([name, found.get(after)!.split(",").filter(Boolean).length, times]);
    }
    const facetTimes = new Map<Scratch, number[]>(scratch.map((d) => [d, []]));
    for (let i = 0; i < ROUNDS; i++)
      for (const d of i % 2 ? [after, before] : [before, after]) {
        const s = performance.now();
        await spanFacets(d.db, admin);
        facetTimes.get(d)!.push(performance.now() - s);
      }

    const rate = (d: Scratch) => SPANS / (d.spanMs / 1000);
    const both = (m: Map<Scratch, number[]>, p: number) => `${fmt(pct(m.get(before)!, p))} ${fmt(pct(m.get(after)!, p))}`;
    console.log(
      `\nTelemetry (SQLite, batches of ${BATCH}; ${SPANS.toLocaleString()} spans over ${RUNS.toLocaleString()} runs, into two databases in turn${SPREAD ? "; durations 1 ms to 30 s" : ""})`,
    );
    console.log(`span ingest, before: Span keyed by spanId       ${fmt(rate(before), 0)} spans/s`);
    console.log(
      `span ingest, after: Span keyed by (runId, spanId) ${fmt(rate(after), 0)} spans/s   -> ${fmt(rate(after) / rate(before), 2)}x`,
    );
    console.log(
      `event-log append (baseline)                     ${fmt(EVENTS / eventSecs, 0)} events/s   -> spans (after) cost ${fmt(EVENTS / eventSecs / rate(after), 2)}x an event`,
    );
    console.log(`rollups equal the sums over the stored spans: before ${rollupKeys[0]} keys, after ${rollupKeys[1]} keys, exact`);
    console.log(`projection per run step (3 events)   p50 ${fmt(pct(stepTimes, 50), 1)} µs   p99 ${fmt(pct(stepTimes, 99), 1)} µs`);
    console.log(`                                                      before     after`);
    console.log(`trace query, ${TRACE_SPANS.toLocaleString()}-span run, p50 ms               ${both(traceTimes, 50)}`);
    console.log(`span search (Traces), a page of 50 over the last 7 days unless said, p50 ms:`);
    for (const [name, found, times] of search) console.log(`  ${name.padEnd(44)} ${String(found).padStart(3)} found ${both(times, 50)}`);
    console.log(`  filter values (facets, from rollups)                  ${both(facetTimes, 50)}`);
    console.log(`dashboards over ${rollupRows.toLocaleString()} rollup rows and ${RUNS.toLocaleString()} runs (after):`);
    for (const [name, p50, p95] of dashboard) console.log(`  ${name.padEnd(34)} p50 ${fmt(p50)} ms   p95 ${fmt(p95)} ms`);
    console.log(`  baseline: the same cost-by-team sum scanning spans   p50 ${fmt(pct(scanTimes, 50))} ms`);
    console.log("(aim: 50k spans/s; every dashboard query under 200 ms at this size)");
  } finally {
    for (const d of scratch) {
      await d.walCheckpoints?.stop();
      d.native.close();
      await d.db.$disconnect();
      fs.rmSync(d.dir, { recursive: true, force: true });
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
