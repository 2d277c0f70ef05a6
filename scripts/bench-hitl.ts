// npm run bench:hitl — the cost of policy and people (docs/human-requests-and-policy.md):
// (a) the policy decision per tool call (PolicyGate over the default policy,
//     a realistic mix of calls) against a trivial allow-all function in the
//     same loop, and the whole HumanGate.check with its audit row;
// (b) decision to resume: a person decides a waiting demo-deploy run; how long
//     until the worker runs it again and the approved call's result is written,
//     against resuming a paused run at the same point (a pending shell call).
// Prints figures; asserts nothing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openDb, type Db } from "@/server/db";
import { BUILTIN_SCENARIOS } from "@/server/models";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createKernel, createRun, initialState, type Kernel, type RunEventRecord } from "@/server/kernel";
import { PolicyGate, type PolicyInput } from "@/server/policy";
import { HitlBroker, HumanGate, connectHitl } from "@/server/hitl";
import { Workspace, type GateCall, type ToolContext, type ToolDefinition } from "@/server/tools";

const POLICY_CALLS = Number(process.env.BENCH_POLICY_CALLS ?? 20_000);
const GATE_CALLS = Number(process.env.BENCH_GATE_CALLS ?? 2_000);
const ASK_CALLS = Number(process.env.BENCH_ASK_CALLS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;

const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

// --- (a) the policy decision per tool call --------------------------------------

/** What a coding agent calls, weighted roughly as runs do: mostly files and harmless shell, a few risky commands. */
const MIX: Array<[weight: number, tool: string, args: Record<string, unknown>]> = [
  [25, "read_file", { path: "src/index.ts" }],
  [15, "write_file", { path: "src/slugify.mjs", content: "export const slugify = (s) => s;" }],
  [10, "edit_file", { path: "README.md", old: "a", new: "b" }],
  [5, "list_files", { path: "." }],
  [10, "search", { pattern: "TODO" }],
  [10, "shell", { command: "npm test" }],
  [5, "shell", { command: "ls -la src" }],
  [5, "shell", { command: "git status --short" }],
  [3, "shell", { command: "git push origin main" }],
  [2, "shell", { command: "./deploy.sh production" }],
  [2, "shell", { command: "rm -rf build" }],
  [1, "shell", { command: "./publish.sh" }],
  [3, "update_tasks", { tasks: [] }],
  [2, "browser_navigate", { url: "http://localhost:3000" }],
  [2, "send_email", { to: "someone@example.com" }],
];

function policyInputs(actor: Actor): PolicyInput[] {
  return MIX.flatMap(([w, tool, args]) =>
    Array.from({ length: w }, () => ({ actor: { id: actor.userId, email: actor.email }, team: "default", tool, args, tier: "T1" })),
  );
}

/** µs per awaited call of `decide` over the inputs, in a loop. */
async function timeCalls<T>(inputs: T[], calls: number, decide: (input: T, i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const input = inputs[i % inputs.length];
    const t0 = process.hrtime.bigint();
    await decide(input, i);
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return samples;
}

function stubTool(name: string): ToolDefinition {
  return { name, description: "benchmark stub", args: z.any(), replayClass: "pure", persistence: "none", execute: async () => null };
}

async function policyBench(db: Db, actor: Actor) {
  const policy = new PolicyGate(db);
  const active = await policy.current();
  const inputs = policyInputs(actor);
  const effectOf = new Map<PolicyInput, string>();
  for (const input of inputs) effectOf.set(input, (await policy.decide(input)).effect);
  const effects = new Map<string, number>();
  for (const e of effectOf.values()) effects.set(e, (effects.get(e) ?? 0) + 1);
  const allowAll = async (_input: PolicyInput) => ({ effect: "allow" as const });

  // Warm both (JIT), then measure alternately so both see the same machine.
  await timeCalls(inputs, 2000, allowAll);
  await timeCalls(inputs, 2000, (i) => policy.decide(i));
  const baseline: number[] = [];
  const decided: number[] = [];
  for (let round = 0; round < 4; round++) {
    baseline.push(...(await timeCalls(inputs, POLICY_CALLS / 4, allowAll)));
    decided.push(...(await timeCalls(inputs, POLICY_CALLS / 4, (i) => policy.decide(i))));
  }

  // The whole gate: PolicyGate + the policy.decision audit row (allow and deny calls; asks below).
  const gate = new HumanGate({ db, policy });
  const ctx: ToolContext = {
    runId: "bench-gate",
    workspace: new Workspace(os.tmpdir()),
    agent: { name: "demo-coder", handoffs: [] },
    actorId: actor.userId,
    teamId: actor.teamIds[0] ?? null,
    tier: "T1",
    signal: new AbortController().signal,
  };
  const calls = (ask: boolean): GateCall[] =>
    inputs
      .filter((input) => (effectOf.get(input) === "ask") === ask)
      .map((input) => ({
        tool: stubTool(input.tool),
        args: input.args,
        address: { runId: "bench-gate", nodeId: "", checkpointId: "cp" },
        ctx,
      }));
  const plain = calls(false);
  await timeCalls(plain, 200, (c, i) => gate.check({ ...c, address: { ...c.address, nodeId: `warm:${i}` } }));
  const checked = await timeCalls(plain, GATE_CALLS, (c, i) => gate.check({ ...c, address: { ...c.address, nodeId: `n:${i}` } }));
  // An ask creates the human request (its row and the PENDING audit row) the first time.
  const asks = calls(true);
  const asked = await timeCalls(asks, ASK_CALLS, (c, i) => gate.check({ ...c, address: { ...c.address, nodeId: `ask:${i}` } }));

  const rows = [
    { label: "allow-all function (baseline)", ...summary(baseline) },
    { label: "PolicyGate.decide", ...summary(decided) },
    { label: "HumanGate.check, allow/deny", ...summary(checked) },
    { label: "HumanGate.check, ask (new request)", ...summary(asked) },
  ];
  console.log(
    `\n(a) Policy per tool call: default policy v${active.version} (${active.ruleCount} rules), ${inputs.length}-call mix: ${[...effects].map(([e, n]) => `${n}% ${e}`).join(", ")}`,
  );
  console.log("path                                      calls     p50 µs     p99 µs    mean µs");
  for (const r of rows)
    console.log(
      `${r.label.padEnd(38)} ${String(r.n).padStart(9)} ${r.p50.toFixed(1).padStart(10)} ${r.p99.toFixed(1).padStart(10)} ${r.mean.toFixed(1).padStart(10)}`,
    );
  const [b, p] = rows;
  console.log(
    `policy decision cost per call: p50 +${(p.p50 - b.p50).toFixed(1)} µs, p99 +${(p.p99 - b.p99).toFixed(1)} µs over the allow-all loop (${(p.p50 / b.p50).toFixed(1)}x at p50)`,
  );
  console.log(`HumanGate.check (policy + its audit row) p50 is ${(rows[2].p50 / p.p50).toFixed(0)}x PolicyGate.decide alone`);
}

// --- (b) decision to resume ---------------------------------------------------------

const EVENT_LIMIT_MS = 60_000;

/** Resolves with the first event of `runId` matching `match`, recording when it was published. */
function nextEvent(
  kernel: Kernel,
  runId: string,
  match: (e: RunEventRecord) => boolean,
  what: string,
): Promise<{ e: RunEventRecord; at: number }> {
  return new Promise((resolve, reject) => {
    // Also keeps the process alive while it waits: without it a stuck run would end the script silently.
    const timer = setTimeout(() => {
      off();
      reject(new Error(`run ${runId}: no ${what} within ${EVENT_LIMIT_MS / 1000} s`));
    }, EVENT_LIMIT_MS);
    const off = kernel.bus.onRun(runId, (events) => {
      const e = events.find(match);
      if (e) {
        off();
        clearTimeout(timer);
        resolve({ e, at: performance.now() });
      }
    });
  });
}

const isState = (to: string) => (e: RunEventRecord) => e.type === "run.state" && (e.payload as { to: string }).to === to;
const ended = (e: RunEventRecord) =>
  e.type === "run.state" && ["succeeded", "failed", "canceled"].includes((e.payload as { to: string }).to);

async function resumeBench(dir: string, url: string) {
  const db = await openDb(url);
  const policy = new PolicyGate(db);
  const gate = new HumanGate({ db, policy });
  const kernel = await createKernel({ db, databaseUrl: url, dataDir: dir, workers: 1, scriptedDelayMs: 0, log: SILENT, gate });
  const broker = new HitlBroker({
    db,
    runs: kernel.store,
    enqueue: (id) => kernel.enqueue(id),
    validateArgs: (t, a) => kernel.deps.registry.validate(t, a),
    log: SILENT,
  });
  const disconnect = connectHitl(kernel, broker, SILENT);
  const operator = (await loadActor(db, await createUser(db, { email: "op@bench.local", password: "bench-password", role: "operator" })))!;
  const approverId = await createUser(db, {
    email: "approver@bench.local",
    name: "Approver",
    password: "bench-password",
    role: "approver",
  });
  const approver = { id: approverId, name: "Approver", role: "approver" as const };

  try {
    // Decision path: demo-deploy waits for approval of `./deploy.sh production`.
    const decided = { returned: [] as number[], event: [] as number[], running: [] as number[], result: [] as number[] };
    for (let i = 0; i < RUNS + WARMUP; i++) {
      const waiting = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`run ${i} did not wait for a person`)), EVENT_LIMIT_MS);
        const off = kernel.bus.onAny((runId, events) => {
          if (events.some(isState("waiting_human"))) {
            off();
            clearTimeout(timer);
            resolve(runId);
          }
        });
      });
      const run = await createRun(kernel, { goal: `Deploy ${i}`, agent: "demo-deploy" }, operator);
      const runId = await waiting;
      if (runId !== run.id) throw new Error("another run waited");
      await kernel.pool.whenIdle();
      const request = await db.humanRequest.findFirstOrThrow({ where: { runId, state: "PENDING" } });
      const decidedEvent = nextEvent(kernel, runId, (e) => e.type === "human.decided", "human.decided");
      const running = nextEvent(kernel, runId, isState("running"), "run.state running");
      const result = nextEvent(kernel, runId, (e) => e.type === "tool.result", "tool.result");
      const done = nextEvent(kernel, runId, ended, "end");
      const t0 = performance.now();
      await broker.decide(request.id, approver, { decision: "approve" }, "api");
      const returned = performance.now();
      const [d, r, res, end] = await Promise.all([decidedEvent, running, result, done]);
      if ((end.e.payload as { to: string }).to !== "succeeded")
        throw new Error(`run ${runId} ended ${(end.e.payload as { to: string }).to}`);
      if (i < WARMUP) continue;
      decided.returned.push(returned - t0);
      decided.event.push(d.at - t0);
      decided.running.push(r.at - t0);
      decided.result.push(res.at - t0);
    }

    // Baseline: the same point of a run (the same deploy command pending in its checkpoint,
    // the same workspace files), paused, then resumed by an operator.
    const spec = (await kernel.specs.get("demo-deploy"))!;
    const files = BUILTIN_SCENARIOS["demo-deploy"].turns[0].toolCalls!.map((c) => c.args as { path: string; content: string });
    // `sh deploy.sh` runs the same script without matching the policy's ask rule.
    const scenario = {
      turns: [{ text: "Deploying.", toolCalls: [{ tool: "shell", args: { command: "sh deploy.sh production" } }] }, { text: "Done." }],
    };
    const resumed = { returned: [] as number[], running: [] as number[], result: [] as number[] };
    for (let i = 0; i < RUNS + WARMUP; i++) {
      const { id: runId } = await db.run.create({
        data: {
          goal: `Resume ${i}`,
          agentName: spec.name,
          agentVersion: spec.version,
          model: "scripted/run-scenario",
          tier: spec.tier,
          scenario: JSON.stringify(scenario),
          maxSteps: 10,
          createdById: operator.userId,
          teamId: operator.teamIds[0] ?? null,
        },
        select: { id: true },
      });
      const base = initialState(spec.name, `Resume ${i}`);
      const call = { toolCallId: `call_${i}`, toolName: "shell", args: scenario.turns[0].toolCalls![0].args };
      await kernel.store.commitStep(runId, {
        events: [],
        checkpoint: {
          ...base,
          step: 1,
          pending: [call],
          messages: [
            ...base.messages,
            { role: "assistant", content: [{ type: "tool-call", toolCallId: call.toolCallId, toolName: "shell", input: call.args }] },
          ],
        },
        seq: 1,
      });
      const workspace = kernel.deps.workspaceFor(runId);
      await workspace.ensure();
      for (const f of files) fs.writeFileSync(path.join(workspace.root, f.path), f.content, { mode: 0o755 });
      if (!(await kernel.store.transition(runId, ["queued"], "paused", { reason: "benchmark" }))) throw new Error("could not pause");
      const running = nextEvent(kernel, runId, isState("running"), "run.state running");
      const result = nextEvent(kernel, runId, (e) => e.type === "tool.result", "tool.result");
      const done = nextEvent(kernel, runId, ended, "end");
      const t0 = performance.now();
      const ok = await kernel.pool.resume(runId, { id: operator.userId, name: operator.name });
      const returned = performance.now();
      if (!ok.ok) throw new Error(ok.reason);
      const [r, res, end] = await Promise.all([running, result, done]);
      if ((end.e.payload as { to: string }).to !== "succeeded")
        throw new Error(`baseline run ${runId} ended ${(end.e.payload as { to: string }).to}`);
      if (i < WARMUP) continue;
      resumed.returned.push(returned - t0);
      resumed.running.push(r.at - t0);
      resumed.result.push(res.at - t0);
    }

    const fmt = (xs: number[]) => {
      const s = summary(xs);
      return `${s.p50.toFixed(2).padStart(8)} ${s.p95.toFixed(2).padStart(8)}`;
    };
    console.log(`\n(b) Decision to resume, in-process kernel on SQLite (${RUNS} runs each, 1 worker, scripted model, no delay)`);
    console.log("from the call, ms                              p50      p95");
    console.log(`broker.decide() returned                   ${fmt(decided.returned)}`);
    console.log(`  human.decided written                    ${fmt(decided.event)}`);
    console.log(`  run running again (worker picked it up)  ${fmt(decided.running)}`);
    console.log(`  approved call's tool.result written      ${fmt(decided.result)}`);
    console.log(`pool.resume() returned (baseline)          ${fmt(resumed.returned)}`);
    console.log(`  run running again                        ${fmt(resumed.running)}`);
    console.log(`  pending call's tool.result written       ${fmt(resumed.result)}`);
    const ratio = (a: number[], b: number[]) =>
      `${(summary(a).p50 - summary(b).p50).toFixed(2)} ms (${(summary(a).p50 / summary(b).p50).toFixed(2)}x)`;
    console.log(
      `decision vs resume at p50: back to running +${ratio(decided.running, resumed.running)}; to the call's result ${ratio(decided.result, resumed.result)}\n`,
    );
  } finally {
    disconnect();
    await broker.stop();
    await kernel.pool.stop(5_000);
    kernel.close();
    await db.$disconnect();
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-hitl-"));
  try {
    const url = `file:${path.join(dir, "bench.db")}`;
    execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
    const db = await openDb(url);
    const actor = (await loadActor(db, await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" })))!;
    await policyBench(db, actor);
    await db.$disconnect();
    await resumeBench(dir, url);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
