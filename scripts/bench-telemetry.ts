// npm run bench:telemetry — span ingest (batched, SQLite) against event-log
// appends in the same process; projection cost per run step; the trace page's
// query for a 10,000-span run; and dashboard queries over the rollups with
// 1,000,000 spans and 100,000 runs generated here. Prints figures; asserts nothing.
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

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (n: number, d = 2) => n.toFixed(d).padStart(9);

function span(runId: string, i: number, at: Date, team: string, workflow: string, model: string): SpanRecord {
  const chat = i % 2 === 0;
  return {
    spanId: spanIdOf(runId, String(i)),
    traceId: traceIdOf(runId),
    parentSpanId: i === 0 ? null : spanIdOf(runId, "0"),
    runId,
    kind: i === 0 ? "run" : chat ? "chat" : "execute_tool",
    name: chat ? `chat ${model}` : "execute_tool shell",
    startTime: at,
    endTime: new Date(at.getTime() + 500),
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

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-telemetry-"));
  const url = `file:${path.join(dir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const db: Db = await openDb(url);
  const native: NativeSqlite = openNativeSqlite(url);
  let walCheckpoints: WalCheckpointer | null = null;
  try {
    const userId = await createUser(db, { email: "bench@rein.test", password: "bench-password-1", role: "admin" });
    const teams = await Promise.all(Array.from({ length: 20 }, (_, i) => db.team.create({ data: { name: `team-${i}` } })));
    const workflows = Array.from({ length: 30 }, (_, i) => `workflow-${i}`);
    const models = ["openai/gpt-a", "openai/gpt-b", "anthropic/claude-a", "anthropic/claude-b", "local/llama"];
    const sink = new SqliteSpanSink(native);
    const store = new SqliteRunStore(native, () => {});

    // Runs (inserted directly: the bench measures spans, not run creation).
    const insertRun = native.prepare(
      `INSERT INTO "Run" (id, goal, agentName, agentVersion, teamId, createdById, status, model, tier, createdAt, updatedAt) VALUES (?, 'bench', ?, 1, ?, ?, ?, 'x', 'T1', ?, ?)`,
    );
    const now = Date.now();
    const runAt = (r: number) => new Date(now - (r % 90) * 86_400_000 - (r % 1000) * 1000);
    const statuses = ["succeeded", "succeeded", "succeeded", "failed", "canceled"];
    // Run ids sort by creation time, as Rein's do (cuid): the oldest run first.
    const chronological = Array.from({ length: RUNS }, (_, r) => r).sort((a, b) => runAt(a).getTime() - runAt(b).getTime());
    const rank = new Array<number>(RUNS);
    chronological.forEach((r, i) => (rank[r] = i));
    const runId = (r: number) => `run-${String(rank[r]).padStart(8, "0")}`;
    native.transaction(() => {
      for (let r = 0; r < RUNS; r++)
        insertRun.run(
          runId(r),
          workflows[r % 30],
          teams[r % 20].id,
          userId,
          statuses[r % 5],
          runAt(r).toISOString(),
          runAt(r).toISOString(),
        );
    })();

    // (a) span ingest, batches of 1000, against event appends in batches of 1000. Spans arrive as
    // runs happen, oldest run first, and the connection checkpoints on a worker thread, as the server's does.
    walCheckpoints = startWalCheckpointer(native, url);
    const perRun = Math.max(2, Math.floor(SPANS / RUNS));
    let written = 0;
    const t0 = performance.now();
    for (let r = 0; written < SPANS; r++) {
      const batch: SpanRecord[] = [];
      for (; batch.length < BATCH && written < SPANS; written++) {
        const run = chronological[Math.floor(written / perRun) % RUNS];
        batch.push(span(runId(run), written % perRun, runAt(run), teams[run % 20].id, workflows[run % 30], models[run % 5]));
      }
      await sink.write(batch, []);
    }
    const spanSecs = (performance.now() - t0) / 1000;
    const evRun = await db.run.create({ data: { goal: "events", agentName: "bench", agentVersion: 1, createdById: userId, model: "x" } });
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

    // (c) the trace page's query for a 10,000-span run.
    const big = "run-trace";
    insertRun.run(big, "trace", teams[0].id, userId, "succeeded", new Date().toISOString(), new Date().toISOString());
    for (let i = 0; i < TRACE_SPANS; i += BATCH) {
      await sink.write(
        Array.from({ length: BATCH }, (_, j) => span(big, i + j, new Date(now + (i + j) * 10), teams[0].id, "w", models[0])),
        [],
      );
    }
    const traceTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      const s = performance.now();
      const { spans } = await listRunSpans(db, big);
      traceTimes.push(performance.now() - s);
      if (spans.length !== TRACE_SPANS) throw new Error(`expected ${TRACE_SPANS} spans, got ${spans.length}`);
    }

    // (d) dashboard queries read the rollups and run counts, never the spans.
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

    // (e) the Traces page: one page of a filtered span search over the last 7 days, and its filter values.
    type Searcher = Parameters<typeof searchSpans>[1];
    const admin: Searcher = { role: "admin", teamIds: [], userId };
    const viewer: Searcher = { role: "viewer", teamIds: [teams[3].id], userId: "nobody" };
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
    const search: Array<[string, number, number, number]> = [];
    for (const [name, filter, actor] of searches) {
      const times: number[] = [];
      let found = 0;
      for (let i = 0; i < 15; i++) {
        const s = performance.now();
        found = (await searchSpans(db, actor, filter)).spans.length;
        times.push(performance.now() - s);
      }
      search.push([name, found, pct(times, 50), pct(times, 95)]);
    }
    const facetTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      const s = performance.now();
      await spanFacets(db, admin);
      facetTimes.push(performance.now() - s);
    }

    console.log(`\nTelemetry (SQLite, batches of ${BATCH}; ${SPANS.toLocaleString()} spans over ${RUNS.toLocaleString()} runs)`);
    console.log(`span ingest                          ${fmt(SPANS / spanSecs, 0)} spans/s`);
    console.log(
      `event-log append (baseline)          ${fmt(EVENTS / eventSecs, 0)} events/s   -> spans cost ${fmt(EVENTS / eventSecs / (SPANS / spanSecs), 2)}x an event`,
    );
    console.log(`projection per run step (3 events)   p50 ${fmt(pct(stepTimes, 50), 1)} µs   p99 ${fmt(pct(stepTimes, 99), 1)} µs`);
    console.log(
      `trace query, ${TRACE_SPANS.toLocaleString()}-span run         p50 ${fmt(pct(traceTimes, 50))} ms   p95 ${fmt(pct(traceTimes, 95))} ms`,
    );
    console.log(`dashboards over ${rollupRows.toLocaleString()} rollup rows and ${RUNS.toLocaleString()} runs:`);
    for (const [name, p50, p95] of dashboard) console.log(`  ${name.padEnd(34)} p50 ${fmt(p50)} ms   p95 ${fmt(p95)} ms`);
    console.log(`  baseline: the same cost-by-team sum scanning spans   p50 ${fmt(pct(scanTimes, 50))} ms`);
    console.log(`span search (Traces), a page of 50 over the last 7 days unless said:`);
    for (const [name, found, p50, p95] of search)
      console.log(`  ${name.padEnd(44)} ${String(found).padStart(3)} found   p50 ${fmt(p50)} ms   p95 ${fmt(p95)} ms`);
    console.log(`  filter values (facets, from rollups)         p50 ${fmt(pct(facetTimes, 50))} ms   p95 ${fmt(pct(facetTimes, 95))} ms`);
    console.log("(aim: every dashboard query under 200 ms at this size)");
  } finally {
    await walCheckpoints?.stop();
    native.close();
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
