// CLI commands for Evals over REST v1, as entries of the CLI's command table
// (./cli-commands.ts): datasets (eval datasets, eval dataset
// show|import|export: a dataset can live in a repository as JSONL) and
// experiments (eval run, eval experiments, eval show, eval compare, eval
// cancel). `eval run --baseline EXP --gate` is the regression gate for CI:
// it runs an experiment, waits, and exits with 1 when it is significantly
// worse than the baseline or under the dataset's threshold.
import type { components } from "../lib/rest-api.generated";
import type { RestClient, RestPaths } from "../lib/rest-client";
import { CliError, ok } from "./cli-error";
import { readInput } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const EVAL_OPTIONS = {
  /** eval run / eval experiments: the dataset, by id or name. */
  dataset: { type: "string" },
  epochs: { type: "string" },
  concurrency: { type: "string" },
  /** eval run: the experiment to compare with; eval compare: which of the ids is the baseline. */
  baseline: { type: "string" },
  /** eval run: exit with 1 when the gate fails. */
  gate: { type: "boolean" },
} as const;

type EvalValues = {
  json?: boolean;
  "include-archived"?: boolean;
  dataset?: string;
  agent?: string;
  version?: string;
  model?: string;
  epochs?: string;
  concurrency?: string;
  team?: string;
  baseline?: string;
  gate?: boolean;
  url?: string;
};

function idOf(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`${usage} needs the dataset's ID (eval datasets lists them)`);
  return args[0];
}

function readFile(file: string): string {
  try {
    return readInput(file);
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

const DATASET_COMMANDS: CliCommand<EvalValues>[] = [
  {
    command: "eval",
    sub: "datasets",
    usage: "[--include-archived] [--json]",
    description: "List the Evals datasets you can see: your teams' and everyone's, with their ids and number of items.",
    async run({ api, values }) {
      const { datasets } = await ok(
        api.GET("/api/v1/datasets", { params: { query: values["include-archived"] ? { includeArchived: "true" } : {} } }),
      );
      if (values.json) return console.log(JSON.stringify(datasets));
      for (const d of datasets) {
        const flags = [d.builtIn ? "built-in" : "", d.archived ? "archived" : ""].filter(Boolean).join(", ");
        console.log(
          `${d.id}  ${d.name.padEnd(24)} ${plural(d.itemCount, "item").padEnd(10)} ${(d.team?.name ?? "everyone").padEnd(12)} ${d.description}${flags ? ` (${flags})` : ""}`,
        );
      }
    },
  },
  {
    command: "eval",
    sub: "dataset show",
    usage: "ID [--json]",
    description: "Show a dataset: its scoring and its items at their latest versions.",
    async run({ api, args, values }) {
      const path = { id: idOf(args, "eval dataset show") };
      const dataset = await ok(api.GET("/api/v1/datasets/{id}", { params: { path } }));
      const { items } = await ok(api.GET("/api/v1/datasets/{id}/items", { params: { path } }));
      if (values.json) return console.log(JSON.stringify({ ...dataset, items }));
      console.log(`${dataset.name}: ${dataset.description || "(no description)"}`);
      console.log(
        `team ${dataset.team?.name ?? "everyone"} · ${plural(items.length, "item")} · pass threshold ${dataset.scoring.threshold}`,
      );
      console.log(`scorers: ${dataset.scoring.scorers.map((s) => s.kind).join(", ")}`);
      for (const i of items) console.log(`  ${i.key.padEnd(20)} v${String(i.version).padEnd(3)} ${(i.agent ?? "-").padEnd(16)} ${i.goal}`);
    },
  },
  {
    command: "eval",
    sub: "dataset export",
    usage: "ID",
    description: "Print a dataset's items as JSONL, one item a line: eval dataset export ID > NAME.jsonl",
    async run({ api, args }) {
      const path = { id: idOf(args, "eval dataset export") };
      process.stdout.write(await ok(api.GET("/api/v1/datasets/{id}/export", { params: { path }, parseAs: "text" })));
    },
  },
  {
    command: "eval",
    sub: "dataset import",
    usage: "ID FILE",
    description:
      "Import items from a JSONL file (- reads standard input): a known key gets its next version, other lines become new items. Any bad line imports nothing; each problem is listed by line.",
    async run({ api, args, values }) {
      const path = { id: idOf(args, "eval dataset import") };
      if (!args[1]) throw new CliError("eval dataset import needs a FILE, e.g. eval dataset import ID items.jsonl");
      const r = await ok(api.POST("/api/v1/datasets/{id}/import", { params: { path }, body: { jsonl: readFile(args[1]) } }));
      console.log(values.json ? JSON.stringify(r) : `Imported: ${r.added} added, ${r.edited} edited, ${r.unchanged} unchanged`);
    },
  },
];

const ACTIVE = ["queued", "running"];

function wholeNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a whole number of 1 or more`);
  return n;
}

/** A dataset named by id or by name. */
async function datasetId(api: RestClient, ref: string): Promise<string> {
  const { datasets } = await ok(api.GET("/api/v1/datasets"));
  const found = datasets.find((d) => d.id === ref || d.name === ref);
  if (!found) throw new CliError(`No dataset ${ref} that you can see (eval datasets lists them)`);
  return found.id;
}

const progressLine = (e: Pick<components["schemas"]["Experiment"], "status" | "progress">) => {
  const p = e.progress;
  return `${e.status}: ${p.done + p.failed + p.canceled}/${p.total} finished (${p.passed} passed, ${p.failed} could not run), ${p.running + p.scoring} under way · $${p.costUsd.toFixed(4)}`;
};

const score = (s: number | null | undefined) => (s === null || s === undefined ? "  -  " : s.toFixed(3));

function printResults(r: components["schemas"]["ExperimentResults"]) {
  const ci = r.score ? `${r.score.mean.toFixed(3)} (95% interval ${r.score.low.toFixed(3)} to ${r.score.high.toFixed(3)})` : "none";
  console.log(`score ${ci} · pass rate ${r.passRate === null ? "-" : `${Math.round(r.passRate * 100)}%`} · threshold ${r.threshold}`);
  const ks = Object.keys(r.passAtK);
  if (ks.length) console.log(ks.map((k) => `pass@${k} ${r.passAtK[k].toFixed(3)}  pass^${k} ${r.passHatK[k].toFixed(3)}`).join(" · "));
  console.log(
    `cost $${r.costUsd.toFixed(4)} · ${r.tokens} tokens · latency p50 ${r.latencyMs.p50 ?? "-"} ms, p95 ${r.latencyMs.p95 ?? "-"} ms${r.flaky ? ` · ${plural(r.flaky, "flaky item")}` : ""}`,
  );
  for (const i of r.items) {
    const dots = i.epochs.map((t) => (t.passed === null ? "?" : t.passed ? "+" : "x")).join("");
    console.log(
      `  ${i.passed ? "PASS" : "FAIL"} ${i.key.padEnd(20)} ${dots.padEnd(6)} ${score(i.score)}  ${i.flaky ? "flaky  " : ""}${i.passed ? "" : (i.epochs.find((t) => t.detail || t.error)?.detail ?? i.epochs[0]?.error ?? "")}`,
    );
  }
}

async function waitFor(api: RestClient, id: string, quiet: boolean) {
  let last = "";
  for (;;) {
    const e = await ok(api.GET("/api/v1/experiments/{id}", { params: { path: { id } } }));
    const line = progressLine(e);
    if (!quiet && line !== last) console.log(line);
    last = line;
    if (!ACTIVE.includes(e.status)) return e;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function printGate(g: Gate, compareUrl: string) {
  console.log(g.passed ? "Gate: passed" : "Gate: FAILED");
  for (const reason of g.reasons) console.log(`  - ${reason}`);
  if (g.regressed.length) {
    console.log(`Regressed items (passed under the baseline, fail now):`);
    for (const r of g.regressed) console.log(`  ${r.key.padEnd(20)} ${score(r.baselineScore)} -> ${score(r.candidateScore)}  ${r.goal}`);
  }
  console.log(`Compare: ${compareUrl}`);
}

type Gate = RestPaths["/api/v1/experiments/{id}/gate"]["get"]["responses"][200]["content"]["application/json"];

const EXPERIMENT_COMMANDS: CliCommand<EvalValues>[] = [
  {
    command: "eval",
    sub: "run",
    usage:
      "--dataset D [--agent A [--version N]] [--model PROVIDER/MODEL_ID|auto] [--epochs K] [--concurrency C] [--team T] [--baseline EXP [--gate]] [--json]",
    description:
      "Run an experiment: every item of dataset D (id or name) × K epochs as a real run, scored. Without --agent each item runs with its own agent. Waits and prints the results; with --baseline it compares, and --gate exits with 1 when the experiment is significantly worse than the baseline or under the dataset's threshold, printing only what regressed.",
    async run({ api, values }) {
      if (!values.dataset) throw new CliError("eval run needs --dataset (eval datasets lists them)");
      if (values.gate && !values.baseline)
        throw new CliError("--gate needs --baseline EXP: the experiment to compare with (eval experiments lists them)");
      if (values.version && !values.agent) throw new CliError("--version needs --agent");
      const body = {
        datasetId: await datasetId(api, values.dataset),
        agent: values.agent,
        agentVersion: wholeNumber("--version", values.version),
        model: values.model,
        epochs: wholeNumber("--epochs", values.epochs),
        concurrency: wholeNumber("--concurrency", values.concurrency),
        teamId: values.team,
        baselineId: values.baseline,
      };
      const started = await ok(api.POST("/api/v1/experiments", { body }));
      if (!values.json) console.log(`Experiment ${started.id} started: ${started.name}`);
      const ended = await waitFor(api, started.id, !!values.json);
      const path = { id: started.id };
      const results = await ok(api.GET("/api/v1/experiments/{id}/results", { params: { path } }));
      const gate = values.baseline
        ? await ok(api.GET("/api/v1/experiments/{id}/gate", { params: { path, query: { baseline: values.baseline } } }))
        : null;
      const base = (values.url ?? process.env.REIN_URL ?? "http://localhost:3000").replace(/\/$/, "");
      if (values.json) console.log(JSON.stringify({ experiment: ended, results, gate }));
      else if (gate && values.gate)
        printGate(gate, `${base}/evals/compare?ids=${values.baseline},${started.id}&baseline=${values.baseline}`);
      else {
        console.log(`Experiment ${ended.id} ${ended.status}${ended.statusReason ? `: ${ended.statusReason}` : ""}`);
        printResults(results);
        if (gate) printGate(gate, `${base}/evals/compare?ids=${values.baseline},${started.id}&baseline=${values.baseline}`);
      }
      if (ended.status !== "succeeded") process.exitCode = 1;
      else if (values.gate && !gate?.passed) process.exitCode = 1;
    },
  },
  {
    command: "eval",
    sub: "experiments",
    usage: "[--dataset D] [--json]",
    description: "List experiments you can see, newest first, with their progress.",
    async run({ api, values }) {
      const query = values.dataset ? { datasetId: await datasetId(api, values.dataset) } : {};
      const { experiments } = await ok(api.GET("/api/v1/experiments", { params: { query } }));
      if (values.json) return console.log(JSON.stringify(experiments));
      if (experiments.length === 0) return console.log("No experiments yet: start one with eval run --dataset demo-coding");
      for (const e of experiments) console.log(`${e.id}  ${e.name.padEnd(40)} ${progressLine(e)}`);
    },
  },
  {
    command: "eval",
    sub: "show",
    usage: "EXPERIMENT_ID [--json]",
    description: "Show an experiment's results: its score with a 95% interval, pass@k and pass^k, cost and latency, and each item.",
    async run({ api, args, values }) {
      if (!args[0]) throw new CliError("eval show needs the experiment's ID (eval experiments lists them)");
      const path = { id: args[0] };
      const experiment = await ok(api.GET("/api/v1/experiments/{id}", { params: { path } }));
      const results = await ok(api.GET("/api/v1/experiments/{id}/results", { params: { path } }));
      if (values.json) return console.log(JSON.stringify({ experiment, results }));
      console.log(`${experiment.name} · ${progressLine(experiment)}`);
      printResults(results);
    },
  },
  {
    command: "eval",
    sub: "compare",
    usage: "EXPERIMENT_ID EXPERIMENT_ID... [--baseline ID] [--json]",
    description:
      "Compare experiments of one dataset item by item against a baseline (default: the oldest): one verdict on the scores (the 95% interval of the difference), then what regressed or improved, regressions first.",
    async run({ api, args, values }) {
      if (args.length < 2) throw new CliError("eval compare needs two or more experiment IDs");
      const query = { ids: args.join(","), ...(values.baseline ? { baseline: values.baseline } : {}) };
      const c = await ok(api.GET("/api/v1/experiments/compare", { params: { query } }));
      if (values.json) return console.log(JSON.stringify(c));
      const base = c.baseline;
      console.log(`Baseline: ${base.label} (${base.experimentId})${base.chosen ? "" : ", the oldest"}`);
      for (const cand of c.candidates) {
        const o = cand.outcomes;
        console.log(`${cand.experimentId} against ${base.experimentId}: ${cand.verdict.sentence}`);
        console.log(`  pass/fail: ${o.regressed} regressed, ${o.improved} improved, ${o.unchanged} unchanged`);
        for (const i of cand.items) {
          if (i.change === "unchanged") continue;
          console.log(
            `  ${i.change.padEnd(14)} ${i.key.padEnd(20)} ${score(i.baseline?.score)} -> ${score(i.candidate?.score)}  ${i.goal}${i.itemChanged ? " (item edited between the two)" : ""}`,
          );
        }
      }
    },
  },
  {
    command: "eval",
    sub: "cancel",
    usage: "EXPERIMENT_ID",
    description: "Cancel an experiment: items not started never start, running ones' runs are canceled, finished ones keep their scores.",
    async run({ api, args }) {
      if (!args[0]) throw new CliError("eval cancel needs the experiment's ID");
      const e = await ok(api.POST("/api/v1/experiments/{id}/cancel", { params: { path: { id: args[0] } } }));
      console.log(`Experiment ${e.id} ${e.status}`);
    },
  },
];

export const EVAL_COMMANDS: CliCommand<EvalValues>[] = [...DATASET_COMMANDS, ...EXPERIMENT_COMMANDS];
