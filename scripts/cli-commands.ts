// The CLI's command table: every command of `npm run rein --`, with its usage
// and description. The dispatcher and the --help text both read it, so a
// command cannot exist without its entry; docs/cli.md's command table is
// generated from it (npm run docs).
import fs from "node:fs";
import { parseArgs } from "node:util";
import { ENV_VARIABLES, loadDataConfig } from "@/server/config";
import { openDb } from "@/server/db";
import { createApiToken } from "@/server/identity";
import { restClient, type RestClient } from "@/lib/rest-client";
import { CliError, ok } from "./cli-error";
import { given, type Body } from "./cli-input";
import { MODEL_COMMANDS, MODEL_OPTIONS } from "./cli-models";
import { SECRET_COMMANDS, SECRET_OPTIONS } from "./cli-secrets";
import { PEOPLE_COMMANDS, PEOPLE_OPTIONS } from "./cli-people";
import { AGENT_COMMANDS, AGENT_OPTIONS } from "./cli-agents";
import { EVAL_COMMANDS, EVAL_OPTIONS } from "./cli-evals";
import { IMPROVEMENT_COMMANDS } from "./cli-improvements";
import { SKILL_COMMANDS } from "./cli-skills";
import { CHANGE_COMMANDS, CHANGE_OPTIONS } from "./cli-changes";
import { EXTENSION_COMMANDS } from "./cli-extensions";
import { MCP_COMMANDS, MCP_OPTIONS } from "./cli-mcp";
import { HOSTED_COMMANDS } from "./cli-hosted";
import { GATEWAY_KEY_COMMANDS, GATEWAY_KEY_OPTIONS } from "./cli-gateway-keys";
import { MACHINE_COMMANDS, MACHINE_OPTIONS } from "./cli-machines";
import { DEVICE_COMMANDS, DEVICE_OPTIONS } from "./cli-devices";
import { WEBHOOK_COMMANDS, WEBHOOK_OPTIONS } from "./cli-webhooks";
import { STEERING_COMMANDS, STEERING_OPTIONS } from "./cli-steering";
import { MEMORY_COMMANDS, MEMORY_OPTIONS } from "./cli-memories";
import { followRun, printEvent } from "./cli-follow";
import { BACKUP_COMMANDS, BACKUP_OPTIONS } from "./cli-backup";
import { RETENTION_COMMANDS } from "./cli-retention";

type Decision = Body<"/api/v1/human-requests/{id}/decision", "post">;

export interface CliContext<V> {
  /** The options given, parsed. */
  values: V;
  /** The words after the command and its sub-command (e.g. a secret's NAME). */
  args: string[];
  /** REST v1 as the token's user, typed (lib/rest-client.ts; ok() turns an answer into its data). Commands marked `local` get one that refuses. */
  api: RestClient;
}

export interface CliCommand<V = CliValues> {
  command: string;
  /** The second word, for commands that have several (provider add, provider list, ...). */
  sub?: string;
  /** What follows the command's words, e.g. "--run ID [--after N]". */
  usage: string;
  /** What it does, in a sentence or two for people. */
  description: string;
  /** Works on the local database instead of a server's API: needs no token. */
  local?: boolean;
  run(ctx: CliContext<V>): Promise<void>;
}

const CORE_OPTIONS = {
  email: { type: "string" },
  name: { type: "string" },
  days: { type: "string" },
  goal: { type: "string" },
  agent: { type: "string" },
  /** run --tag T (repeatable): a label for the run. */
  tag: { type: "string", multiple: true },
  scenario: { type: "string" },
  wait: { type: "boolean" },
  json: { type: "boolean" },
  run: { type: "string" },
  after: { type: "string" },
  state: { type: "string" },
  request: { type: "string" },
  decision: { type: "string" },
  option: { type: "string" },
  value: { type: "string" },
  comment: { type: "string" },
  args: { type: "string" },
  token: { type: "string" },
  url: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const OPTIONS = {
  ...CORE_OPTIONS,
  ...MODEL_OPTIONS,
  ...SECRET_OPTIONS,
  ...PEOPLE_OPTIONS,
  ...AGENT_OPTIONS,
  ...EVAL_OPTIONS,
  ...CHANGE_OPTIONS,
  ...MCP_OPTIONS,
  ...WEBHOOK_OPTIONS,
  ...STEERING_OPTIONS,
  ...MEMORY_OPTIONS,
  ...BACKUP_OPTIONS,
  ...GATEWAY_KEY_OPTIONS,
  ...MACHINE_OPTIONS,
  ...DEVICE_OPTIONS,
};

export type CliValues = ReturnType<typeof parseOptions>["values"];

function parseOptions(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    // Node's own words (an unknown option, a value that looks like an option), without its stack.
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) throw new CliError((err as Error).message.replace(/\s*\n\s*/g, " "));
    throw err;
  }
}

const CORE_COMMANDS: CliCommand[] = [
  {
    command: "token",
    sub: "create",
    usage: "--email E --name N [--days D]",
    description:
      "Create an API token for a user and print it once. It writes to the database directly (REIN_DATA_DIR or DATABASE_URL), so it needs no token and no running server.",
    local: true,
    async run({ values }) {
      if (!values.email || !values.name) throw new CliError("token create needs --email and --name");
      const db = await openDb(loadDataConfig().databaseUrl);
      try {
        const user = await db.user.findUnique({ where: { email: values.email.toLowerCase() }, select: { id: true } });
        if (!user) throw new CliError(`No user with the email ${values.email}`);
        const days = values.days ? Number.parseInt(values.days, 10) : undefined;
        if (values.days && (!Number.isInteger(days) || days! < 1)) throw new CliError("--days must be a positive whole number");
        const created = await createApiToken(db, { userId: user.id, name: values.name, expiresInDays: days });
        console.log(created.token);
      } finally {
        await db.$disconnect();
      }
    },
  },
  {
    command: "run",
    usage:
      "--goal G [--agent A] [--model PROVIDER/MODEL_ID|auto] [--complexity 0..1] [--scenario FILE] [--secret NAME]... [--tag T]... [--wait] [--json]",
    description:
      "Launch a run (default agent: demo-coder). --wait prints its events until it ends and exits with 1 unless it succeeded; --secret names a secret its tools may use as $NAME (repeat for more); --tag labels the run (repeat for more, at most 10).",
    async run({ api, values }) {
      if (!values.goal) throw new CliError("run needs --goal");
      let scenario: unknown;
      if (values.scenario) {
        try {
          scenario = JSON.parse(fs.readFileSync(values.scenario, "utf8"));
        } catch (err) {
          throw new CliError(`Cannot read the scenario ${values.scenario}: ${(err as Error).message}`);
        }
      }
      const complexity = values.complexity === undefined ? undefined : Number(values.complexity);
      if (complexity !== undefined && !(complexity >= 0 && complexity <= 1)) throw new CliError("--complexity is a number from 0 to 1");
      const run = await ok(
        api.POST("/api/v1/runs", {
          body: {
            goal: values.goal,
            agent: values.agent ?? "demo-coder",
            scenario: given<Body<"/api/v1/runs", "post">["scenario"]>(scenario),
            model: values.model,
            complexity,
            secrets: values.secret,
            tags: values.tag,
          },
        }),
      );
      if (!values.wait) return console.log(values.json ? JSON.stringify(run) : `Run ${run.id} queued`);
      await followRun(api, run.id, { after: 0, json: values.json });
    },
  },
  {
    command: "events",
    usage: "--run ID [--after N]",
    description: "Print a run's events after sequence number N (default 0).",
    async run({ api, values }) {
      if (!values.run) throw new CliError("events needs --run");
      const { events } = await ok(
        api.GET("/api/v1/runs/{id}/events", { params: { path: { id: values.run }, query: { after: Number(values.after ?? 0) } } }),
      );
      events.forEach(printEvent);
    },
  },
  {
    command: "requests",
    usage: "[--state PENDING,ESCALATED] [--run ID] [--json]",
    description: "List human requests (default: the open ones).",
    async run({ api, values }) {
      const query = { state: values.state ?? "PENDING,ESCALATED", ...(values.run ? { runId: values.run } : {}) };
      const { requests: items } = await ok(api.GET("/api/v1/human-requests", { params: { query } }));
      if (values.json) return console.log(JSON.stringify(items));
      if (items.length === 0) return console.log("No human requests match.");
      for (const r of items) {
        console.log(
          `${r.id}  ${r.kind.padEnd(7)} ${r.state.padEnd(9)} needs ${r.requiredRole.padEnd(8)} expires ${r.expiresAt}  ${r.title}`,
        );
      }
    },
  },
  {
    command: "decide",
    usage: "--request ID --decision approve|reject|veto|choose|provide [--option ID] [--value JSON] [--comment C] [--args JSON] [--json]",
    description: "Decide a human request; --args approves with edited arguments for the tool.",
    async run({ api, values }) {
      if (!values.request || !values.decision) throw new CliError("decide needs --request and --decision");
      const body = {
        decision: given<Decision["decision"]>(values.decision),
        ...(values.option ? { optionId: values.option } : {}),
        ...(values.comment ? { comment: values.comment } : {}),
        ...(values.value !== undefined ? { value: parseJsonOption("--value", values.value) } : {}),
        ...(values.args !== undefined
          ? { editedArguments: given<Decision["editedArguments"]>(parseJsonOption("--args", values.args)) }
          : {}),
      };
      const decided = await ok(api.POST("/api/v1/human-requests/{id}/decision", { params: { path: { id: values.request } }, body }));
      console.log(values.json ? JSON.stringify(decided) : `Request ${decided.id} ${decided.state}`);
    },
  },
];

/** Every command, in the order of the help text. */
export const COMMANDS: readonly CliCommand[] = [
  ...CORE_COMMANDS,
  ...STEERING_COMMANDS,
  ...AGENT_COMMANDS,
  ...MODEL_COMMANDS,
  ...SECRET_COMMANDS,
  ...PEOPLE_COMMANDS,
  ...EVAL_COMMANDS,
  ...IMPROVEMENT_COMMANDS,
  ...SKILL_COMMANDS,
  ...CHANGE_COMMANDS,
  ...EXTENSION_COMMANDS,
  ...MCP_COMMANDS,
  ...HOSTED_COMMANDS,
  ...GATEWAY_KEY_COMMANDS,
  ...MACHINE_COMMANDS,
  ...DEVICE_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...MEMORY_COMMANDS,
  ...BACKUP_COMMANDS,
  ...RETENTION_COMMANDS,
];

/** A command's words and usage, as typed. */
export const commandLine = (c: CliCommand) => [c.command, c.sub, c.usage].filter(Boolean).join(" ");

/** The entry for the first words of a command line; throws a CliError that says what exists. */
export function findCommand(words: string[]): { entry: CliCommand; args: string[] } {
  const [command, sub, ...rest] = words;
  const family = COMMANDS.filter((c) => c.command === command);
  if (family.length === 0) throw new CliError(`Unknown command "${words.join(" ")}"\n\n${helpText()}`);
  const plain = family.find((c) => c.sub === undefined);
  if (plain) return { entry: plain, args: words.slice(1) };
  // A sub-command may be two words (eval dataset show).
  const two = family.find((c) => c.sub === `${sub} ${rest[0]}`);
  if (two) return { entry: two, args: rest.slice(1) };
  const entry = family.find((c) => c.sub === sub);
  if (!entry) {
    const subs = family.map((c) => c.sub!);
    throw new CliError(`${command} needs ${subs.slice(0, -1).join(", ")} or ${subs[subs.length - 1]}`);
  }
  return { entry, args: rest };
}

export function helpText(only?: CliCommand): string {
  if (only) return `Usage: npm run rein -- ${commandLine(only)}\n\n${only.description}`;
  const env = ENV_VARIABLES.filter((v) => v.group === "cli");
  const width = Math.max(...env.map((v) => v.name.length));
  return [
    "Usage: npm run rein -- <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.flatMap((c) => [`  ${commandLine(c)}`, `      ${c.description}`]),
    "",
    "Options: --token T and --url U instead of REIN_TOKEN and REIN_URL; -h, --help for this text,",
    "or for one command's (npm run rein -- secret set --help).",
    "",
    "Environment:",
    ...env.map((v) => `  ${v.name.padEnd(width)}  ${v.description} Default: ${v.default}`),
  ].join("\n");
}

export async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseOptions(argv);
  if (positionals.length === 0) return console.log(helpText());
  const { entry, args } = findCommand(positionals);
  if (values.help) return console.log(helpText(entry));
  const api = entry.local
    ? unavailableApi()
    : apiClient(values.url ?? process.env.REIN_URL ?? "http://localhost:3000", values.token ?? process.env.REIN_TOKEN);
  await entry.run({ values, args, api });
}

function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${name} must be JSON, e.g. ${name} '{"capPercent": 10}'`);
  }
}

const unavailableApi = (): RestClient =>
  restClient({
    baseUrl: "http://localhost",
    token: "",
    fetch: () => Promise.reject(new CliError("this command works on the local database, not over the API")),
  });

function apiClient(base: string, token: string | undefined): RestClient {
  if (!token) throw new CliError("Set REIN_TOKEN (or pass --token); create one with: npm run rein -- token create --email E --name N");
  let origin: string;
  try {
    origin = new URL(base).origin;
  } catch (err) {
    throw new CliError(`Cannot reach Rein at ${base}: ${(err as Error).message}`);
  }
  return restClient({
    baseUrl: origin,
    token,
    channel: "cli",
    // The request sent as a URL and its init, through the fetch of the moment
    // (the tests put their own in place, and set headers from the init).
    async fetch(input, init) {
      const request = new Request(input, init);
      try {
        return await globalThis.fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body ? await request.text() : undefined,
        });
      } catch (err) {
        throw new CliError(`Cannot reach Rein at ${base}: ${(err as Error).message}`);
      }
    },
  });
}
