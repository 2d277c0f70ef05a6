// CLI commands for secrets (docs/secrets.md#cli-admin-token), over REST v1 as an admin:
// secret set|scope|list|delete, as entries of the CLI's command table
// (./cli-commands.ts). Without --value (or with --value -) secret set reads
// the value from standard input, so it stays out of the shell's history.
import { CliError, ok } from "./cli-error";
import { stdin } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const SECRET_OPTIONS = {
  /** run --secret NAME (repeatable): a secret the run's tools may use. */
  secret: { type: "string", multiple: true },
  /** secret set/scope: the agents and teams that may be given it (comma-separated, * for any). */
  agents: { type: "string" },
  teams: { type: "string" },
  "caller-commands": { type: "boolean" },
} as const;

function valueFrom(values: { value?: string }): string {
  if (values.value !== undefined && values.value !== "-") return values.value;
  if (values.value === undefined && stdin.isTTY()) throw new CliError("secret set needs --value V, or the value on standard input");
  // One trailing newline is what `echo` and editors add; the rest of the value is kept as it is.
  const read = stdin.read().replace(/\r?\n$/, "");
  if (!read) throw new CliError("secret set read no value from standard input");
  return read;
}

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "never");

type SecretValues = { value?: string; json?: boolean; agents?: string; teams?: string; "caller-commands"?: boolean; name?: string };

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function scopeFrom(values: SecretValues) {
  if (values.agents === undefined && values.teams === undefined && values["caller-commands"] === undefined) return undefined;
  return { agents: list(values.agents), teams: list(values.teams), callerCommands: values["caller-commands"] ?? false };
}

// Scopes keep team ids; the answer carries their current names to show.
const teamNames = (ids: string[], teams: Array<{ id: string; name: string }> = []) =>
  ids.map((id) => (id === "*" ? "*" : (teams.find((t) => t.id === id)?.name ?? id)));
const describeScope = (
  scope: { agents: string[]; teams: string[]; callerCommands: boolean },
  teams?: Array<{ id: string; name: string }>,
) =>
  scope.agents.length && scope.teams.length
    ? `agents ${scope.agents.join(",")} in teams ${teamNames(scope.teams, teams).join(",")}${scope.callerCommands ? ", scenarios too" : ""}`
    : "nobody yet (secret scope NAME --agents … --teams …)";

/** The secret a command is about: the word after the sub-command, or --name. */
const nameOf = (args: string[], values: SecretValues) => args[0] ?? values.name;

export const SECRET_COMMANDS: CliCommand<SecretValues>[] = [
  {
    command: "secret",
    sub: "set",
    usage: "NAME [--value V] [--agents A,B --teams T] [--caller-commands] [--json]",
    description: "Add a secret or replace its value (admins); without --value, or with --value -, the value is read from standard input.",
    async run({ api, args, values }) {
      const name = nameOf(args, values);
      if (!name) throw new CliError("secret set needs a NAME, e.g. secret set DEPLOY_TOKEN --value V");
      const scope = scopeFrom(values);
      const saved = await ok(api.POST("/api/v1/secrets", { body: { name, value: valueFrom(values), ...(scope ? { scope } : {}) } }));
      console.log(
        values.json
          ? JSON.stringify(saved)
          : `Secret ${saved.name} saved; tools see it as $${saved.env}; given to ${describeScope(saved.scope, saved.teams)}`,
      );
    },
  },
  {
    command: "secret",
    sub: "scope",
    usage: "NAME --agents A,B --teams T [--caller-commands] [--json]",
    description:
      "Say who may be given a secret (admins): agents and teams, * for any; --caller-commands also runs that play a scenario. Nobody until this is set.",
    async run({ api, args, values }) {
      const name = nameOf(args, values);
      if (!name) throw new CliError("secret scope needs a NAME, e.g. secret scope DEPLOY_TOKEN --agents demo-deploy --teams default");
      const scope = scopeFrom(values);
      if (!scope)
        throw new CliError(
          "secret scope needs --agents and --teams (comma-separated, * for any), and --caller-commands to allow scenarios",
        );
      const saved = await ok(api.PUT("/api/v1/secrets/{name}/scope", { params: { path: { name } }, body: scope }));
      console.log(values.json ? JSON.stringify(saved) : `Secret ${saved.name} is given to ${describeScope(saved.scope, saved.teams)}`);
    },
  },
  {
    command: "secret",
    sub: "list",
    usage: "[--json]",
    description: "List the secrets: names, variables, scopes and dates, never a value (admins).",
    async run({ api, values }) {
      const { secrets } = await ok(api.GET("/api/v1/secrets"));
      if (values.json) return console.log(JSON.stringify(secrets));
      if (secrets.length === 0) return console.log("No secrets. Add one with: npm run rein -- secret set NAME");
      for (const s of secrets) {
        const by = s.createdBy ? s.createdBy.name || s.createdBy.email : "-";
        console.log(
          `${s.name.padEnd(28)} $${s.env.padEnd(28)} by ${by.padEnd(16)} updated ${when(s.updatedAt)}  last used ${when(s.lastUsedAt)}  for ${describeScope(s.scope, s.teams)}`,
        );
      }
    },
  },
  {
    command: "secret",
    sub: "delete",
    usage: "NAME",
    description: "Delete a secret (admins).",
    async run({ api, args, values }) {
      const name = nameOf(args, values);
      if (!name) throw new CliError("secret delete needs a NAME");
      await ok(api.DELETE("/api/v1/secrets/{name}", { params: { path: { name } } }));
      console.log(`Secret ${name} deleted`);
    },
  },
];
