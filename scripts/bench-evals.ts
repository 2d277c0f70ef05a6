// npm run bench:evals — what Evals experiments cost (docs/evals.md#benchmark):
// (1) the experiment runner and its scorers per item: N scenario items run as
//     an experiment against the same items as plain runs (createRun, waited
//     for) at the same concurrency, on one in-process kernel;
// (2) items per minute at concurrency 1, 4 and 8, both ways;
// (3) Compare of two experiments of 1,000 items × 3 epochs (synthetic trial
//     rows), and one experiment's results, against reading their trial rows.
// The items use only file and task tools, so no terminal pod is started.
// Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/server/db";
import { fileServices } from "@/server/compute";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { TERMINAL_STATES, createKernel, createRun, type Kernel, type RunEventRecord, type RunState } from "@/server/kernel";
import type { Scenario } from "@/server/models";
import {
  ExperimentRunner,
  addItem,
  bootstrapCI,
  compareExperiments,
  createDataset,
  experimentResults,
  pairedBootstrap,
  startExperiment,
  type DatasetActor,
} from "@/server/evals";
import { migratedDb, summary } from "./bench-stats";

const ITEMS = Number(process.env.BENCH_RUNS) || 30;
const WARMUP_ITEMS = 4;
const OVERHEAD_CONCURRENCY = 4;
const CONCURRENCIES = [1, OVERHEAD_CONCURRENCY, 8];
const WORKERS = Math.max(...CONCURRENCIES);
const COMPARE_ITEMS = 1_000;
const COMPARE_EPOCHS = 3;
const COMPARE_CALLS = 10;

const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };
const SCORING = {
  scorers: [
    { kind: "outcome", equals: "succeeded", required: true, weight: 2 },
    { kind: "tools_used", tools: ["write_file", "read_file"] },
    { kind: "calls_at_most", calls: 10 },
    { kind: "text_contains", text: "Done" },
  ],
  threshold: 0.75,
};

/** Three model turns: write a note and a task list, read the note back, finish. */
function scenarioOf(i: number): Scenario {
  const file = `notes/item-${i}.txt`;
  return {
    stopOnError: true,
    turns: [
      {
        text: "Writing the note.",
        toolCalls: [
          { tool: "write_file", args: { path: file, content: `note ${i}\n`.repeat(20) } },
          {
            tool: "update_tasks",
            args: {
              tasks: [
                { title: "write the note", status: "done" },
                { title: "check it", status: "doing" },
              ],
            },
          },
        ],
      },
      { text: "Checking it.", toolCalls: [{ tool: "read_file", args: { path: file } }] },
      { text: `Done: ${file} holds 20 lines.` },
    ],
  };
}

interface Bench {
  db: Db;
  kernel: Kernel;
  runner: ExperimentRunner;
  who: DatasetActor;
  teamId: string;
}

/** Resolves once every run of `ids()` has ended; runs that end before they are asked for are remembered. */
function endedRuns(kernel: Kernel) {
  const ended = new Set<string>();
  const waiting = new Map<string, () => void>();
  const off = kernel.bus.onAny((runId: string, events: RunEventRecord[]) => {
    if (!events.some((e) => e.type === "run.state" && TERMINAL_STATES.includes((e.payload as { to: RunState }).to))) return;
    ended.add(runId);
    waiting.get(runId)?.();
  });
  const wait = (runId: string) => (ended.has(runId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(runId, resolve)));
  return { wait, off };
}

/** The baseline: each item as a plain run, at most `concurrency` at a time; ms for all of them. */
async function plainRuns(b: Bench, items: number[], concurrency: number): Promise<number> {
  const runs = endedRuns(b.kernel);
  const ids: string[] = [];
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < items.length) {
      const i = items[next++];
      const run = await createRun(
        b.kernel,
        { goal: `Write note ${i}`, agent: "demo-coder", scenario: scenarioOf(i), teamId: b.teamId },
        b.who.actor,
      );
      ids.push(run.id);
      await runs.wait(run.id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const ms = performance.now() - t0;
  runs.off();
  const ok = await b.db.run.count({ where: { id: { in: ids }, status: "succeeded" } });
  if (ok !== items.length) throw new Error(`plain runs: ${ok} of ${items.length} succeeded`);
  return ms;
}

/** The same items as an experiment of `datasetId` through the ExperimentRunner; ms until it finished. */
async function experiment(b: Bench, datasetId: string, items: number, concurrency: number): Promise<number> {
  const t0 = performance.now();
  const started = await startExperiment({ db: b.db, specs: b.kernel.specs, wake: (id) => b.runner.wake(id) }, b.who, {
    datasetId,
    agent: "demo-coder",
    concurrency,
    teamId: b.teamId,
  });
  await b.runner.whenDone(started.id, 20);
  const ms = performance.now() - t0;
  const passed = await b.db.experimentTrial.count({ where: { experimentId: started.id, status: "done", passed: true } });
  if (passed !== items) throw new Error(`experiment: ${passed} of ${items} trials passed`);
  return ms;
}

async function datasetOf(b: Bench, name: string, items: number[]): Promise<string> {
  const dataset = await createDataset(b.db, b.who, { name, teamId: b.teamId, scoring: SCORING });
  for (const i of items)
    await addItem(b.db, b.who, dataset.id, { key: `item-${String(i).padStart(4, "0")}`, goal: `Write note ${i}`, scenario: scenarioOf(i) });
  return dataset.id;
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const perItem = (ms: number, n: number) => ms / n;
const perMinute = (ms: number, n: number) => (n * 60_000) / ms;

// --- (3) Compare over synthetic finished trials -----------------------------------

const TOOLS = ["list_files", "read_file", "search", "edit_file", "write_file", "shell", "read_file", "update_tasks"];
const WORDS = "the run wrote the module and its tests then ran them all and they passed with no warnings left".split(" ");

function finalText(i: number): string {
  let text = `Done with item ${i}: `;
  for (let w = i; text.length < 500; w++) text += `${WORDS[w % WORDS.length]} `;
  return text.trim();
}

function trialRows(
  experimentId: string,
  items: Array<{ id: string; key: string }>,
  passes: (item: number, epoch: number) => boolean,
  tag: string,
) {
  return items.flatMap((item, i) =>
    range(1, COMPARE_EPOCHS).map((epoch) => {
      const passed = passes(i, epoch);
      const scorers = [
        {
          kind: "outcome",
          weight: 2,
          required: true,
          result: { score: passed ? 1 : 0, passed, detail: `the run ${passed ? "succeeded" : "failed"}; expected succeeded` },
        },
        {
          kind: "tools_used",
          weight: 1,
          required: false,
          result: { score: 1, passed: true, detail: 'the run called "write_file" and "shell"' },
        },
        {
          kind: "calls_at_most",
          weight: 1,
          required: false,
          result: { score: 1, passed: true, detail: "the run made 6 model calls; the limit is 20" },
        },
      ];
      const score = passed ? 1 : 0.5;
      return {
        experimentId,
        itemId: item.id,
        itemKey: item.key,
        epoch,
        runId: `${tag}-${i}-${epoch}`,
        agentName: "demo-coder",
        agentVersion: 1,
        status: "done",
        score,
        passed,
        scores: JSON.stringify({ detail: `score ${score} against the threshold 0.75`, failedRequired: passed ? [] : ["outcome"], scorers }),
        finalText: finalText(i + epoch),
        toolSequence: JSON.stringify(TOOLS),
        runStatus: passed ? "succeeded" : "failed",
        modelCalls: 6,
        inputTokens: 4_000 + i,
        outputTokens: 600 + epoch,
        costUsd: 0.012,
        durationMs: 8_000 + ((i * 37 + epoch * 11) % 5_000),
      };
    }),
  );
}

async function compareBench(b: Bench) {
  const { db } = b;
  const dataset = await db.dataset.create({
    data: { name: "bench-compare", teamId: b.teamId, scoring: JSON.stringify(SCORING) },
    select: { id: true },
  });
  await db.datasetItem.createMany({
    data: range(0, COMPARE_ITEMS).map((i) => ({
      datasetId: dataset.id,
      key: `item-${String(i).padStart(4, "0")}`,
      version: 1,
      goal: `Write fizzbuzz variant ${i} with tests`,
      agent: "demo-coder",
      expected: JSON.stringify({ outcome: "succeeded", text: finalText(i) }),
    })),
  });
  const items = await db.datasetItem.findMany({
    where: { datasetId: dataset.id },
    select: { id: true, key: true },
    orderBy: { key: "asc" },
  });
  const experimentRow = (name: string) => ({
    datasetId: dataset.id,
    name,
    agentName: "demo-coder",
    agentVersion: 1,
    epochs: COMPARE_EPOCHS,
    concurrency: 4,
    status: "succeeded",
    teamId: b.teamId,
    scoring: JSON.stringify(SCORING),
    createdById: b.who.actor.userId,
  });
  const base = await db.experiment.create({ data: experimentRow("baseline"), select: { id: true } });
  const cand = await db.experiment.create({ data: experimentRow("candidate"), select: { id: true } });
  // The baseline passes 80% of items; the candidate regresses some and improves others, and is flaky on a few.
  const baseRows = trialRows(base.id, items, (i) => i % 5 !== 0, "b");
  const candRows = trialRows(
    cand.id,
    items,
    (i, e) => (i % 7 === 0 ? false : i % 5 === 0 ? i % 2 === 0 : i % 11 === 0 ? e !== 2 : true),
    "c",
  );
  for (const rows of [baseRows, candRows])
    for (let i = 0; i < rows.length; i += 500) await db.experimentTrial.createMany({ data: rows.slice(i, i + 500) });

  const select = {
    itemKey: true,
    epoch: true,
    status: true,
    runId: true,
    runStatus: true,
    score: true,
    passed: true,
    costUsd: true,
    durationMs: true,
    modelCalls: true,
    inputTokens: true,
    outputTokens: true,
    error: true,
    scores: true,
    itemId: true,
    finalText: true,
    toolSequence: true,
  } as const;
  // The baseline read is what compare and results read first: one findMany per experiment.
  const read = (id: string) =>
    db.experimentTrial.findMany({ where: { experimentId: id }, select, orderBy: [{ itemKey: "asc" }, { epoch: "asc" }] });
  const actor = b.who.actor;
  // The statistics compare computes, alone: a bootstrap interval per experiment and the paired bootstrap.
  const scores = (trials: typeof baseRows) =>
    range(0, COMPARE_ITEMS).map(
      (i) => trials.slice(i * COMPARE_EPOCHS, (i + 1) * COMPARE_EPOCHS).reduce((s, r) => s + r.score, 0) / COMPARE_EPOCHS,
    );
  const [baseScores, candScores] = [scores(baseRows), scores(candRows)];
  const paths: Array<[string, () => Promise<unknown>]> = [
    ["read both experiments' trials (baseline)", () => Promise.all([read(base.id), read(cand.id)])],
    ["compareExperiments", () => compareExperiments(db, actor, [base.id, cand.id], base.id)],
    [
      "  of which its 3 bootstraps, alone",
      async () => [
        bootstrapCI(baseScores, { seed: 1 }),
        bootstrapCI(candScores, { seed: 1 }),
        pairedBootstrap(baseScores, candScores, { seed: 1 }),
      ],
    ],
    ["read one experiment's trials (baseline)", () => read(cand.id)],
    ["experimentResults", () => experimentResults(db, actor, cand.id)],
  ];
  const rows = (await read(base.id)).length + (await read(cand.id)).length;
  const samples = paths.map(() => [] as number[]);
  for (let round = 0; round < COMPARE_CALLS + 2; round++) {
    // Interleaved, so each path and its baseline see the same machine; the first two rounds warm up.
    for (const [p, [, call]] of paths.entries()) {
      const t0 = performance.now();
      await call();
      if (round >= 2) samples[p].push(performance.now() - t0);
    }
  }
  return { rows, paths: paths.map(([label], p) => ({ label, ...summary(samples[p]) })) };
}

// --- main ------------------------------------------------------------------------

async function main() {
  const began = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-evals-"));
  let kernel: Kernel | null = null;
  let runner: ExperimentRunner | null = null;
  let db: Db | null = null;
  try {
    const url = `file:${path.join(dir, "bench.db")}`;
    db = await migratedDb(url);
    kernel = await createKernel({ db, databaseUrl: url, dataDir: dir, workers: WORKERS, scriptedDelayMs: 0, log: SILENT });
    runner = new ExperimentRunner({
      db,
      runs: kernel,
      store: kernel.store,
      workspaceFor: kernel.deps.workspaceFor,
      bus: kernel.bus,
      log: SILENT,
    });
    await runner.start();
    const actor: Actor = (await loadActor(
      db,
      await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" }),
    ))!;
    const b: Bench = { db, kernel, runner, who: { actor, channel: "admin" }, teamId: actor.teamIds[0] };
    const warmItems = range(0, WARMUP_ITEMS);
    const items = range(WARMUP_ITEMS, ITEMS);
    const warmSet = await datasetOf(b, "bench-warm-up", warmItems);
    const itemSet = await datasetOf(b, "bench-items", items);
    const load = () => os.loadavg()[0].toFixed(2);
    const loads: string[] = [load()];

    // (1) At one concurrency: warm up both paths, then alternate them twice.
    await plainRuns(b, warmItems, OVERHEAD_CONCURRENCY);
    await experiment(b, warmSet, WARMUP_ITEMS, OVERHEAD_CONCURRENCY);
    const plain: number[] = [];
    const exp: number[] = [];
    for (let round = 0; round < 2; round++) {
      plain.push(perItem(await plainRuns(b, items, OVERHEAD_CONCURRENCY), ITEMS));
      exp.push(perItem(await experiment(b, itemSet, ITEMS, OVERHEAD_CONCURRENCY), ITEMS));
    }
    loads.push(load());
    const mean = (xs: number[]) => xs.reduce((a, c) => a + c, 0) / xs.length;
    const overhead = {
      concurrency: OVERHEAD_CONCURRENCY,
      items: ITEMS,
      rounds: 2,
      plainMsPerItem: mean(plain),
      experimentMsPerItem: mean(exp),
      plainRounds: plain,
      experimentRounds: exp,
    };

    // (2) Throughput at each concurrency, each after its own warm-up (the one of (1) is reused).
    const throughput: Array<{ concurrency: number; plainPerMin: number; experimentPerMin: number }> = [];
    for (const c of CONCURRENCIES) {
      if (c === OVERHEAD_CONCURRENCY) {
        throughput.push({
          concurrency: c,
          plainPerMin: 60_000 / overhead.plainMsPerItem,
          experimentPerMin: 60_000 / overhead.experimentMsPerItem,
        });
        continue;
      }
      await plainRuns(b, warmItems, c);
      await experiment(b, warmSet, WARMUP_ITEMS, c);
      const p = await plainRuns(b, items, c);
      const e = await experiment(b, itemSet, ITEMS, c);
      throughput.push({ concurrency: c, plainPerMin: perMinute(p, ITEMS), experimentPerMin: perMinute(e, ITEMS) });
    }
    loads.push(load());

    // (3) Compare and results over synthetic rows.
    const compare = await compareBench(b);
    loads.push(load());

    const f = (n: number, d = 1) => n.toFixed(d);
    console.log(
      `\n(1) Harness overhead per eval item: ${ITEMS} scenario items (3 model turns; write_file, update_tasks, read_file; no terminal pod),`,
    );
    console.log(
      `    concurrency ${OVERHEAD_CONCURRENCY}, kernel pool of ${WORKERS} workers, scripted model without delay; mean of 2 rounds after a warm-up`,
    );
    console.log("path                                    wall ms per item");
    console.log(`plain runs: createRun + wait (baseline) ${f(overhead.plainMsPerItem).padStart(7)}`);
    console.log(`experiment: ExperimentRunner + scorers  ${f(overhead.experimentMsPerItem).padStart(7)}`);
    console.log(
      `starting the experiment, the runner and its 4 scorers cost per item: +${f(overhead.experimentMsPerItem - overhead.plainMsPerItem)} ms (${f(overhead.experimentMsPerItem / overhead.plainMsPerItem, 2)}x the plain runs)`,
    );

    console.log(
      `\n(2) Items per minute (${ITEMS} items each, after a warm-up; pool of ${WORKERS} workers, ${os.cpus().length} cores; the row at ${OVERHEAD_CONCURRENCY} is (1)'s)`,
    );
    console.log("concurrency   plain runs   experiment   ratio");
    for (const t of throughput)
      console.log(
        `${String(t.concurrency).padStart(11)} ${f(t.plainPerMin, 0).padStart(12)} ${f(t.experimentPerMin, 0).padStart(12)} ${f(t.experimentPerMin / t.plainPerMin, 2).padStart(7)}`,
      );

    console.log(
      `\n(3) Two experiments of ${COMPARE_ITEMS.toLocaleString("en")} items x ${COMPARE_EPOCHS} epochs (${compare.rows.toLocaleString("en")} finished trial rows); ${COMPARE_CALLS} calls after a warm-up`,
    );
    console.log("call                                          p50 ms    p95 ms");
    for (const r of compare.paths) console.log(`${r.label.padEnd(44)} ${f(r.p50).padStart(8)} ${f(r.p95).padStart(9)}`);
    const [readBoth, cmp, stats, readOne, res] = compare.paths;
    console.log(
      `compare beyond the read: +${f(cmp.p50 - readBoth.p50)} ms at p50 (${f(cmp.p50 / readBoth.p50, 1)}x the read), ${f((100 * stats.p50) / (cmp.p50 - readBoth.p50), 0)}% of it the bootstraps`,
    );
    console.log(`results beyond the read: +${f(res.p50 - readOne.p50)} ms at p50 (${f(res.p50 / readOne.p50, 1)}x the read)`);
    const seconds = (performance.now() - began) / 1000;
    console.log(`load average (1 min) at the start and after each part: ${loads.join(", ")}; ${f(seconds, 0)} s in all\n`);
    console.log(
      JSON.stringify({
        bench: "evals",
        cores: os.cpus().length,
        workers: WORKERS,
        loadAverage: loads.map(Number),
        seconds,
        overhead: {
          ...overhead,
          deltaMsPerItem: overhead.experimentMsPerItem - overhead.plainMsPerItem,
          ratio: overhead.experimentMsPerItem / overhead.plainMsPerItem,
        },
        throughput,
        compare: {
          items: COMPARE_ITEMS,
          epochs: COMPARE_EPOCHS,
          rows: compare.rows,
          calls: COMPARE_CALLS,
          paths: compare.paths.map(({ label, p50, p95, mean: m }) => ({ label, p50, p95, mean: m })),
        },
      }),
    );
  } finally {
    await runner?.stop();
    await kernel?.pool.stop(5_000);
    kernel?.close();
    await db?.$disconnect();
    fileServices.stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
