// npm run bench:hosted — what hosting an agent costs (docs/hosted-agents.md),
// each figure against a baseline measured in the same run:
// (a) one model call through the gateway (HTTP over its unix socket, the
//     run's token, budgets and the cap before the call, the model.turn event
//     after it) against the same scripted turn through callModel in-process,
//     as a Rein agent makes it; taking turns call by call;
// (b) a hosted agent's start: Rein's test agent in the sandbox, to its answer
//     to initialize and to session/new, against starting a terminal pod (T1);
// (c) the same task (write a file, run a command, finish) as a whole run:
//     by the hosted test agent against Rein's own loop, taking turns run by run;
// (d) that run again with the agent running its command itself (`bash -c`),
//     which the shell relay runs at the pod's prompt, against (c)'s ACP
//     terminal, taking turns run by run.
// Prints figures; asserts nothing.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { ModelGateway } from "@/server/gateway";
import { AcpHost, HostedRuns, TEST_AGENT, registerHostedProgram, runFolders, startAgentProcess } from "@/server/hosted";
import { openNativeSqlite } from "@/server/db";
import { HitlBroker, HumanGate, connectHitl } from "@/server/hitl";
import { createUser, loadActor } from "@/server/identity";
import { Budgets } from "@/server/limits";
import { DEMO_HOSTED_AGENT, callModel, createKernel, createRun, isTerminal, type Kernel, type RunState } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import { PolicyGate } from "@/server/policy";
import { memoryKeyring } from "@/server/secrets";
import { startTelemetry } from "@/server/telemetry";
import { migratedDb, summary } from "./bench-stats";

const SILENT_LOG = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };

const CALLS = Number(process.env.BENCH_ROUNDS) || 200;
const STARTS = Number(process.env.BENCH_N) || 10;
const RUNS = Number(process.env.BENCH_RUNS) || 8;
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function line(label: string, samples: number[]) {
  const s = summary(samples);
  console.log(
    `  ${label.padEnd(52)} p50 ${round(s.p50).toString().padStart(8)} ms   p99 ${round(s.p99).toString().padStart(8)} ms   (n=${s.n})`,
  );
  return s;
}

const TURN: Scenario = { turns: [{ text: "Hello." }] };
const TASK_REIN: Scenario = {
  turns: [
    { toolCalls: [{ tool: "write_file", args: { path: "note.txt", content: "hi\n" } }] },
    { toolCalls: [{ tool: "shell", args: { command: "cat note.txt" } }] },
    { text: "Done." },
  ],
};
const TASK_HOSTED: Scenario = {
  turns: [
    { toolCalls: [{ tool: "write_file", args: { path: "/workspace/note.txt", content: "hi\n" } }] },
    { toolCalls: [{ tool: "run_command", args: { command: "cat note.txt" } }] },
    { text: "Done." },
  ],
};

/** POST over the gateway's unix socket, as the relay in the sandbox passes it on. */
function post(socketPath: string, token: string, body: unknown): Promise<number> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        path: "/v1/chat/completions",
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** Rein as server.ts wires it for runs: the policy gate, people, budgets over the telemetry's spend, hosted agents. */
async function rein(dir: string, pods: PodPool) {
  const url = `file:${path.join(dir, "bench.db")}`;
  const db = await migratedDb(url);
  const keyring = memoryKeyring();
  const native = openNativeSqlite(url);
  const gate = new HumanGate({ db, policy: new PolicyGate(db) });
  const kernel = await createKernel({
    db,
    databaseUrl: url,
    dataDir: path.join(dir, "data"),
    workers: 4,
    scriptedDelayMs: 0,
    log: SILENT_LOG,
    gate,
    keyring,
    terminals: pods,
  });
  connectHitl(kernel, new HitlBroker({ db, runs: kernel.store, enqueue: (id) => kernel.enqueue(id), log: SILENT_LOG }), SILENT_LOG);
  const telemetry = await startTelemetry({ db, kernel, native, keyring, log: SILENT_LOG });
  kernel.deps.limits = new Budgets({
    db,
    native,
    flush: () => telemetry.sink.flush(),
    unwritten: (scope) => telemetry.sink.unwrittenCalls(scope),
    log: SILENT_LOG,
  });
  const gateway = new ModelGateway({
    router: kernel.deps.router,
    limits: kernel.deps.limits,
    appendEvents: (runId, e) => kernel.store.appendEvents(runId, e),
    publishTransient: (m) => kernel.deps.publishTransient(m),
    log: SILENT_LOG,
  });
  kernel.deps.hosted = new HostedRuns({ gateway, gate, db, dataDir: path.join(dir, "data"), log: SILENT_LOG });
  const operator = (await loadActor(
    db,
    await createUser(db, { email: "bench@rein.local", password: "bench-password-1", role: "operator" }),
  ))!;
  return { db, kernel, gateway, telemetry, operator };
}

async function settle(tk: { db: Kernel["db"] }, runId: string): Promise<RunState> {
  for (;;) {
    const run = await tk.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    if (isTerminal(run.status as RunState)) return run.status as RunState;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function main() {
  const podsDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-hosted-"));
  const sandbox = probeSandbox();
  const pods = new PodPool({ dataDir: podsDir, size: 0, limits: DEFAULT_LIMITS, sandbox, allowUnsandboxed: true });
  await pods.start();
  const tk = await rein(podsDir, pods);
  const k = tk.kernel.deps;
  const gateway = tk.gateway;
  console.log(`bench:hosted — ${os.cpus().length} cores, sandbox: ${sandbox.ok ? "bubblewrap" : "none"}\n`);

  // (a) One model call.
  const run = await createRun(tk.kernel, { goal: "bench", agent: "demo-coder", scenario: TURN }, tk.operator);
  await settle(tk, run.id);
  let step = 1000;
  const abort = new AbortController();
  const binding = gateway.bind({
    runId: run.id,
    teamId: null,
    agent: "bench",
    model: "scripted/run-scenario",
    taskClass: "code",
    scenario: TURN,
    maxCalls: 1_000_000,
    nextStep: () => ++step,
    signal: abort.signal,
  });
  const socketPath = path.join(podsDir, "gateway.sock");
  const listener = await gateway.listen(socketPath);
  const body = { model: "rein", messages: [{ role: "user", content: "Say hello." }] };
  const resolved = k.router.resolve({ model: "scripted/run-scenario", taskClass: "code", scenario: TURN });
  const direct = () =>
    callModel({ router: k.router, appendEvents: (e) => k.store.appendEvents(run.id, e), publishTransient: () => {} }, resolved, {
      runId: run.id,
      step: ++step,
      agent: "bench",
      options: { prompt: [{ role: "user", content: "Say hello." }], abortSignal: abort.signal },
    });
  for (let i = 0; i < 20; i++) {
    await post(socketPath, binding.token, body);
    await direct();
  }
  const viaGateway: number[] = [];
  const inProcess: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    let t0 = performance.now();
    const status = await post(socketPath, binding.token, body);
    viaGateway.push(performance.now() - t0);
    if (status !== 200) throw new Error(`the gateway answered ${status}`);
    t0 = performance.now();
    await direct();
    inProcess.push(performance.now() - t0);
  }
  console.log("(a) one scripted model call");
  const g = line("through the gateway (socket, token, budget, event)", viaGateway);
  const d = line("callModel in-process (a Rein agent's call)", inProcess);
  console.log(`  the gateway adds ${round(g.p50 - d.p50)} ms at p50 (${round(g.p50 / d.p50)}×)\n`);
  binding.unbind();
  await listener.close();

  // (b) Starting the agent.
  const toInit: number[] = [];
  const toSession: number[] = [];
  const podStarts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const ws = fs.mkdtempSync(path.join(podsDir, "ws-"));
    const runDir = path.join(podsDir, `hosted-${i}`);
    const folders = runFolders(runDir);
    const socket = await gateway.listen(folders.socket);
    const t0 = performance.now();
    const child = startAgentProcess({
      program: TEST_AGENT,
      workspaceDir: ws,
      runDir,
      gatewaySocket: folders.socket,
      gateway: { token: "none", model: "rein" },
    });
    const host = new AcpHost(
      child,
      {
        readText: async () => "",
        writeText: async () => {},
        exec: null,
        permission: async () => ({ outcome: { outcome: "cancelled" } }),
        allow: async () => {},
        update: async () => {},
      },
      SILENT_LOG,
    );
    await host.initialize(new AbortController().signal);
    toInit.push(performance.now() - t0);
    await host.newSession(new AbortController().signal);
    toSession.push(performance.now() - t0);
    await host.close();
    await socket.close();
    const p0 = performance.now();
    await pods.attach(`bench-pod-${i}`, ws);
    podStarts.push(performance.now() - p0);
    await pods.release(`bench-pod-${i}`);
  }
  console.log("(b) starting");
  line("hosted test agent: spawn to initialize answered", toInit);
  const s = line("hosted test agent: spawn to session/new answered", toSession);
  const p = line("a terminal pod (T1), cold", podStarts);
  console.log(`  the agent's start is ${round(s.p50 / p.p50)}× a pod's at p50\n`);

  // (c) The same task as a whole run.
  const hostedRuns: number[] = [];
  const reinRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    const h = await createRun(tk.kernel, { goal: "Write note.txt and show it", agent: "demo-hosted", scenario: TASK_HOSTED }, tk.operator);
    if ((await settle(tk, h.id)) !== "succeeded") throw new Error("the hosted run did not succeed");
    hostedRuns.push(performance.now() - t0);
    t0 = performance.now();
    const r = await createRun(tk.kernel, { goal: "Write note.txt and show it", agent: "demo-coder", scenario: TASK_REIN }, tk.operator);
    if ((await settle(tk, r.id)) !== "succeeded") throw new Error("the Rein run did not succeed");
    reinRuns.push(performance.now() - t0);
  }
  console.log("(c) write a file, run a command, finish: the whole run");
  const hr = line("the hosted test agent (its own process, ACP)", hostedRuns);
  const rr = line("Rein's own loop (demo-coder)", reinRuns);
  console.log(`  hosting adds ${round(hr.p50 - rr.p50)} ms at p50 (${round(hr.p50 / rr.p50)}×)\n`);

  // (d) The command run by the agent itself, through the shell relay.
  registerHostedProgram({
    ...TEST_AGENT,
    id: "bench-own-shell",
    relaysShell: true,
    env: (g) => ({ ...TEST_AGENT.env(g), ACP_TEST_AGENT_OWN_SHELL: "1" }),
  });
  const base = await tk.db.agentSpec.findFirstOrThrow({ where: { name: DEMO_HOSTED_AGENT } });
  await tk.db.agent.create({ data: { name: "bench-own-shell", builtIn: false, teamId: null } });
  await tk.db.agentSpec.create({
    data: {
      ...base,
      id: undefined,
      name: "bench-own-shell",
      version: 1,
      builtIn: false,
      guardrails: JSON.stringify({ callCap: 10, hosted: { program: "bench-own-shell" } }),
    },
  });
  const relayRuns: number[] = [];
  const terminalRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    const h = await createRun(
      tk.kernel,
      { goal: "Write note.txt and show it", agent: "bench-own-shell", scenario: TASK_HOSTED },
      tk.operator,
    );
    if ((await settle(tk, h.id)) !== "succeeded") throw new Error("the relayed run did not succeed");
    relayRuns.push(performance.now() - t0);
    t0 = performance.now();
    const r = await createRun(tk.kernel, { goal: "Write note.txt and show it", agent: "demo-hosted", scenario: TASK_HOSTED }, tk.operator);
    if ((await settle(tk, r.id)) !== "succeeded") throw new Error("the hosted run did not succeed");
    terminalRuns.push(performance.now() - t0);
  }
  console.log("(d) the same run, the command run by the agent's own `bash -c`");
  const rl = line("through the shell relay (its bash, Rein, the pod)", relayRuns);
  const tm = line("through an ACP terminal, as in (c)", terminalRuns);
  console.log(`  the relay adds ${round(rl.p50 - tm.p50)} ms at p50 (${round(rl.p50 / tm.p50)}×)`);

  abort.abort();
  await tk.kernel.pool.stop();
  await tk.telemetry.stop();
  await pods.stop();
  fs.rmSync(podsDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
