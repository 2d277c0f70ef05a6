// CLI commands for Evals datasets, over REST v1: eval datasets (list) and
// eval dataset show|import|export, as entries of the CLI's command table
// (./cli-commands.ts). export prints JSONL to standard output and import
// reads a file (or - for standard input), so a dataset can live in a
// repository: eval dataset export ID > set.jsonl; eval dataset import ID set.jsonl.
import fs from "node:fs";
import { CliError } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type EvalValues = { json?: boolean; "include-archived"?: boolean };

function idOf(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`${usage} needs the dataset's ID (eval datasets lists them)`);
  return encodeURIComponent(args[0]);
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const EVAL_COMMANDS: CliCommand<EvalValues>[] = [
  {
    command: "eval",
    sub: "datasets",
    usage: "[--include-archived] [--json]",
    description: "List the Evals datasets you can see: your teams' and everyone's, with their ids and number of items.",
    async run({ api, values }) {
      const { datasets } = await api("GET", `/api/v1/datasets${values["include-archived"] ? "?includeArchived=true" : ""}`);
      if (values.json) return console.log(JSON.stringify(datasets));
      for (const d of datasets) {
        const flags = [d.builtIn ? "built-in" : "", d.archived ? "archived" : ""].filter(Boolean).join(", ");
        console.log(`${d.id}  ${d.name.padEnd(24)} ${plural(d.itemCount, "item").padEnd(10)} ${(d.team?.name ?? "everyone").padEnd(12)} ${d.description}${flags ? ` (${flags})` : ""}`);
      }
    },
  },
  {
    command: "eval",
    sub: "dataset show",
    usage: "ID [--json]",
    description: "Show a dataset: its scoring and its items at their latest versions.",
    async run({ api, args, values }) {
      const id = idOf(args, "eval dataset show");
      const dataset = await api("GET", `/api/v1/datasets/${id}`);
      const { items } = await api("GET", `/api/v1/datasets/${id}/items`);
      if (values.json) return console.log(JSON.stringify({ ...dataset, items }));
      console.log(`${dataset.name}: ${dataset.description || "(no description)"}`);
      console.log(`team ${dataset.team?.name ?? "everyone"} · ${plural(items.length, "item")} · pass threshold ${dataset.scoring.threshold}`);
      console.log(`scorers: ${dataset.scoring.scorers.map((s: { kind: string }) => s.kind).join(", ")}`);
      for (const i of items) console.log(`  ${i.key.padEnd(20)} v${String(i.version).padEnd(3)} ${(i.agent ?? "-").padEnd(16)} ${i.goal}`);
    },
  },
  {
    command: "eval",
    sub: "dataset export",
    usage: "ID",
    description: "Print a dataset's items as JSONL, one item a line: eval dataset export ID > NAME.jsonl",
    async run({ api, args }) {
      process.stdout.write(await api("GET", `/api/v1/datasets/${idOf(args, "eval dataset export")}/export`));
    },
  },
  {
    command: "eval",
    sub: "dataset import",
    usage: "ID FILE",
    description:
      "Import items from a JSONL file (- reads standard input): a known key gets its next version, other lines become new items. Any bad line imports nothing; each problem is listed by line.",
    async run({ api, args, values }) {
      const id = idOf(args, "eval dataset import");
      if (!args[1]) throw new CliError("eval dataset import needs a FILE, e.g. eval dataset import ID items.jsonl");
      const r = await api("POST", `/api/v1/datasets/${id}/import`, { jsonl: readFile(args[1]) });
      console.log(values.json ? JSON.stringify(r) : `Imported: ${r.added} added, ${r.edited} edited, ${r.unchanged} unchanged`);
    },
  },
];
