// CLI commands for retention over REST v1 (docs/operations.md#retention), as
// an admin: `retention show` prints how long each kind is kept, the last pass
// and disk use; `retention set KIND DAYS|forever [KIND DAYS|forever]...`
// changes kinds; `retention prune` and `retention measure` start a pass or a
// measurement now. `pin --run ID` and `unpin --run ID` keep a run whole (as
// an operator).
import type { components } from "../lib/rest-api.generated";
import type { RestClient } from "../lib/rest-client";
import { RETENTION_KIND_LABELS } from "../lib/retention";
import { formatBytes } from "../lib/format";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type Settings = components["schemas"]["Retention"]["settings"];
type Kind = keyof Settings;
type Pass = components["schemas"]["RetentionPass"];

/** The kinds in the order people read them, with their words (as Settings › Data shows them). */
const KINDS = Object.entries(RETENTION_KIND_LABELS).map(([k, l]) => [k as Kind, `${l.label.toLowerCase()}: ${l.what}`] as const);

const days = (d: number | null) => (d === null ? "forever" : `${d} day${d === 1 ? "" : "s"}`);
const size = formatBytes;

function passLine(p: Pass): string {
  const what = Object.entries(p.dropped)
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
  return `${p.startedAt}${p.endedAt ? "" : " (under way)"}: ${what || "nothing to drop"}; ${p.kept} run(s) kept whole${p.error ? `; stopped: ${p.error}` : ""}`;
}

async function show(api: RestClient, json?: boolean) {
  const status = await ok(api.GET("/api/v1/retention"));
  if (json) return console.log(JSON.stringify(status));
  console.log("Kept after a run ended (or a row was written):");
  for (const [k, words] of KINDS) console.log(`  ${k.padEnd(12)} ${days(status.settings[k]).padEnd(10)} ${words}`);
  if (status.current) console.log(`Pruning now: ${passLine(status.current)}`);
  console.log(
    status.lastPass ? `Last pass: ${passLine(status.lastPass)}` : "No pass yet: the first runs a minute after the server starts.",
  );
  const u = status.usage;
  if (!u) return console.log(`Disk use: not measured yet${status.measuring ? " (measuring now)" : "; npm run rein -- retention measure"}.`);
  console.log(`Disk use, measured ${u.measuredAt}:`);
  console.log(
    `  database ${size(u.database.totalBytes)} (${Object.entries(u.database.byKind)
      .map(([k, b]) => `${k} ${size(b)}`)
      .join(", ")})`,
  );
  console.log(
    `  files    ${size(u.files.totalBytes)} (${Object.entries(u.files.byKind)
      .map(([k, b]) => `${k} ${size(b)}`)
      .join(", ")})`,
  );
  for (const t of u.byTeam)
    console.log(
      `  ${(t.teamName ?? (t.teamId ? t.teamId : "no team")).padEnd(20)} ${t.runs} runs, ${size(t.databaseBytes)} in the database, ${size(t.fileBytes)} of files`,
    );
}

function pinCommand(pinned: boolean): CliCommand<{ run?: string; json?: boolean }> {
  return {
    command: pinned ? "pin" : "unpin",
    usage: "--run ID",
    description: pinned
      ? "Keep a run whole, whatever retention says (operator)."
      : "Let retention drop a run's old parts again (operator); the next pass looks at it.",
    async run({ api, values }) {
      if (!values.run) throw new CliError(`${pinned ? "pin" : "unpin"} needs --run ID`);
      const r = await ok(api.POST("/api/v1/runs/{id}/pin", { params: { path: { id: values.run } }, body: { pinned } }));
      if (values.json) return console.log(JSON.stringify(r));
      console.log(pinned ? `Run ${r.id} is pinned: retention keeps it whole` : `Run ${r.id} is not pinned`);
    },
  };
}

export const RETENTION_COMMANDS: CliCommand[] = [
  {
    command: "retention",
    sub: "show",
    usage: "[--json]",
    description: "How long each kind of data is kept, the last pruning pass, and disk use by kind and by team (admin).",
    run: ({ api, values }) => show(api, values.json),
  },
  {
    command: "retention",
    sub: "set",
    usage: "KIND DAYS|forever [KIND DAYS|forever]...",
    description: `Change how long kinds of data are kept (admin). Kinds: ${KINDS.map(([k]) => k).join(", ")}.`,
    async run({ api, args }) {
      if (!args.length || args.length % 2)
        throw new CliError("usage: npm run rein -- retention set KIND DAYS|forever [KIND DAYS|forever]...");
      const body: Partial<Settings> = {};
      for (let i = 0; i < args.length; i += 2) {
        const kind = args[i] as Kind;
        if (!KINDS.some(([k]) => k === kind))
          throw new CliError(`${args[i]} is not a kind; the kinds are ${KINDS.map(([k]) => k).join(", ")}`);
        const value = args[i + 1];
        const n = Number(value);
        if (value !== "forever" && !(Number.isInteger(n) && n >= 1))
          throw new CliError(`${kind}: ${value} is neither a whole number of days nor "forever"`);
        body[kind] = value === "forever" ? null : n;
      }
      const saved = await ok(api.PATCH("/api/v1/retention", { body }));
      for (const kind of Object.keys(body) as Kind[]) console.log(`${kind}: kept ${days(saved[kind])}`);
    },
  },
  {
    command: "retention",
    sub: "prune",
    usage: "",
    description: "Start a pruning pass now, in the background (admin); retention show prints its progress.",
    async run({ api }) {
      const { started } = await ok(api.POST("/api/v1/retention/prune"));
      console.log(started ? "Pruning started; npm run rein -- retention show prints its progress." : "A pass is under way already.");
    },
  },
  {
    command: "retention",
    sub: "measure",
    usage: "",
    description: "Measure disk use by kind and by team now, in the background (admin).",
    async run({ api }) {
      const { started } = await ok(api.POST("/api/v1/retention/measure"));
      console.log(
        started ? "Measuring; npm run rein -- retention show prints the result when it is done." : "A measurement is under way already.",
      );
    },
  },
  pinCommand(true) as CliCommand,
  pinCommand(false) as CliCommand,
];
