// npm run bench:long — what steering runs over time costs (issue 21), each
// figure against a baseline measured in the same run:
// (a) a session boundary (the seed built from durable state, git log in the
//     file sandbox, one checkpointed step) against a plain step of the same
//     run (a scripted model turn and a read-only tool call), and the seed's
//     tokens against the prompt it replaced;
// (b) a workspace snapshot after a step, for workspaces of 100 and 10,000
//     files (the first one, and one after a file changed), against the
//     checkpoint write alone;
// (c) a fork (a new run, its workspace restored from a snapshot and checked,
//     its first checkpoint) for the same two workspaces;
// (d) memory recall at 100,000 memories against a plain LIKE scan.
// Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createUser, loadActor } from "@/server/identity";
import { createKernel, createRun, forkRun, initialState, type Kernel, type RunEventRecord } from "@/server/kernel";
import { snapshotWorkspace } from "@/server/tools";
import type { Scenario } from "@/server/models";
import { migratedDb, summary } from "./bench-stats";
import { benchMemory } from "./bench-memory";

const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
const SNAPSHOT_SAMPLES = Number(process.env.BENCH_N) || 20;

function line(label: string, samples: number[]) {
  const s = summary(samples);
  console.log(
    `  ${label.padEnd(58)} p50 ${round(s.p50).toString().padStart(9)} ms   p99 ${round(s.p99).toString().padStart(9)} ms   (n=${s.n})`,
  );
  return s;
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, limitMs = 300_000): Promise<T> {
  const end = Date.now() + limitMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function allEvents(kernel: Kernel, runId: string): Promise<RunEventRecord[]> {
  return kernel.store.listEvents(runId, 0, 1_000_000);
}

/** (a) A run of 60 plain steps on a small window: several boundaries, and many plain steps to set them against. */
async function sessions(kernel: Kernel, actor: Awaited<ReturnType<typeof loadActor>>) {
  const pad = "This step reads the workspace and notes what it found there before going on. ".repeat(3);
  const turns: Scenario["turns"] = Array.from({ length: 60 }, (_, i) => ({
    text: `Step ${i + 1}. ${pad}`,
    toolCalls: [{ tool: "list_files", args: {} }],
  }));
  turns.push({ text: "Done." });
  const run = await createRun(
    kernel,
    { goal: "Walk through sixty steps", agent: "demo-coder", maxSteps: 100, budgetUsd: 100, scenario: { contextWindow: 3_000, turns } },
    actor!,
  );
  await until("the sessions run", async () =>
    ["succeeded", "failed"].includes((await kernel.db.run.findUniqueOrThrow({ where: { id: run.id } })).status),
  );
  const events = await allEvents(kernel, run.id);
  const at = (e: RunEventRecord) => e.createdAt.getTime();
  const boundaries: number[] = [];
  const plain: number[] = [];
  const seeds: number[] = [];
  const replaced: number[] = [];
  for (let i = 1; i < events.length; i++) {
    const e = events[i];
    if (e.type === "session.ended") {
      // From the last tool result to the new session's checkpoint (its events are written with it).
      boundaries.push(at(events[i + 1]) - at(events[i - 1]));
      replaced.push((e.payload as { contextTokens: number }).contextTokens);
    }
    if (e.type === "session.started") seeds.push((e.payload as { seed: { tokens: number } }).seed.tokens);
    // A plain step: from one tool result to the next, through a model turn and a call, with no boundary between.
    if (e.type === "tool.result") {
      const prev = events.slice(0, i).findLast((x) => x.type === "tool.result");
      const between = prev ? events.slice(events.indexOf(prev) + 1, i) : [];
      if (prev && !between.some((x) => x.type.startsWith("session."))) plain.push(at(e) - at(prev));
    }
  }
  console.log(
    `(a) session boundaries: ${boundaries.length} in a run of ${plain.length + boundaries.length} steps (scripted model, 3,000-token window)`,
  );
  const b = line("a session boundary (seed + git log + checkpoint)", boundaries);
  const p = line("a plain step (model turn + list_files + 2 checkpoints)", plain);
  console.log(`  boundary / plain step: p50 ${round(b.p50 / Math.max(p.p50, 0.001))}   (event times have 1 ms resolution)`);
  console.log(
    `  seed tokens: p50 ${summary(seeds).p50}  vs the prompt it replaced: p50 ${summary(replaced).p50}  (${round((100 * summary(seeds).p50) / summary(replaced).p50, 1)}%)`,
  );
}

function writeFiles(root: string, n: number) {
  for (let i = 0; i < n; i++) {
    const dir = path.join(root, `src/m${Math.floor(i / 100)}`);
    if (i % 100 === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n${"some content of a source file\n".repeat(10)}`);
  }
}

/** (b) and (c) for a workspace of `files` files. */
async function snapshotsAndForks(kernel: Kernel, actor: Awaited<ReturnType<typeof loadActor>>, files: number) {
  const run = await kernel.db.run.create({
    data: {
      goal: `A workspace of ${files} files`,
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/run-scenario",
      scenario: JSON.stringify({ turns: [{ text: "Done." }] }),
      createdById: actor!.userId,
      teamId: actor!.teamIds[0] ?? null,
      status: "succeeded",
      stepCount: 1,
    },
  });
  const workspace = kernel.deps.workspaceFor(run.id);
  await workspace.ensure();
  writeFiles(workspace.root, files);
  let t = performance.now();
  const tree = await snapshotWorkspace(workspace);
  const cold = performance.now() - t;
  const warm: number[] = [];
  for (let i = 0; i < SNAPSHOT_SAMPLES; i++) {
    fs.writeFileSync(path.join(workspace.root, "src/m0/f0.txt"), `changed ${i}\n`);
    t = performance.now();
    await snapshotWorkspace(workspace);
    warm.push(performance.now() - t);
  }
  fs.writeFileSync(path.join(workspace.root, "src/m0/f0.txt"), `file 0\n${"some content of a source file\n".repeat(10)}`);
  const last = await snapshotWorkspace(workspace);
  // The checkpoint alone: the same step's commit with a conversation of 20 messages.
  const state = { ...initialState("demo-coder", run.goal), step: 1, workspaceTree: last };
  state.messages = Array.from({ length: 20 }, (_, i) =>
    i % 2
      ? { role: "user" as const, content: `message ${i} `.repeat(20) }
      : { role: "assistant" as const, content: [{ type: "text" as const, text: `answer ${i} `.repeat(20) }] },
  );
  const commits: number[] = [];
  for (let i = 0; i < SNAPSHOT_SAMPLES; i++) {
    t = performance.now();
    await kernel.store.commitStep(run.id, { events: [], checkpoint: state, seq: i + 1 });
    commits.push(performance.now() - t);
  }
  console.log(
    `(b) workspace snapshots, ${files.toLocaleString("en")} files (${tree === last ? "same" : "new"} tree after the change was undone)`,
  );
  console.log(`  ${"the first snapshot (hashes every file)".padEnd(58)} ${round(cold).toString().padStart(13)} ms`);
  const w = line("a snapshot after a step that changed one file", warm);
  const c = line("the checkpoint write alone", commits);
  console.log(`  snapshot / checkpoint: p50 ${round(w.p50 / c.p50)}`);
  // (c) Forks from the last checkpoint (step 1).
  const forks: number[] = [];
  for (let i = 0; i < Math.min(5, SNAPSHOT_SAMPLES); i++) {
    t = performance.now();
    await forkRun(kernel, run.id, actor!, { step: 1 });
    forks.push(performance.now() - t);
  }
  line(`(c) a fork of a ${files.toLocaleString("en")}-file workspace (restore + check + checkpoint)`, forks);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-long-"));
  const url = `file:${path.join(dir, "rein.db")}`;
  const db = await migratedDb(url);
  const kernel = await createKernel({ db, databaseUrl: url, dataDir: dir, workers: 2, scriptedDelayMs: 0, log: SILENT });
  try {
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password-1", role: "admin" });
    const actor = await loadActor(db, userId);
    console.log("npm run bench:long — steering runs over time (scripted model, SQLite, the file sandbox)\n");
    await sessions(kernel, actor);
    console.log("");
    for (const files of [100, 10_000]) {
      await snapshotsAndForks(kernel, actor, files);
      console.log("");
    }
    await kernel.pool.whenIdle();
  } finally {
    await kernel.pool.stop(5_000);
    kernel.close();
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log("(d) memory");
  await benchMemory();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
