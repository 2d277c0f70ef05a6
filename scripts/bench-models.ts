// npm run bench:models — what Rein's ModelRouter costs a model call (docs/models.md):
// (a) per call: resolve (routing over the catalog) + the provider's rate limit and
//     circuit breaker + streaming the reply, against streaming the same reply from
//     the same backend directly, alternating in one process, against a local
//     OpenAI-compatible server; and resolve() alone;
// (b) time to first streamed token: directly, through the router, and through a
//     whole run (queue, checkpoint, prompt, events) from launch to the first delta.
// Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createUser, loadActor } from "@/server/identity";
import { createKernel, createRun } from "@/server/kernel";
import { CircuitBreaker, RateLimiter, guardModel } from "@/server/limits";
import { DefaultModelRouter, ModelAdmin, ModelCatalog, createProviderModel, startFakeOpenAI, type LanguageModel } from "@/server/models";
import { memoryKeyring } from "@/server/secrets";
import { migratedDb, summary } from "./bench-stats";

const CALLS = Number(process.env.BENCH_MODEL_CALLS ?? 400);
const RESOLVES = Number(process.env.BENCH_RESOLVES ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 20;

const ms = (n: number) => `${n.toFixed(3)} ms`;
const row = (label: string, s: ReturnType<typeof summary>) =>
  console.log(`  ${label.padEnd(44)} p50 ${ms(s.p50).padStart(11)}  p99 ${ms(s.p99).padStart(11)}  (n=${s.n})`);

/** Streams one reply; returns time to the first text delta and to the end. */
async function stream(model: LanguageModel): Promise<{ ttft: number; total: number }> {
  const started = performance.now();
  let ttft = NaN;
  const { stream } = await model.doStream({ prompt: [{ role: "user", content: "Say hello" }] });
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "text-delta" && Number.isNaN(ttft)) ttft = performance.now() - started;
    if (value.type === "error") throw value.error;
  }
  return { ttft, total: performance.now() - started };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-models-"));
  const fake = await startFakeOpenAI({ models: ["fake-large"] });
  const db = await migratedDb(`file:${path.join(dir, "rein.db")}`);
  try {
    const adminId = await createUser(db, { email: "admin@bench.local", password: "bench-password", role: "admin" });
    const operatorId = await createUser(db, { email: "operator@bench.local", password: "bench-password", role: "operator" });
    const keyring = memoryKeyring();
    const catalog = new ModelCatalog({ db, keyring });
    const admin = new ModelAdmin({ db, keyring, catalog, setPrice: async () => {} });
    const who = { userId: adminId, name: "bench" };
    await admin.createProvider({ name: "bench", kind: "openai-compatible", baseUrl: fake.baseUrl, apiKey: "sk-bench-0123456789" }, who);
    await admin.saveModel({ provider: "bench", modelId: "fake-large", family: "fake", strength: 0.8 }, who);
    // A realistic catalog: the routed model among others, with rules and a pool.
    for (let i = 0; i < 20; i++)
      await admin.saveModel({ provider: "bench", modelId: `other-${i}`, family: `f${i % 4}`, strength: (i % 10) / 10 }, who);
    await admin.setRouting(
      {
        rules: {
          code: { strategy: "cheapest", candidates: ["bench/fake-large", ...Array.from({ length: 5 }, (_, i) => `bench/other-${i}`)] },
        },
        pools: [{ name: "all", models: ["bench/fake-large"] }],
      },
      who,
    );

    // As the server wires it: a rate limit (unlimited here) and a circuit breaker per provider.
    const guards = { limiter: new RateLimiter(() => undefined), breaker: new CircuitBreaker() };
    const router = new DefaultModelRouter({ scriptedDelayMs: 0, catalog, guard: (m) => guardModel(m, guards) });
    const direct = createProviderModel("openai-compatible", {
      name: "bench",
      baseUrl: fake.baseUrl,
      apiKey: "sk-bench-0123456789",
      modelId: "fake-large",
      family: "fake",
    });
    const viaRouter = () => router.resolve({ model: "auto", taskClass: "code", needsTools: true, complexity: 0.5 }).model;

    console.log(`bench:models — ${CALLS} streamed calls each way against a local OpenAI-compatible server (5 text deltas per reply)\n`);
    const d: { ttft: number[]; total: number[] } = { ttft: [], total: [] };
    const r: { ttft: number[]; total: number[] } = { ttft: [], total: [] };
    for (let i = 0; i < CALLS + WARMUP; i++) {
      // Alternate which goes first so neither gets a warmer connection.
      const order =
        i % 2 === 0
          ? ([
              ["d", () => direct],
              ["r", viaRouter],
            ] as const)
          : ([
              ["r", viaRouter],
              ["d", () => direct],
            ] as const);
      for (const [which, pick] of order) {
        const started = performance.now();
        const out = await stream(pick());
        const total = performance.now() - started;
        if (i < WARMUP) continue;
        const into = which === "d" ? d : r;
        into.ttft.push(out.ttft + (total - out.total));
        into.total.push(total);
      }
    }
    const resolveSamples: number[] = [];
    for (let i = 0; i < RESOLVES; i++) {
      const started = performance.now();
      viaRouter();
      resolveSamples.push(performance.now() - started);
    }
    const [dt, rt] = [summary(d.total), summary(r.total)];
    console.log("(a) per call, whole streamed reply");
    row("direct to the backend (baseline)", dt);
    row("through the router (resolve + guards)", rt);
    console.log(
      `  router overhead                              p50 ${ms(rt.p50 - dt.p50).padStart(11)}  p99 ${ms(rt.p99 - dt.p99).padStart(11)}`,
    );
    row("resolve() alone (routing over 21 models)", summary(resolveSamples));

    console.log("\n(b) time to first streamed token");
    const [df, rf] = [summary(d.ttft), summary(r.ttft)];
    row("direct to the backend (baseline)", df);
    row("through the router", rf);

    // Whole runs: launch → first model.delta on the run's bus.
    const kernel = await createKernel({
      db,
      dataDir: dir,
      workers: 1,
      scriptedDelayMs: 0,
      router,
      log: { info() {}, error: (m, e) => console.error(m, e) },
    });
    const actor = (await loadActor(db, operatorId))!;
    const runTtft: number[] = [];
    // The first delta of each run, whichever run it is, as the bus hands it to watchers.
    const firstDelta = new Map<string, number>();
    const publish = kernel.bus.publishTransient.bind(kernel.bus);
    kernel.bus.publishTransient = (m) => {
      if (!firstDelta.has(m.runId)) firstDelta.set(m.runId, performance.now());
      publish(m);
    };
    for (let i = 0; i < RUNS + 3; i++) {
      const started = performance.now();
      const run = await createRun(kernel, { goal: "Say hello", agent: "demo-coder", model: "bench/fake-large" }, actor);
      await kernel.pool.whenIdle();
      const at = firstDelta.get(run.id);
      if (at === undefined) throw new Error(`run ${run.id} streamed no text`);
      if (i >= 3) runTtft.push(at - started);
    }
    await kernel.pool.stop(5_000);
    row("through a whole run (launch → first delta)", summary(runTtft));
    console.log(`\n  The run figure includes writing the run and its events, queueing it, and building the prompt.`);
  } finally {
    await db.$disconnect();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
