// npm run bench:kernel — the cost of one durable step (scripted model, no-op
// pure tool), p50/p99, measured in one run for:
//   - the bare durable step: checkpoint + events + replay cache (default SQLite backend),
//   - the step as production runs it: the same plus the policy gate and its
//     audit row, budgets before each model call, spans and rollups, secret
//     redaction, wired as server.ts wires them,
//   - the same loop over an in-memory store,
//   - LangGraph.js with its SQLite checkpointer running the equivalent
//     agent <-> tool loop (the peer), written as its users write it (messages,
//     ToolNode) and as a minimal graph over plain state (its best case);
// and the event-log append rate. The paths take turns run by run, so a busy
// machine slows them alike; the step through Prisma, for scale, runs after
// them. Prints figures; asserts nothing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool as lcTool } from "@langchain/core/tools";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { auditWriter } from "@/server/audit";
import { openDb, openNativeSqlite, startWalCheckpointer, type Db, type NativeSqlite } from "@/server/db";
import { HumanGate } from "@/server/hitl";
import { createUser } from "@/server/identity";
import {
  BUILTIN_SPECS,
  MemoryRunStore,
  MemorySpecSource,
  PrismaRunStore,
  SqliteRunStore,
  createKernel,
  driveRun,
  event,
  type KernelDeps,
  type RunControl,
  type RunStore,
} from "@/server/kernel";
import { Budgets } from "@/server/limits";
import { DefaultModelRouter, type Scenario } from "@/server/models";
import { DEFAULT_POLICY, PolicyGate, savePolicy } from "@/server/policy";
import { memoryKeyring, setToolSecret } from "@/server/secrets";
import { startTelemetry } from "@/server/telemetry";
import {
  BUILTIN_TOOLS,
  MemoryReplayCache,
  PrismaReplayCache,
  SqliteReplayCache,
  ToolRegistry,
  ToolRunner,
  workspaceFor,
  type ReplayCache,
  type ToolDefinition,
} from "@/server/tools";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const TURNS = Number(process.env.BENCH_TURNS ?? 25);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 5000);
/** For a profile (node --cpu-prof): only the paths whose label contains this, e.g. "bare durable" or "production". */
const ONLY = process.env.BENCH_ONLY;

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

interface Figures {
  label: string;
  steps: number;
  p50: number;
  p99: number;
  mean: number;
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function figures(label: string, samples: number[]): Figures {
  samples.sort((a, b) => a - b);
  return {
    label,
    steps: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
  };
}

/** Times between consecutive durable steps (each commitStep), in ms; a run's first step is not timed. `cpu` sums the process's CPU time (µs) over the same gaps. */
function timed(store: RunStore, samples: number[], cpu = { us: 0 }): RunStore {
  let last = 0;
  let lastCpu: NodeJS.CpuUsage | null = null;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "commitStep") {
        return async (...args: Parameters<RunStore["commitStep"]>) => {
          const r = await target.commitStep(...args);
          const now = performance.now();
          const used = process.cpuUsage();
          if (last) {
            samples.push(now - last);
            if (lastCpu) cpu.us += used.user - lastCpu.user + used.system - lastCpu.system;
          }
          last = now;
          lastCpu = used;
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

const control = (): RunControl => ({
  signal: new AbortController().signal,
  cancelRequested: () => false,
  pauseRequested: () => false,
  stopping: () => false,
  recovered: false,
});

/** One way of running the benchmark's agent: `one()` runs a whole run and adds its step times to `samples`. */
interface Path {
  label: string;
  samples: number[];
  /** CPU time of the process over the timed gaps, µs (Rein's paths only). */
  cpu?: { us: number };
  one(): Promise<void>;
}

function kernelPath(label: string, deps: KernelDeps, createRun: () => Promise<string>): Path {
  const samples: number[] = [];
  const cpu = { us: 0 };
  const timedDeps = { ...deps, store: timed(deps.store, samples, cpu) };
  return {
    label,
    samples,
    cpu,
    async one() {
      const outcome = await driveRun(await createRun(), timedDeps, control());
      if (outcome !== "succeeded") throw new Error(`${label}: run ended ${outcome}`);
    },
  };
}

function bareDeps(store: RunStore, cache: ReplayCache, dataDir: string): KernelDeps {
  const registry = new ToolRegistry([...BUILTIN_TOOLS, noop]);
  return {
    store,
    specs: new MemorySpecSource([spec]),
    router: new DefaultModelRouter({ scriptedDelayMs: 0 }),
    registry,
    tools: new ToolRunner(registry, cache),
    workspaceFor: (id) => workspaceFor(dataDir, id),
    publishTransient: () => {},
    log: { info: () => {}, error: (m, e) => console.error(m, e) },
  };
}

/**
 * The kernel as server.ts wires it for SQLite: the policy gate with its audit
 * rows, secrets and redaction, spans and rollups from the event log, budgets
 * before each model call. A run budget is set so budgets do their whole check.
 */
async function production(db: Db, native: NativeSqlite, url: string, dataDir: string, admin: { id: string; name: string }) {
  const keyring = memoryKeyring();
  await setToolSecret(
    db,
    keyring,
    { name: "KERNEL_DEMO_TOKEN", value: "bench-secret-value-0123456789", scope: { agents: ["*"] } },
    { userId: admin.id, name: admin.name, channel: "bench" },
  );
  const base = await savePolicy(db, { source: DEFAULT_POLICY, comment: "bench", actor: admin });
  await savePolicy(db, {
    source: `${DEFAULT_POLICY}\n  - name: the benchmark's no-op tool\n    tool: noop\n    decision: allow\n`,
    comment: "bench: allow noop",
    actor: admin,
    baseVersion: base.version,
  });
  const gate = new HumanGate({ db, policy: new PolicyGate(db), audit: auditWriter(db, native) });
  const log = { info: () => {}, error: (m: string, e?: unknown) => console.error(m, e) };
  const kernel = await createKernel({
    db,
    native,
    databaseUrl: url,
    dataDir,
    workers: 1,
    scriptedDelayMs: 0,
    gate,
    keyring,
    log,
    snapshots: false,
  });
  kernel.deps.registry.register(noop);
  const telemetry = await startTelemetry({ db, kernel, native, keyring, log });
  kernel.deps.limits = new Budgets({
    db,
    native,
    flush: () => telemetry.sink.flush(),
    unwritten: (scope) => telemetry.sink.unwrittenCalls(scope),
    log,
  });
  return { kernel, telemetry };
}

/** Times between LangGraph's checkpoints (one per super-step: the agent's turn, the tools' results), as `timed` does for Rein. */
function timedSaver(file: string, samples: number[]) {
  const saver = SqliteSaver.fromConnString(file);
  let last = 0;
  const put = saver.put.bind(saver);
  saver.put = async (...args: Parameters<typeof saver.put>) => {
    const r = await put(...args);
    const now = performance.now();
    if (last) samples.push(now - last);
    last = now;
    return r;
  };
  return { saver, newRun: () => void (last = 0) };
}

/** LangGraph.js as its users write the loop: a messages state, the model's AIMessage with tool calls, the prebuilt ToolNode. */
function langgraphIdiomatic(dir: string): Path {
  const samples: number[] = [];
  const { saver, newRun } = timedSaver(path.join(dir, "langgraph-messages.db"), samples);
  const noopTool = lcTool(async ({ i }: { i: number }) => JSON.stringify(noop.execute({ i }, undefined as never)), {
    name: "noop",
    description: noop.description,
    schema: z.object({ i: z.number() }),
  });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", (s) => {
      const turn = s.messages.filter((m) => m instanceof AIMessage).length;
      const t = scenario.turns[turn];
      const tool_calls = (t.toolCalls ?? []).map((c, j) => ({
        id: `call-${turn}-${j}`,
        name: c.tool,
        args: c.args as Record<string, unknown>,
        type: "tool_call" as const,
      }));
      return { messages: [new AIMessage({ content: t.text ?? "", tool_calls })] };
    })
    .addNode("tools", new ToolNode([noopTool]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  let n = 0;
  return {
    label: "LangGraph.js: messages, ToolNode",
    samples,
    async one() {
      newRun();
      await graph.invoke(
        { messages: [new HumanMessage("bench")] },
        { configurable: { thread_id: `messages-${n++}` }, recursionLimit: 10_000 },
      );
    },
  };
}

/** LangGraph.js at its leanest: the same loop over plain objects, no message classes. */
function langgraphMinimal(dir: string): Path {
  type Msg = {
    role: "user" | "assistant" | "tool";
    text?: string;
    toolCalls?: Array<{ id: string; tool: string; args: { i: number } }>;
    callId?: string;
    result?: unknown;
  };
  const State = Annotation.Root({
    messages: Annotation<Msg[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    turn: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
  });
  const samples: number[] = [];
  const { saver, newRun } = timedSaver(path.join(dir, "langgraph-plain.db"), samples);
  const graph = new StateGraph(State)
    .addNode("agent", (s) => {
      const t = scenario.turns[s.turn];
      const toolCalls = (t.toolCalls ?? []).map((c, j) => ({ id: `call-${s.turn}-${j}`, tool: c.tool, args: c.args as { i: number } }));
      return { messages: [{ role: "assistant" as const, text: t.text, toolCalls }], turn: s.turn + 1 };
    })
    .addNode("tools", async (s) => {
      const calls = s.messages[s.messages.length - 1].toolCalls ?? [];
      const results: Msg[] = [];
      for (const c of calls) results.push({ role: "tool", callId: c.id, result: await noop.execute(c.args, undefined as never) });
      return { messages: results };
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => (s.messages[s.messages.length - 1].toolCalls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: saver });
  let n = 0;
  return {
    label: "LangGraph.js: plain state",
    samples,
    async one() {
      newRun();
      await graph.invoke(
        { messages: [{ role: "user", text: "bench" }] },
        { configurable: { thread_id: `plain-${n++}` }, recursionLimit: 10_000 },
      );
    },
  };
}

async function appendRate(label: string, store: RunStore, runId: string, batch: number) {
  const per: number[] = [];
  const started = performance.now();
  for (let i = 0; i < APPENDS / batch; i++) {
    const t0 = performance.now();
    await store.appendEvents(
      runId,
      Array.from({ length: batch }, (_, j) => event("run.control", { action: "pause", by: `bench-${i}-${j}`, byName: "bench" })),
    );
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

const ms = (n: number) => n.toFixed(3).padStart(8);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-"));
  try {
    const url = `file:${path.join(dir, "bench.db")}`;
    const db = await migratedDb(url);
    const native = openNativeSqlite(url);
    // As server.ts runs it: WAL checkpoints on a worker thread, not inside a step's commit.
    const walCheckpoints = startWalCheckpointer(native, url);
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "admin" });
    await db.agentSpec.create({
      data: {
        name: spec.name,
        version: 1,
        instructions: spec.instructions,
        model: spec.model,
        tools: JSON.stringify(spec.tools),
        builtIn: true,
      },
    });

    const memory = new MemoryRunStore();
    let memRuns = 0;
    const memRun = () => {
      const id = `mem-${memRuns++}`;
      memory.addRun({
        id,
        goal: "bench",
        agentName: "bench",
        agentVersion: 1,
        status: "queued",
        model: spec.model,
        scenario,
        maxSteps: 1000,
        createdById: userId,
        teamId: null,
      });
      return Promise.resolve(id);
    };
    const dbRun = (budgetUsd: number | null) => async () =>
      (
        await db.run.create({
          data: {
            goal: "bench",
            agentName: "bench",
            agentVersion: 1,
            model: spec.model,
            scenario: JSON.stringify(scenario),
            maxSteps: 1000,
            createdById: userId,
            budgetUsd,
          },
          select: { id: true },
        })
      ).id;
    const prod = await production(db, native, url, dir, { id: userId, name: "bench" });

    const bare = kernelPath(
      "bare durable step (SQLite)",
      bareDeps(new SqliteRunStore(native), new SqliteReplayCache(native), dir),
      dbRun(null),
    );
    const prodStep = kernelPath("production step (SQLite)", prod.kernel.deps, dbRun(100));
    const idiomatic = langgraphIdiomatic(dir);
    const minimal = langgraphMinimal(dir);
    const paths = [
      kernelPath("in-memory store", bareDeps(memory, new MemoryReplayCache(), dir), memRun),
      bare,
      prodStep,
      idiomatic,
      minimal,
    ].filter((p) => !ONLY || p.label.includes(ONLY));
    // Warm up every path (JIT, prepared statements, the policy), then measure them run by run in turn.
    for (const p of paths) {
      for (let i = 0; i < 3; i++) await p.one();
      p.samples.length = 0;
      if (p.cpu) p.cpu.us = 0;
    }
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    for (let i = 0; i < RUNS; i++) for (const p of paths) await p.one();
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - wall0;
    await prod.telemetry.stop();
    if (ONLY) {
      const steps = paths.reduce((n, p) => n + p.samples.length, 0);
      console.log(
        `cpu per step: user ${(cpu.user / 1000 / steps).toFixed(3)} ms, system ${(cpu.system / 1000 / steps).toFixed(3)} ms; wall per step ${(wall / steps).toFixed(3)} ms (runs included)`,
      );
      for (const p of paths) {
        const r = figures(p.label, p.samples);
        const cpuMs = p.cpu ? ` cpu ${(p.cpu.us / 1000 / r.steps).toFixed(3)} ms/step` : "";
        console.log(`${r.label.padEnd(34)} ${String(r.steps).padStart(7)} ${ms(r.p50)} ${ms(r.p99)} ${ms(r.mean)}${cpuMs}`);
      }
      prod.kernel.close();
      await walCheckpoints.stop();
      native.close();
      await db.$disconnect();
      return;
    }
    // For scale, on its own afterwards (its engine's garbage would slow the others): the bare step through Prisma.
    const viaPrisma = kernelPath(
      "bare step, store via Prisma",
      bareDeps(new PrismaRunStore(db), new PrismaReplayCache(db), dir),
      dbRun(null),
    );
    for (let i = 0; i < 3; i++) await viaPrisma.one();
    viaPrisma.samples.length = 0;
    for (let i = 0; i < RUNS; i++) await viaPrisma.one();
    paths.push(viaPrisma);

    const results = paths.map((p) => figures(p.label, p.samples));
    const [b, pr, peer, lean] = [bare, prodStep, idiomatic, minimal].map((p) => results[paths.indexOf(p)]);
    const faster = (other: Figures, ours: Figures) =>
      `${(other.p50 / ours.p50).toFixed(2)}x faster at p50, ${(other.p99 / ours.p99).toFixed(2)}x at p99`;
    console.log(`\nOne durable step (${RUNS} runs x ${TURNS * 2 + 1} steps; scripted model, no-op pure tool)`);
    console.log("path                                steps   p50 ms   p99 ms  mean ms");
    for (const r of results) console.log(`${r.label.padEnd(34)} ${String(r.steps).padStart(7)} ${ms(r.p50)} ${ms(r.p99)} ${ms(r.mean)}`);
    console.log(`bare step vs LangGraph.js (messages):   ${faster(peer, b)} (aim: 3x at both)`);
    console.log(`bare step vs LangGraph.js (plain):      ${faster(lean, b)}`);
    console.log(`production vs LangGraph.js (messages):  ${faster(peer, pr)}`);
    console.log(
      `production step / bare step:            ${(pr.p50 / b.p50).toFixed(2)}x at p50, ${(pr.p99 / b.p99).toFixed(2)}x at p99 (aim: within 1.3x)`,
    );

    const appendRunMem = await memRun();
    const appendRunDb = await dbRun(null)();
    const sqliteStore = new SqliteRunStore(native);
    const rows = [
      await appendRate("in-memory store", memory, appendRunMem, 1),
      await appendRate("SQLite, direct (default)", sqliteStore, appendRunDb, 1),
      await appendRate("SQLite, direct (default)", sqliteStore, appendRunDb, 100),
      await appendRate("SQLite via Prisma", new PrismaRunStore(db), appendRunDb, 1),
    ];
    console.log(`\nEvent-log append (${APPENDS} events)`);
    console.log("store                    batch   events/s   p50 ms/event");
    for (const r of rows)
      console.log(
        `${r.label.padEnd(24)} ${String(r.batch).padStart(5)} ${Math.round(r.rate).toString().padStart(10)} ${r.p50.toFixed(4).padStart(14)}`,
      );
    console.log("(for scale: OpenHands reports 0.17 ms median per stored event)\n");
    prod.kernel.close();
    await walCheckpoints.stop();
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
