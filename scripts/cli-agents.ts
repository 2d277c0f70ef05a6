// CLI commands for agents (docs/agents.md), over REST v1: agents
// list|show|versions|diff|export|import|archive|unarchive|copy, as entries of
// the CLI's command table (./cli-commands.ts). export prints YAML to standard
// output and import reads a file (or - for standard input), so a spec can
// live in a repository: agents export NAME > a.yaml; agents import a.yaml.
import { CliError, ok } from "./cli-error";
import { readInput } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const AGENT_OPTIONS = {
  /** agents import: the change note of the version it saves. */
  note: { type: "string" },
  /** agents show/export: a version other than the latest. */
  version: { type: "string" },
  /** agents diff: the two versions. */
  from: { type: "string" },
  to: { type: "string" },
  /** agents list: archived agents too. */
  "include-archived": { type: "boolean" },
  /** agents copy: the team the copy belongs to. */
  team: { type: "string" },
} as const;

type AgentValues = {
  json?: boolean;
  note?: string;
  version?: string;
  from?: string;
  to?: string;
  "include-archived"?: boolean;
  team?: string;
  name?: string;
};

const when = (iso: string) => iso.replace("T", " ").slice(0, 16);

function versionOf(text: string | undefined, option: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${option} is a version number: 1, 2, ...`);
  return n;
}

function nameOf(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`${usage} needs the agent's NAME`);
  return args[0];
}

function readFile(file: string): string {
  try {
    return readInput(file);
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

export const AGENT_COMMANDS: CliCommand<AgentValues>[] = [
  {
    command: "agents",
    sub: "list",
    usage: "[--include-archived] [--json]",
    description: "List the agents you can see: your teams' and everyone's, at their latest versions.",
    async run({ api, values }) {
      const { agents } = await ok(
        api.GET("/api/v1/agents", { params: { query: values["include-archived"] ? { includeArchived: "true" } : {} } }),
      );
      if (values.json) return console.log(JSON.stringify(agents));
      for (const a of agents) {
        const flags = [a.builtIn ? "built-in" : "", a.archived ? "archived" : ""].filter(Boolean).join(", ");
        console.log(
          `${a.name.padEnd(20)} v${String(a.version).padEnd(3)} ${a.model.padEnd(24)} ${(a.team?.name ?? "everyone").padEnd(12)} ${a.description}${flags ? ` (${flags})` : ""}`,
        );
      }
    },
  },
  {
    command: "agents",
    sub: "show",
    usage: "NAME [--version N] [--json]",
    description: "Show an agent's spec (its latest version, or --version N).",
    async run({ api, args, values }) {
      const version = versionOf(values.version, "--version");
      const a = await ok(
        api.GET("/api/v1/agents/{name}", { params: { path: { name: nameOf(args, "agents show") }, query: version ? { version } : {} } }),
      );
      if (values.json) return console.log(JSON.stringify(a));
      const limits = Object.entries(a.guardrails)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
      console.log(
        [
          `${a.name} v${a.version}${a.builtIn ? " (built-in)" : ""}${a.archived ? " (archived)" : ""}: ${a.description}`,
          `model ${a.model} · task class ${a.taskClass} · tier ${a.tier} · team ${a.team?.name ?? "everyone"}`,
          `tools ${a.tools.join(", ") || "none"}`,
          `hands off to ${a.handoffs.join(", ") || "nobody"}`,
          ...(a.secrets.length ? [`secrets ${a.secrets.join(", ")}`] : []),
          ...(limits ? [`guardrails ${limits}`] : []),
          `saved ${when(a.createdAt)} by ${a.createdBy ?? "Rein"}${a.changeNote ? `: ${a.changeNote}` : ""}`,
          "",
          a.instructions,
        ].join("\n"),
      );
    },
  },
  {
    command: "agents",
    sub: "versions",
    usage: "NAME [--json]",
    description: "List an agent's versions, newest first, with their change notes.",
    async run({ api, args, values }) {
      const { versions } = await ok(
        api.GET("/api/v1/agents/{name}/versions", { params: { path: { name: nameOf(args, "agents versions") } } }),
      );
      if (values.json) return console.log(JSON.stringify(versions));
      for (const v of versions)
        console.log(`v${String(v.version).padEnd(4)} ${when(v.createdAt)}  ${(v.createdBy ?? "Rein").padEnd(16)} ${v.changeNote}`);
    },
  },
  {
    command: "agents",
    sub: "diff",
    usage: "NAME --from A --to B [--json]",
    description: "Show what changed between two versions of an agent: its settings, then its instructions line by line.",
    async run({ api, args, values }) {
      const from = versionOf(values.from, "--from");
      const to = versionOf(values.to, "--to");
      if (!from || !to) throw new CliError("agents diff needs --from A and --to B, e.g. agents diff NAME --from 1 --to 2");
      const diff = await ok(
        api.GET("/api/v1/agents/{name}/diff", { params: { path: { name: nameOf(args, "agents diff") }, query: { from, to } } }),
      );
      if (values.json) return console.log(JSON.stringify(diff));
      for (const c of diff.changes) console.log(`${c.label}: ${c.before} → ${c.after}`);
      if (diff.instructions.some((l) => l.kind !== "same")) {
        console.log("Instructions:");
        for (const l of diff.instructions) console.log(`${l.kind === "add" ? "+" : l.kind === "del" ? "-" : " "} ${l.text}`);
      }
      if (diff.changes.length === 0 && diff.instructions.every((l) => l.kind === "same"))
        console.log(`Versions ${from} and ${to} are the same.`);
    },
  },
  {
    command: "agents",
    sub: "export",
    usage: "NAME [--version N]",
    description: "Print an agent's spec as YAML, to keep in a repository: agents export NAME > NAME.agent.yaml",
    async run({ api, args, values }) {
      const version = versionOf(values.version, "--version");
      const yaml = await ok(
        api.GET("/api/v1/agents/{name}/export", {
          params: { path: { name: nameOf(args, "agents export") }, query: version ? { version } : {} },
          parseAs: "text",
        }),
      );
      process.stdout.write(yaml);
    },
  },
  {
    command: "agents",
    sub: "import",
    usage: "FILE [--note N] [--json]",
    description: "Create the agent a YAML file describes, or save it as a new version of that agent (FILE - reads standard input).",
    async run({ api, args, values }) {
      if (!args[0]) throw new CliError('agents import needs a FILE, e.g. agents import a.yaml --note "Tighter instructions"');
      const saved = await ok(api.POST("/api/v1/agents/import", { body: { yaml: readFile(args[0]), changeNote: values.note } }));
      console.log(values.json ? JSON.stringify(saved) : `Agent ${saved.name} saved as version ${saved.version}`);
    },
  },
  ...(["archive", "unarchive"] as const).map((action): CliCommand<AgentValues> => ({
    command: "agents",
    sub: action,
    usage: "NAME",
    description:
      action === "archive" ? "Archive an agent: hidden from the list and no new runs; its runs and versions stay." : "Unarchive an agent.",
    async run({ api, args }) {
      await ok(api.POST(`/api/v1/agents/{name}/${action}`, { params: { path: { name: nameOf(args, `agents ${action}`) } } }));
      console.log(`Agent ${args[0]} ${action}d`);
    },
  })),
  {
    command: "agents",
    sub: "copy",
    usage: "NAME --name NEW [--team TEAM_ID] [--json]",
    description: "Copy an agent (built-in ones too) under a new name, to change the copy.",
    async run({ api, args, values }) {
      if (!values.name) throw new CliError("agents copy needs --name NEW, the copy's name");
      const copy = await ok(
        api.POST("/api/v1/agents/{name}/copy", {
          params: { path: { name: nameOf(args, "agents copy") } },
          body: { name: values.name, ...(values.team ? { teamId: values.team } : {}) },
        }),
      );
      console.log(
        values.json ? JSON.stringify(copy) : `Agent ${copy.name} created from ${args[0]} (team ${copy.team?.name ?? "everyone"})`,
      );
    },
  },
];
