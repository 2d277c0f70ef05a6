// CLI commands for team gateway keys over REST v1 (docs/gateway.md#team-keys):
// `gateway-keys list`, `gateway-keys create --team T --name N [--budget USD]
// [--model M] [--days D]` (prints the key once, with how to use it) and
// `gateway-keys revoke ID`. Admins, or a team's own admins for its keys.
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";

type KeyView = components["schemas"]["GatewayKey"];
type KeyValues = { json?: boolean; team?: string; name?: string; budget?: string; model?: string; days?: string; url?: string };

export const GATEWAY_KEY_OPTIONS = {
  team: { type: "string" },
  budget: { type: "string" },
  model: { type: "string" },
} as const;

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "never");
const usd = (n: number) => `$${n.toFixed(2)}`;

function printKey(k: KeyView) {
  const budget = k.budgetUsd === null ? "no budget of its own" : `${usd(k.spentThisMonthUsd)} of ${usd(k.budgetUsd)} this month`;
  console.log(
    `${k.id}  ${k.prefix}…  ${k.name}  team ${k.team.name}  ${k.state}  ${budget}  model ${k.model ?? "auto"}  last used ${when(k.lastUsedAt)}  by ${k.createdBy?.name ?? "-"}`,
  );
}

function number(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`${what} must be a number of 0 or more (it was ${text})`);
  return n;
}

export const GATEWAY_KEY_COMMANDS: CliCommand<KeyValues>[] = [
  {
    command: "gateway-keys",
    sub: "list",
    usage: "[--team ID] [--json]",
    description: "List the gateway keys of the teams you are an admin of: prefix, team, state, spend this month, last use. Never a key.",
    async run({ api, values }) {
      const { keys } = await ok(api.GET("/api/v1/gateway-keys", { params: { query: values.team ? { teamId: values.team } : {} } }));
      if (values.json) return console.log(JSON.stringify(keys));
      if (keys.length === 0)
        return console.log("No gateway keys. Issue one with: npm run rein -- gateway-keys create --team ID --name NAME");
      keys.forEach(printKey);
    },
  },
  {
    command: "gateway-keys",
    sub: "create",
    usage: "--team ID --name NAME [--budget USD] [--model M] [--days D] [--json]",
    description:
      "Issue a gateway key for a team (its admins); --budget caps the key per calendar month, --model is what answers a request naming no model Rein knows, --days makes it expire. The key is printed once.",
    async run({ api, values }) {
      if (!values.team || !values.name) throw new CliError("gateway-keys create needs --team ID and --name NAME");
      const budgetUsd = number(values.budget, "--budget");
      const days = number(values.days, "--days");
      const made = await ok(
        api.POST("/api/v1/gateway-keys", {
          body: {
            teamId: values.team,
            name: values.name,
            ...(budgetUsd !== undefined ? { budgetUsd } : {}),
            ...(values.model ? { model: values.model } : {}),
            ...(days !== undefined ? { expiresInDays: Math.ceil(days) } : {}),
          },
        }),
      );
      if (values.json) return console.log(JSON.stringify(made));
      const base = (values.url ?? process.env.REIN_URL ?? "http://localhost:3000").replace(/\/+$/, "");
      const gateway = `${base}/api/gateway/v1`;
      console.log(`Gateway key ${made.gatewayKey.name} (${made.gatewayKey.id}) for team ${made.gatewayKey.team.name}:`);
      console.log(`\n  ${made.key}\n`);
      console.log("It is shown only now; Rein keeps its hash alone. Use it with:");
      console.log(`  OPENAI_BASE_URL=${gateway} OPENAI_API_KEY=<key>`);
      console.log(`  ANTHROPIC_BASE_URL=${gateway.replace(/\/v1$/, "")} ANTHROPIC_API_KEY=<key>`);
    },
  },
  {
    command: "gateway-keys",
    sub: "revoke",
    usage: "ID",
    description: "Revoke a gateway key (its team's admins): its next request is refused.",
    async run({ api, args }) {
      const id = args[0];
      if (!id) throw new CliError("gateway-keys revoke needs the key's ID (gateway-keys list shows it)");
      const key = await ok(api.DELETE("/api/v1/gateway-keys/{id}", { params: { path: { id } } }));
      console.log(`Gateway key ${key.name} (${key.prefix}…) revoked`);
    },
  },
];
