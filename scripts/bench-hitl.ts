// npm run bench:hitl — the cost of policy and people (docs/human-requests-and-policy.md):
// (a) the policy decision per tool call (PolicyGate over the default policy,
//     a realistic mix of calls) against a trivial allow-all function in the
//     same loop, and the whole HumanGate.check with its audit row;
// (b) decision to resume: a person decides a waiting demo-deploy run; how long
//     until the worker runs it again and the approved call's result is written,
//     against resuming a paused run at the same point (a pending shell call);
// (c) people's attention (docs/performance.md#peoples-attention): a fixed mix of the
//     demo agents in one team, decided by simulated people as their requests appear,
//     then the suggested rules (docs/human-requests-and-policy.md#suggested-rules)
//     added by an admin and the same mix again: prompts per 100 tool calls, the share
//     of run time spent waiting for a person and the median time to a decision per
//     channel, before and after; and the attack corpus of policy bypasses decided in
//     the runs' team under the policy before and after the rules.
// Prints figures; asserts nothing.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { openDb, type Db } from "@/server/db";
import { BUILTIN_SCENARIOS } from "@/server/models";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createKernel, createRun, initialState, type Kernel, type RunEventRecord } from "@/server/kernel";
import { PolicyGate, acceptSuggestion, ruleSuggestions, MIN_APPROVALS, type PolicyInput } from "@/server/policy";
import {
  HitlBroker,
  HumanGate,
  attentionFigures,
  median,
  connectHitl,
  type AttentionFigures,
  type Channel,
  type DecisionInput,
} from "@/server/hitl";
import { Workspace, type GateCall, type ToolContext, type ToolDefinition } from "@/server/tools";
import { BYPASS_CORPUS, corpusCall } from "../test/attack/policy-bypass.corpus";

const POLICY_CALLS = Number(process.env.BENCH_POLICY_CALLS ?? 20_000);
const GATE_CALLS = Number(process.env.BENCH_GATE_CALLS ?? 2_000);
const ASK_CALLS = Number(process.env.BENCH_ASK_CALLS ?? 300);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const ATTENTION_RUNS = Number(process.env.BENCH_ATTENTION_RUNS ?? 200);
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
    // The same script under another name runs without matching the policy's ask rule (the policy
    // reads `sh deploy.sh` as the script it runs, so that spelling asks too).
    const SAME_SCRIPT = "site.sh";
    const scenario = {
      turns: [{ text: "Deploying.", toolCalls: [{ tool: "shell", args: { command: `./${SAME_SCRIPT} production` } }] }, { text: "Done." }],
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
      for (const f of files)
        fs.writeFileSync(path.join(workspace.root, f.path === "deploy.sh" ? SAME_SCRIPT : f.path), f.content, { mode: 0o755 });
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

// --- (c) people's attention -----------------------------------------------------------

/** Runs going at once (each launched as one ends), and the kernel's workers. */
const AT_ONCE = 6;
const ATTENTION_WORKERS = 4;
const TEAM = "shop";

/** What people in the team launch, in this order, over and over: 3 coding runs, 6 deploys, 1 release in ten. */
const WORKLOAD: Array<{ agent: string; goal: string }> = [
  { agent: "demo-coder", goal: "Write fizzbuzz with tests" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to staging" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to qa" },
  { agent: "demo-coder", goal: "Write a slugify helper with tests" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to production" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to staging" },
  { agent: "demo-coder", goal: "Write fizzbuzz with tests" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to qa" },
  { agent: "demo-deploy", goal: "Deploy version 1.4.0 to staging" },
  { agent: "demo-release", goal: "Publish the release notes for 1.4" },
];

const kindOf = (w: { agent: string; goal: string }) => (w.agent === "demo-deploy" ? `demo-deploy to ${w.goal.split(" ").pop()}` : w.agent);

/**
 * Where simulated people answer and how long they take: the channel is drawn per request
 * by its weight, the delay uniformly between min and max. These times are the simulation's,
 * not measured people's; the figures computed from them are read from the database by the
 * same code that would read real answers (attentionFigures).
 */
const PEOPLE: Array<{ channel: Channel; weight: number; minMs: number; maxMs: number }> = [
  { channel: "slack", weight: 35, minMs: 200, maxMs: 800 },
  { channel: "inbox", weight: 35, minMs: 500, maxMs: 2_000 },
  { channel: "link", weight: 20, minMs: 300, maxMs: 1_200 },
  { channel: "api", weight: 10, minMs: 50, maxMs: 200 },
];
/** The share of production deploys people reject. */
const PRODUCTION_REJECTED = 0.3;

/** A number in [0, 1) fixed by the key: the same run and request draw the same in both phases. */
function unit(key: string): number {
  return createHash("sha256").update(key).digest().readUInt32BE(0) / 2 ** 32;
}

function channelFor(key: string) {
  let u = unit(`channel:${key}`) * PEOPLE.reduce((n, p) => n + p.weight, 0);
  const p = PEOPLE.find((p) => (u -= p.weight) < 0) ?? PEOPLE[PEOPLE.length - 1];
  return { channel: p.channel, delayMs: Math.round(p.minMs + unit(`delay:${key}`) * (p.maxMs - p.minMs)) };
}

/** What a person answers: production deploys rejected some of the time, the rest approved, choices and values given. */
function answerFor(index: number, row: { kind: string; payload: string }): DecisionInput {
  const payload = JSON.parse(row.payload) as { tool?: string; args?: { command?: string }; options?: Array<{ id: string }> };
  if (row.kind === "choose") {
    const options = payload.options ?? [];
    return { decision: "choose", optionId: options[Math.floor(unit(`option:${index}`) * options.length)].id };
  }
  if (row.kind === "provide") return { decision: "provide", value: { capPercent: 20 } };
  if (row.kind === "approve" && /production/.test(payload.args?.command ?? "") && unit(`reject:${index}`) < PRODUCTION_REJECTED)
    return { decision: "reject", comment: "Not today" };
  return { decision: "approve" };
}

interface Phase {
  figures: AttentionFigures;
  wallMs: number;
  outcomes: Map<string, number>;
  unanswered: number;
  /** The delays the simulation drew, by channel. */
  drawn: Map<string, number[]>;
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

async function corpusCheck(db: Db, team: { name: string; id: string }) {
  const gate = new PolicyGate(db);
  const strictness = { allow: 0, ask: 1, deny: 2 } as Record<string, number>;
  let asMust = 0;
  const laxer: string[] = [];
  for (const c of BYPASS_CORPUS) {
    const { effect, reason } = await gate.decide(corpusCall(c.command, team));
    if (effect === c.expect) asMust++;
    else if (strictness[effect] < strictness[c.expect]) laxer.push(`${JSON.stringify(c.command)}: ${effect}, must ${c.expect} (${reason})`);
  }
  return { asMust, total: BYPASS_CORPUS.length, laxer, version: (await gate.current()).version };
}

async function attentionBench(dir: string) {
  const url = `file:${path.join(dir, "attention.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const db = await openDb(url);
  const policy = new PolicyGate(db);
  const gate = new HumanGate({ db, policy });
  const kernel = await createKernel({
    db,
    databaseUrl: url,
    dataDir: path.join(dir, "attention"),
    workers: ATTENTION_WORKERS,
    scriptedDelayMs: 0,
    log: SILENT,
    gate,
  });
  const broker = new HitlBroker({
    db,
    runs: kernel.store,
    enqueue: (id) => kernel.enqueue(id),
    validateArgs: (t, a) => kernel.deps.registry.validate(t, a),
    log: SILENT,
  });
  const disconnect = connectHitl(kernel, broker, SILENT);
  const operator = (await loadActor(
    db,
    await createUser(db, { email: "ops@bench.local", name: "Olga", password: "bench-password", role: "operator", teams: [TEAM] }),
  ))!;
  const people = await Promise.all(
    ["Ann", "Bo", "Cy"].map(async (name) => {
      const actor = (await loadActor(
        db,
        await createUser(db, {
          email: `${name.toLowerCase()}@bench.local`,
          name,
          password: "bench-password",
          role: "approver",
          teams: [TEAM],
        }),
      ))!;
      return { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles };
    }),
  );
  const adminId = await createUser(db, { email: "admin@bench.local", name: "Ada", password: "bench-password", role: "admin" });
  const team = { name: TEAM, id: operator.teamIds[0] };

  // Which workload entry a run is, how many requests it has made, and who waits for its end.
  const indexOf = new Map<string, number>();
  const asked = new Map<string, number>();
  const endedAs = new Map<string, string>();
  const waiters = new Map<string, (to: string) => void>();
  const decisions = new Set<Promise<void>>();
  let unanswered = 0;
  let drawn = new Map<string, number[]>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function answer(runId: string, requestId: string) {
    for (let i = 0; !indexOf.has(runId) && i < 1000; i++) await sleep(5); // the request came before createRun returned
    const index = indexOf.get(runId);
    if (index === undefined) return;
    const n = asked.get(runId) ?? 0;
    asked.set(runId, n + 1);
    const { channel, delayMs } = channelFor(`${index}:${n}`);
    drawn.set(channel, [...(drawn.get(channel) ?? []), delayMs]);
    const person = people[Math.floor(unit(`person:${index}:${n}`) * people.length)];
    // The person answers `delayMs` after the request was made (its row, written before the run's event).
    const row = await db.humanRequest.findUniqueOrThrow({
      where: { id: requestId },
      select: { kind: true, payload: true, createdAt: true },
    });
    await sleep(Math.max(0, row.createdAt.getTime() + delayMs - Date.now()));
    try {
      await broker.decide(requestId, person, answerFor(index, row), channel);
    } catch (err) {
      unanswered++;
      console.error(`request ${requestId} of run ${runId}: ${(err as Error).message}`);
    }
  }

  const off = kernel.bus.onAny((runId, events) => {
    for (const e of events) {
      if (e.type === "human.requested") {
        const d = answer(runId, (e.payload as { requestId: string }).requestId).finally(() => decisions.delete(d));
        decisions.add(d);
      } else if (endedAs.has(runId)) continue;
      else if (ended(e)) {
        const to = (e.payload as { to: string }).to;
        endedAs.set(runId, to);
        waiters.get(runId)?.(to);
      }
    }
  });

  async function phase(): Promise<Phase> {
    const ids: string[] = [];
    let next = 0;
    unanswered = 0;
    drawn = new Map();
    const lane = async () => {
      while (next < ATTENTION_RUNS) {
        const i = next++;
        const run = await createRun(kernel, WORKLOAD[i % WORKLOAD.length], operator);
        indexOf.set(run.id, i);
        ids.push(run.id);
        await new Promise<string>((resolve, reject) => {
          if (endedAs.has(run.id)) return resolve(endedAs.get(run.id)!);
          const timer = setTimeout(() => reject(new Error(`run ${run.id} (${WORKLOAD[i % WORKLOAD.length].goal}) did not end`)), 120_000);
          waiters.set(run.id, (to) => (clearTimeout(timer), resolve(to)));
        });
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: AT_ONCE }, lane));
    const wallMs = performance.now() - t0;
    await Promise.all([...decisions]);
    const outcomes = new Map<string, number>();
    for (const id of ids) {
      const key = `${endedAs.get(id)}${endedAs.get(id) === "succeeded" ? "" : ` (${kindOf(WORKLOAD[indexOf.get(id)! % WORKLOAD.length])})`}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    return { figures: await attentionFigures(db, ids), wallMs, outcomes, unanswered, drawn };
  }

  try {
    const corpusBefore = await corpusCheck(db, team);
    const before = await phase();

    const suggestions = await ruleSuggestions(db);
    const admin = { id: adminId, name: "Ada" };
    for (const s of suggestions) await acceptSuggestion(db, admin, s.id);
    policy.invalidate();
    const corpusAfter = await corpusCheck(db, team);
    // Each rule is as narrow as the approvals: its line is allowed in this team, and still asked about in another.
    const other = { name: "growth", id: (await db.team.create({ data: { name: "growth" } })).id };
    const reach = await Promise.all(
      suggestions.map(async (s) => {
        const [here, there] = await Promise.all([team, other].map((t) => policy.decide(corpusCall(s.command, t))));
        return `${here.effect} in ${team.name}, ${there.effect} in ${other.name}`;
      }),
    );

    const after = await phase();

    const mix = new Map<string, number>();
    for (let i = 0; i < ATTENTION_RUNS; i++) {
      const key = kindOf(WORKLOAD[i % WORKLOAD.length]);
      mix.set(key, (mix.get(key) ?? 0) + 1);
    }
    console.log(
      `\n(c) People's attention: ${ATTENTION_RUNS} runs in team "${TEAM}" (${[...mix].map(([k, n]) => `${n} ${k}`).join(", ")}), ` +
        `${AT_ONCE} at a time on ${ATTENTION_WORKERS} workers, the same mix twice: before and after the suggested rules`,
    );
    console.log(
      `simulated people (not measured ones) answer each request on a channel drawn per request after a delay drawn uniformly per channel: ${PEOPLE.map(
        (p) => `${p.channel} ${p.weight}%, ${p.minMs}-${p.maxMs} ms`,
      ).join("; ")}; production deploys rejected ${PRODUCTION_REJECTED * 100}% of the time, everything else approved`,
    );
    console.log(
      `\nsuggested rules (at least ${MIN_APPROVALS} approvals, none rejected), all added by an admin as policy v${corpusAfter.version}: ${suggestions.length}`,
    );
    for (const [i, s] of suggestions.entries())
      console.log(`  ${s.command.padEnd(24)} team ${s.team.name}, approved ${s.approvals} times by ${s.approvers} people; now ${reach[i]}`);

    const channels = [...new Set([...before.figures.channels, ...after.figures.channels].map((c) => c.channel))];
    const med = (p: Phase, ch: string) => {
      const c = p.figures.channels.find((c) => c.channel === ch);
      return c ? `${fmtMs(c.medianMs)} (${c.decided}; drawn ${fmtMs(median(p.drawn.get(ch) ?? []))})` : "none";
    };
    const rows: Array<[string, (p: Phase) => string]> = [
      [
        "runs ended",
        (p) =>
          [...p.outcomes]
            .sort(([a], [b]) => b.localeCompare(a))
            .map(([k, n]) => `${n} ${k}`)
            .join(", "),
      ],
      ["tool calls", (p) => String(p.figures.toolCalls)],
      ["human requests", (p) => String(p.figures.requests)],
      ["prompts per 100 tool calls", (p) => p.figures.promptsPer100Calls.toFixed(1)],
      ["run time (sum)", (p) => fmtMs(p.figures.runMs)],
      ["waiting for a person (sum)", (p) => fmtMs(p.figures.waitingMs)],
      ["share of run time waiting", (p) => `${(100 * p.figures.waitingShare).toFixed(1)}%`],
      ...channels.map((ch): [string, (p: Phase) => string] => [`median to decision, ${ch} (n)`, (p) => med(p, ch)]),
      ["wall time of the phase", (p) => fmtMs(p.wallMs)],
    ];
    console.log(`\n${"figure".padEnd(34)}  ${"before".padEnd(32)}  after`);
    for (const [label, get] of rows) {
      const [b, a] = [get(before), get(after)];
      if (b.length > 32 || a.length > 32) console.log(`${label.padEnd(34)}  before: ${b}\n${"".padEnd(34)}  after:  ${a}`);
      else console.log(`${label.padEnd(34)}  ${b.padEnd(32)}  ${a}`);
    }
    if (before.unanswered || after.unanswered)
      console.log(`requests a simulated person could not decide: ${before.unanswered} before, ${after.unanswered} after`);
    console.log(
      `\ncorpus of policy bypasses decided in team "${TEAM}": ${corpusBefore.asMust} of ${corpusBefore.total} corpus entries decided as they must before (policy v${corpusBefore.version}), ` +
        `${corpusAfter.asMust} of ${corpusAfter.total} after (v${corpusAfter.version}); less strict than they must: ${corpusBefore.laxer.length} before, ${corpusAfter.laxer.length} after`,
    );
    for (const l of corpusAfter.laxer) console.log(`  less strict after: ${l}`);
    console.log("");
  } finally {
    off();
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
    await attentionBench(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
