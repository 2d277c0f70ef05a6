// npm run bench:improve — what self-improvement costs (docs/improvements.md), in
// one process:
// (1) a runtime tool call through the ToolRunner (QuickJS in a worker, a
//     fresh instance per call, the use counted) against the same function as
//     a built-in tool through the same ToolRunner;
// (2) the sandbox on its own: the function plain vs as a runtime tool, and
//     the cold start of a sandbox per call (scripts/bench-improve-sandbox.ts);
// (3) hot-load: from the gate's pass to the tool being in the registry, over
//     real hack cycles (propose -> gate -> DEPLOY transaction -> load);
// (4) the friction miner per event and per run step, against JSON.stringify
//     of the same payloads;
// (5) an extension tool call (the csv-tools demo) against the same function
//     as a runtime tool, and the demo package's build and gate.
// (6) change-request worktrees: create and remove for the demo repository and
//     a 10,000-file one; the demo change's checks in a pod vs run directly.
// Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { createUser } from "@/server/identity";
import { createKernel } from "@/server/kernel";
import { SALES_CSV } from "@/server/models";
import { MemoryReplayCache, ToolRegistry, ToolRunner, type ToolContext, type ToolDefinition } from "@/server/tools";
import { Improve, benchExtensionCall, benchMiner, benchWorktrees, closeSandboxWorkers } from "@/server/improve";
import { benchSandbox } from "./bench-improve-sandbox";
import { migratedDb, summary } from "./bench-stats";

const CALLS = Number(process.env.BENCH_CALLS) || 300;
const WARMUP = 30;
const CYCLES = Number(process.env.BENCH_CYCLES) || 20;
const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };
const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/** The improver's demo tool, as JavaScript for the sandbox and as a built-in. */
async function demoTool() {
  const { IMPROVER_SCENARIO_TOOL } = await import("./bench-improve-tool");
  return IMPROVER_SCENARIO_TOOL;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-improve-"));
  const url = `file:${path.join(dir, "bench.db")}`;
  const db = await migratedDb(url);
  const kernel = await createKernel({ db, dataDir: path.join(dir, "data"), workers: 1, scriptedDelayMs: 0, log: SILENT });
  const ownerId = await createUser(db, { email: "bench@rein.local", password: "bench-password-1", role: "admin" });
  const improve = new Improve({ db, kernel, log: SILENT });
  const hotLoads: number[] = [];
  (improve.cycles as unknown as { deps: { onDeployed?: (i: { hotLoadMs: number }) => void } }).deps.onDeployed = (i) =>
    hotLoads.push(i.hotLoadMs);
  await improve.start({ sweepMs: 60_000 });
  const tool = await demoTool();

  // (3) Real cycles: each proposes the demo's tool under a new name and passes the gate.
  for (let i = 0; i < CYCLES; i++) {
    const runId = `bench-improver-${i}`;
    const friction = await db.friction.create({
      data: { kind: "repeated_failure", signature: `bench-${i}`, agentName: "demo-csv", title: "bench", tool: "shell" },
    });
    await db.run.create({
      data: {
        id: runId,
        goal: "bench",
        agentName: "improver",
        agentVersion: 1,
        model: "scripted/improver",
        createdById: ownerId,
        status: "running",
        workflow: "improve",
      },
    });
    await db.hackCycle.create({
      data: {
        frictionId: friction.id,
        agentName: "demo-csv",
        sessionRunId: `bench-session-${i}`,
        state: "ISOLATE",
        improverRunId: runId,
        deadlineAt: new Date(Date.now() + 600_000),
      },
    });
    await improve.cycles.propose(runId, { ...tool.proposal, name: `csv_sum_${i}` });
    await db.run.update({ where: { id: runId }, data: { status: "succeeded" } });
    await improve.cycles.improverEnded(runId);
  }
  if (hotLoads.length !== CYCLES) throw new Error(`only ${hotLoads.length} of ${CYCLES} cycles deployed`);

  // (1) The same call through the ToolRunner: built-in vs runtime tool.
  const registry = kernel.deps.registry;
  const builtin: ToolDefinition<{ csv: string; column: string }> = {
    name: "csv_sum_builtin",
    description: "the same function, built in",
    args: z.object({ csv: z.string(), column: z.string() }),
    replayClass: "pure",
    persistence: "none",
    execute: async (args) => tool.plain(args.csv, args.column),
  };
  registry.register(builtin);
  const runner = new ToolRunner(registry, new MemoryReplayCache());
  const workspace = kernel.deps.workspaceFor("bench-run");
  const args = { csv: SALES_CSV, column: "amount" };
  let n = 0;
  const call = async (name: string) => {
    const id = `c${n++}`;
    const ctx: ToolContext = {
      runId: "bench-run",
      toolCallId: id,
      workspace,
      agent: { name: "demo-csv", handoffs: [] },
      actorId: ownerId,
      signal: new AbortController().signal,
    };
    const r = await runner.run({ toolCallId: id, toolName: name, args }, { runId: "bench-run", nodeId: id, checkpointId: id }, ctx, [name]);
    if (!r.outcome.ok) throw new Error(`${name}: ${JSON.stringify(r.outcome)}`);
  };
  const time = async (name: string) => {
    for (let i = 0; i < WARMUP; i++) await call(name);
    const samples: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await call(name);
      samples.push(performance.now() - t);
    }
    return summary(samples);
  };
  // Interleaved halves, so a busy moment of the machine weighs on both.
  const b1 = await time("csv_sum_builtin");
  const r1 = await time("csv_sum_0");
  const b2 = await time("csv_sum_builtin");
  const r2 = await time("csv_sum_0");
  const bi = { p50: (b1.p50 + b2.p50) / 2, p99: Math.max(b1.p99, b2.p99) };
  const rt = { p50: (r1.p50 + r2.p50) / 2, p99: Math.max(r1.p99, r2.p99) };

  await improve.stop();
  await kernel.pool.stop();
  kernel.close();
  await db.$disconnect();

  const sandbox = await benchSandbox();
  const miner = benchMiner();
  const hot = summary(hotLoads);
  const ext = await benchExtensionCall(Math.min(CALLS, 200));
  const trees = await benchWorktrees();

  console.log("Self-improvement (npm run bench:improve)\n");
  console.log(`(1) a call through the ToolRunner, ${CALLS} × 2 each, interleaved (CSV of 5 rows)`);
  console.log(`    built-in tool        p50 ${round(bi.p50)} ms   p99 ${round(bi.p99)} ms`);
  console.log(
    `    runtime tool         p50 ${round(rt.p50)} ms   p99 ${round(rt.p99)} ms   (overhead p50 +${round(rt.p50 - bi.p50)} ms, ${round(rt.p50 / bi.p50, 1)}×)`,
  );
  console.log(`(2) the sandbox alone (200-row CSV; a fresh QuickJS instance per call)`);
  for (const [k, v] of Object.entries(sandbox)) console.log(`    ${k.padEnd(44)} ${v}`);
  console.log(`(3) hot-load, gate pass -> in the registry, over ${CYCLES} real cycles`);
  console.log(`    p50 ${round(hot.p50)} ms   p99 ${round(hot.p99)} ms   max ${round(Math.max(...hotLoads))} ms`);
  console.log(`(4) the friction miner over ${miner.events} events of ${miner.runs} runs`);
  console.log(
    `    per event ${miner.perEventUs} µs (JSON.stringify of the payload: ${miner.baselinePerEventUs} µs, ${miner.ratio}×); per run step (model turn, call, result) ≈ ${round(miner.perEventUs * 3, 2)} µs`,
  );
  console.log(`(5) an extension tool call vs the same function as a runtime tool, ${ext.calls} each, interleaved (200-row CSV)`);
  console.log(`    runtime tool         p50 ${ext.runtimeTool.p50} ms   p99 ${ext.runtimeTool.p99} ms`);
  console.log(
    `    extension tool       p50 ${ext.extensionTool.p50} ms   p99 ${ext.extensionTool.p99} ms   (overhead p50 ${ext.overheadP50Ms >= 0 ? "+" : ""}${ext.overheadP50Ms} ms, ${ext.ratioP50}×)`,
  );
  console.log(`    the demo package's build ${ext.loadMs} ms, its gate (build + 3 tests, a sandbox each) ${ext.gateMs} ms`);
  console.log(`(6) change-request worktrees, p50 over ${trees.rounds} rounds`);
  console.log(`    demo-service (${trees.demo.files} files)   create ${trees.demo.createP50Ms} ms   remove ${trees.demo.removeP50Ms} ms`);
  console.log(`    ${trees.large.files} files            create ${trees.large.createP50Ms} ms   remove ${trees.large.removeP50Ms} ms`);
  if ("skipped" in trees.checks) console.log(`    checks: skipped (${trees.checks.skipped})`);
  else {
    console.log(
      `    the demo change's tests in a ${trees.checks.sandbox} pod ${trees.checks.sandboxedP50Ms} ms vs the same command run directly ${trees.checks.directP50Ms} ms (${trees.checks.ratio}×)`,
    );
    console.log(
      `    plus the clean checkout of the proposed commit they run over, made and removed: ${trees.checks.cleanCheckoutP50Ms} ms`,
    );
  }
  await closeSandboxWorkers();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
