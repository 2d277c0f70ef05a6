// npm run bench:kernel — kernel overhead per durable step (scripted model,
// no-op pure tool; checkpoint + event + replay cache), p50/p99, against the
// same loop over an in-memory store in the same process; and event-log
// append rate. Prints figures; asserts nothing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openDb, openNativeSqlite, type Db } from "@/server/db";
import { createUser } from "@/server/identity";
import {
  BUILTIN_SPECS,
  MemoryRunStore,
  MemorySpecSource,
  PrismaRunStore,
  SqliteRunStore,
  driveRun,
  event,
  type KernelDeps,
  type RunStore,
} from "@/server/kernel";
import { DefaultModelRouter, type Scenario } from "@/server/models";
import { BUILTIN_TOOLS, MemoryReplayCache, PrismaReplayCache, SqliteReplayCache, ToolRegistry, ToolRunner, workspaceFor, type ReplayCache, type ToolDefinition } from "@/server/tools";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TURNS = Number(process.env.BENCH_TURNS ?? 25);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 5000);

const noop: ToolDefinition<{ i: number }> = {
  name: "noop",
  description: "Does nothing (benchmark).",
  args: z.object({ i: z.number() }),
  replayClass: "pure",
  persistence: "none",
  async execute(args) {
    return { i: args.i };
  },
};

const scenario: Scenario = {
  turns: [
    ...Array.from({ length: TURNS }, (_, i) => ({ text: `step ${i}`, toolCalls: [{ tool: "noop", args: { i } }] })),
    { text: "done" },
  ],
};

const spec = { ...BUILTIN_SPECS[0], name: "bench", version: 1, builtIn: true, tools: ["noop"] };

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Times between consecutive durable steps (each commitStep), in ms. */
function timed(store: RunStore, samples: number[]): RunStore {
  let last = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "commitStep") {
        return async (...args: Parameters<RunStore["commitStep"]>) => {
          const r = await target.commitStep(...args);
          const now = performance.now();
          if (last) samples.push(now - last);
          last = now;
          return r;
        };
      }
      if (prop === "transition") {
        return async (...args: Parameters<RunStore["transition"]>) => {
          last = 0; // a new run: do not count the gap between runs
          return target.transition(...args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

async function loop(label: string, store: RunStore, cache: ReplayCache, createRun: (i: number) => Promise<string>, dataDir: string) {
  const samples: number[] = [];
  const registry = new ToolRegistry([...BUILTIN_TOOLS, noop]);
  const deps: KernelDeps = {
    store: timed(store, samples),
    specs: new MemorySpecSource([spec]),
    router: new DefaultModelRouter({ scriptedDelayMs: 0 }),
    registry,
    tools: new ToolRunner(registry, cache),
    workspaceFor: (id) => workspaceFor(dataDir, id),
    publishTransient: () => {},
    log: { info: () => {}, error: (m, e) => console.error(m, e) },
  };
  const control = { signal: new AbortController().signal, cancelRequested: () => false, pauseRequested: () => false, stopping: () => false, recovered: false };
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) {
    const id = await createRun(i);
    const outcome = await driveRun(id, deps, control);
    if (outcome !== "succeeded") throw new Error(`${label}: run ended ${outcome}`);
  }
  const total = performance.now() - started;
  samples.sort((a, b) => a - b);
  return { label, steps: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / samples.length, total };
}

async function appendRate(label: string, store: RunStore, runId: string, batch: number) {
  const per: number[] = [];
  const started = performance.now();
  for (let i = 0; i < APPENDS / batch; i++) {
    const t0 = performance.now();
    await store.appendEvents(runId, Array.from({ length: batch }, (_, j) => event("run.control", { action: "pause", by: `bench-${i}-${j}`, byName: "bench" })));
    per.push((performance.now() - t0) / batch);
  }
  const secs = (performance.now() - started) / 1000;
  per.sort((a, b) => a - b);
  return { label, batch, rate: APPENDS / secs, p50: percentile(per, 50) };
}

async function migratedDb(url: string): Promise<Db> {
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  return openDb(url);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-"));
  try {
    const url = `file:${path.join(dir, "bench.db")}`;
    const db = await migratedDb(url);
    const native = openNativeSqlite(url);
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "admin" });
    await db.agentSpec.create({ data: { name: spec.name, version: 1, instructions: spec.instructions, model: spec.model, tools: JSON.stringify(spec.tools), builtIn: true } });

    const memory = new MemoryRunStore();
    const memRun = (i: number) => {
      const id = `mem-${i}`;
      memory.addRun({ id, goal: "bench", agentName: "bench", agentVersion: 1, status: "queued", model: spec.model, scenario, maxSteps: 1000, createdById: userId, teamId: null });
      return Promise.resolve(id);
    };
    const prismaStore = new PrismaRunStore(db);
    const sqliteStore = new SqliteRunStore(native);
    const dbRun = async () =>
      (await db.run.create({
        data: { goal: "bench", agentName: "bench", agentVersion: 1, model: spec.model, scenario: JSON.stringify(scenario), maxSteps: 1000, createdById: userId },
        select: { id: true },
      })).id;

    // Warm up both paths (JIT, prepared statements), then measure.
    await loop("warm-up", memory, new MemoryReplayCache(), memRun, dir);
    await loop("warm-up", prismaStore, new PrismaReplayCache(db), dbRun, dir);
    await loop("warm-up", sqliteStore, new SqliteReplayCache(native), dbRun, dir);
    const mem = await loop("in-memory store", memory, new MemoryReplayCache(), (i) => memRun(i + RUNS), dir);
    const sql = await loop("SQLite, direct (default)", sqliteStore, new SqliteReplayCache(native), dbRun, dir);
    const viaPrisma = await loop("SQLite via Prisma", prismaStore, new PrismaReplayCache(db), dbRun, dir);

    console.log(`\nKernel overhead per durable step (${RUNS} runs x ${TURNS * 2 + 1} steps; scripted model, no-op pure tool)`);
    console.log("store                    steps    p50 ms   p99 ms   mean ms");
    for (const r of [mem, sql, viaPrisma]) {
      console.log(`${r.label.padEnd(24)} ${String(r.steps).padStart(5)} ${r.p50.toFixed(3).padStart(9)} ${r.p99.toFixed(3).padStart(8)} ${r.mean.toFixed(3).padStart(9)}`);
    }
    console.log(`durable store cost per step (default backend): p50 +${(sql.p50 - mem.p50).toFixed(3)} ms, p99 +${(sql.p99 - mem.p99).toFixed(3)} ms; ratio ${(sql.p50 / mem.p50).toFixed(2)}x the in-memory loop at p50`);

    const appendRunMem = await memRun(10_000);
    const appendRunDb = await dbRun();
    const rows = [
      await appendRate("in-memory store", memory, appendRunMem, 1),
      await appendRate("SQLite, direct (default)", sqliteStore, appendRunDb, 1),
      await appendRate("SQLite, direct (default)", sqliteStore, appendRunDb, 100),
      await appendRate("SQLite via Prisma", prismaStore, appendRunDb, 1),
    ];
    console.log(`\nEvent-log append (${APPENDS} events)`);
    console.log("store                    batch   events/s   p50 ms/event");
    for (const r of rows) console.log(`${r.label.padEnd(24)} ${String(r.batch).padStart(5)} ${Math.round(r.rate).toString().padStart(10)} ${r.p50.toFixed(4).padStart(14)}`);
    console.log("(for scale: OpenHands reports 0.17 ms median per stored event)\n");
    native.close();
    await db.$disconnect();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
