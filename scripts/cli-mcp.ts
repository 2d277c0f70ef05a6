// CLI commands for MCP servers over REST v1
// (docs/mcp.md#from-the-api-and-the-cli), as an admin: `mcp list`,
// `mcp add NAME --stdio "CMD ARGS" | --http URL`, `mcp add-demo`,
// `mcp tools SERVER`, `mcp enable|disable SERVER TOOL`, `mcp review SERVER TOOL
// --accept|--reject`, `mcp test SERVER`, `mcp remove SERVER` and
// `mcp budget [TOKENS]`, and OAuth: `mcp add NAME --http URL --oauth [--scope S]`,
// `mcp authorize SERVER`, `mcp forget-authorization SERVER`. Variables and headers name Rein secrets
// (NAME=secret:SECRET) or carry plain text (NAME=text); values of secrets never
// pass through the CLI.
import type { components } from "../lib/rest-api.generated";
import { CliError, ok } from "./cli-error";
import type { Body } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const MCP_OPTIONS = {
  /** mcp add: a program and its arguments, run in the sandbox. */
  stdio: { type: "string" },
  /** mcp add: a Streamable HTTP address. */
  http: { type: "string" },
  /** mcp add: NAME=secret:SECRET or NAME=text (repeatable). */
  env: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  /** mcp add: give a stdio server the machine's network. */
  network: { type: "boolean" },
  "call-timeout": { type: "string" },
  accept: { type: "boolean" },
  reject: { type: "boolean" },
  /** mcp add: the server uses OAuth (docs/mcp.md#oauth); --scope says what to ask for. */
  oauth: { type: "boolean" },
  scope: { type: "string" },
  /** mcp add --oauth: the authorization server's address, when known (Rein then talks to no other). */
  "authorization-server": { type: "string" },
} as const;

type McpValues = {
  json?: boolean;
  name?: string;
  stdio?: string;
  http?: string;
  env?: string[];
  header?: string[];
  network?: boolean;
  "call-timeout"?: string;
  accept?: boolean;
  reject?: boolean;
  oauth?: boolean;
  scope?: string;
  "authorization-server"?: string;
  agents?: string;
  teams?: string;
};
type ServerView = components["schemas"]["McpServer"];
type ToolView = components["schemas"]["McpTool"];
type AddBody = Body<"/api/v1/mcp-servers", "post">;
type ToolPatch = Body<"/api/v1/mcp-servers/{name}/tools/{tool}", "patch">;

/** Splits "node /path/server.js --flag 'two words'" as a shell would, quotes and backslashes included; nothing is expanded. */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: '"' | "'" | null = null;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote) throw new CliError(`--stdio has an unclosed ${quote}`);
  if (started) words.push(word);
  return words;
}

/** NAME=secret:SECRET or NAME=text, as the server takes them. */
export function valuesFrom(items: string[] | undefined, option: string): Record<string, { secret: string } | { value: string }> {
  const out: Record<string, { secret: string } | { value: string }> = {};
  for (const item of items ?? []) {
    const eq = item.indexOf("=");
    if (eq < 1) throw new CliError(`${option} ${item}: write NAME=secret:SECRET_NAME or NAME=text`);
    const name = item.slice(0, eq);
    const rest = item.slice(eq + 1);
    out[name] = rest.startsWith("secret:") ? { secret: rest.slice("secret:".length) } : { value: rest };
  }
  return out;
}

const list = (text: string | undefined) =>
  (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const scope = (xs: string[], all: string) => (xs.includes("*") ? all : xs.join(",") || "nobody");
const teamNames = (t: ToolView) => t.allowedTeams.map((id) => (id === "*" ? "*" : (t.teams.find((x) => x.id === id)?.name ?? id)));

function need(args: string[], count: number, usage: string): string[] {
  const given = args.slice(0, count);
  if (given.length < count || given.some((a) => !a)) throw new CliError(`usage: npm run rein -- mcp ${usage}`);
  return given;
}

function printServer(s: ServerView) {
  const info = s.info
    ? `${s.info.name} ${s.info.version}${s.info.protocolVersion ? `, protocol ${s.info.protocolVersion}` : ""}`
    : "not seen yet";
  console.log(`${s.name} (${s.transport}${s.enabled ? "" : ", turned off"}): ${s.health}${s.reason ? ` — ${s.reason}` : ""}`);
  console.log(
    `  ${info}; ${s.enabledCount} of ${s.toolCount} tools on (${s.enabledTokens} tokens)${s.changedCount ? `; ${s.changedCount} changed, waiting for review` : ""}`,
  );
  if (s.oauth) {
    const o = s.oauth;
    const words = { authorized: "authorized", not_authorized: "not authorized yet", expired: "authorization needed again" }[o.status];
    console.log(`  OAuth: ${words}${o.authorizedBy ? ` (by ${o.authorizedBy.name})` : ""}${o.problem ? ` — ${o.problem}` : ""}`);
  }
  if (s.stderrTail) console.log(`  stderr (end):\n${s.stderrTail.replace(/^/gm, "    ")}`);
}

function printTools(tools: ToolView[]) {
  if (!tools.length) return console.log("The server lists no tools.");
  for (const t of tools) {
    console.log(
      `${t.state.padEnd(9)} ${t.exposedName.padEnd(48)} ${t.replayClass.padEnd(20)} ${String(t.tokens).padStart(6)} tokens  agents ${scope(t.allowedAgents, "all")}  teams ${scope(teamNames(t), "all")}`,
    );
  }
}

export const MCP_COMMANDS: CliCommand<McpValues>[] = [
  {
    command: "mcp",
    sub: "list",
    usage: "[--json]",
    description:
      "List the MCP servers attached (admin): health, tools on, their tokens and changed tools waiting for review; then the token budget and the agents over it.",
    async run({ api, values }) {
      const { servers, budget } = await ok(api.GET("/api/v1/mcp-servers"));
      if (values.json) return console.log(JSON.stringify({ servers, budget }));
      if (!servers.length) console.log("No MCP servers yet. Add the demo with: npm run rein -- mcp add-demo");
      for (const s of servers) printServer(s);
      console.log(
        `\nToken budget per agent: ${budget.tokens}${budget.overBudget.length ? `; over it: ${budget.overBudget.map((a) => `${a.agent} (${a.tokens})`).join(", ")}` : ""}`,
      );
    },
  },
  {
    command: "mcp",
    sub: "add",
    usage:
      'NAME (--stdio "COMMAND ARGS…" [--network] [--env NAME=secret:SECRET|NAME=text]… | --http URL [--header NAME=secret:SECRET|NAME=text]… [--oauth [--scope S] [--authorization-server URL]]) [--call-timeout S] [--json]',
    description:
      "Attach an MCP server (admin): a program run in the sandbox over stdio (node or a path under /usr; no network unless --network) or a Streamable HTTP address (--oauth: it uses OAuth; then mcp authorize). Rein starts it and lists its tools, all off.",
    async run({ api, args, values }) {
      const name = values.name ?? args[0];
      if (!name) throw new CliError("mcp add needs the server's NAME");
      const oneOf = 'mcp add needs --stdio "COMMAND ARGS…" or --http URL (one of them)';
      if (!values.stdio === !values.http) throw new CliError(oneOf);
      if (values.http && (values.env?.length || values.network))
        throw new CliError("--env and --network are for --stdio servers; an HTTP server takes --header");
      if (values.stdio && values.header?.length) throw new CliError("--header is for --http servers; a stdio server takes --env");
      if (values.stdio && (values.oauth || values.scope)) throw new CliError("--oauth and --scope are for --http servers");
      if ((values.scope || values["authorization-server"]) && !values.oauth)
        throw new CliError("--scope and --authorization-server go with --oauth");
      const timeout = values["call-timeout"] !== undefined ? Number(values["call-timeout"]) : undefined;
      let body: AddBody;
      if (values.stdio) {
        const [command, ...rest] = splitCommand(values.stdio);
        if (!command) throw new CliError("--stdio needs a command");
        body = {
          name,
          transport: "stdio",
          stdio: { command, args: rest, env: valuesFrom(values.env, "--env"), network: !!values.network },
        };
      } else if (values.http)
        body = {
          name,
          transport: "http",
          http: {
            url: values.http,
            headers: valuesFrom(values.header, "--header"),
            ...(values.oauth
              ? {
                  oauth: {
                    ...(values.scope ? { scope: values.scope } : {}),
                    ...(values["authorization-server"] ? { authorizationServer: values["authorization-server"] } : {}),
                  },
                }
              : {}),
          },
        };
      else throw new CliError(oneOf);
      if (timeout !== undefined) body.callTimeoutSec = timeout;
      const server = await ok(api.POST("/api/v1/mcp-servers", { body }));
      if (values.json) return console.log(JSON.stringify(server));
      printServer(server);
      if (server.oauth && server.oauth.status !== "authorized")
        console.log(`Authorize Rein at it with: npm run rein -- mcp authorize ${server.name}`);
      if (server.tools?.length) console.log(`Turn tools on with: npm run rein -- mcp enable ${server.name} TOOL`);
    },
  },
  {
    command: "mcp",
    sub: "add-demo",
    usage: "[--json]",
    description:
      "Attach the bundled demo server (admin): everything, the MCP project's reference server, run in the sandbox; it works offline.",
    async run({ api, values }) {
      const server = await ok(api.POST("/api/v1/mcp-servers/demo"));
      if (values.json) return console.log(JSON.stringify(server));
      printServer(server);
      console.log("Turn tools on with: npm run rein -- mcp enable everything echo (then run the demo-mcp agent)");
    },
  },
  {
    command: "mcp",
    sub: "tools",
    usage: "SERVER [--json]",
    description: "An MCP server's tools (admin): state, the name agents call it by, replay class, tokens and who gets it.",
    async run({ api, args, values }) {
      const [server] = need(args, 1, "tools SERVER");
      const { tools } = await ok(api.GET("/api/v1/mcp-servers/{name}/tools", { params: { path: { name: server } } }));
      if (values.json) return console.log(JSON.stringify(tools));
      printTools(tools);
    },
  },
  ...(["enable", "disable"] as const).map((verb): CliCommand<McpValues> => ({
    command: "mcp",
    sub: verb,
    usage: verb === "enable" ? "SERVER TOOL [--agents A,B|*] [--teams T,U|*]" : "SERVER TOOL",
    description:
      verb === "enable"
        ? "Turn an MCP tool on (admin), for every agent and team unless --agents and --teams narrow it (* for any)."
        : "Turn an MCP tool off (admin): agents no longer get it.",
    async run({ api, args, values }) {
      const [server, tool] = need(args, 2, `${verb} SERVER TOOL`);
      const patch: ToolPatch = { enabled: verb === "enable" };
      if (verb === "enable" && values.agents !== undefined) patch.allowedAgents = list(values.agents);
      if (verb === "enable" && values.teams !== undefined) patch.allowedTeams = list(values.teams);
      if (verb === "enable" && values.agents !== undefined && values.teams === undefined) patch.allowedTeams = ["*"];
      if (verb === "enable" && values.teams !== undefined && values.agents === undefined) patch.allowedAgents = ["*"];
      const t = await ok(api.PATCH("/api/v1/mcp-servers/{name}/tools/{tool}", { params: { path: { name: server, tool } }, body: patch }));
      console.log(
        `${t.exposedName} is ${t.state === "enabled" ? `on for agents ${scope(t.allowedAgents, "all")}, teams ${scope(teamNames(t), "all")}` : "off"}`,
      );
    },
  })),
  {
    command: "mcp",
    sub: "review",
    usage: "SERVER TOOL --accept|--reject",
    description:
      "Decide on a tool whose definition changed since it was approved (admin): --accept pins the new definition and turns it back on, --reject keeps it off.",
    async run({ api, args, values }) {
      const [server, tool] = need(args, 2, "review SERVER TOOL --accept|--reject");
      if (!values.accept === !values.reject) throw new CliError("mcp review needs --accept or --reject (one of them)");
      const t = await ok(
        api.POST("/api/v1/mcp-servers/{name}/tools/{tool}/review", {
          params: { path: { name: server, tool } },
          body: { accept: !!values.accept },
        }),
      );
      console.log(
        values.accept
          ? `${t.exposedName}: the new definition is pinned and the tool is on`
          : `${t.exposedName}: the change is rejected; the tool stays off`,
      );
    },
  },
  {
    command: "mcp",
    sub: "test",
    usage: "SERVER [--json]",
    description: "Restart an MCP server now and report its health (admin), with the end of its stderr when it failed.",
    async run({ api, args, values }) {
      const [server] = need(args, 1, "test SERVER");
      const s = await ok(api.POST("/api/v1/mcp-servers/{name}/test", { params: { path: { name: server } } }));
      if (values.json) return console.log(JSON.stringify(s));
      printServer(s);
      if (s.health === "failed") throw new CliError(`${s.name} did not start`);
    },
  },
  {
    command: "mcp",
    sub: "authorize",
    usage: "SERVER",
    description:
      "Start an OAuth authorization at a hosted MCP server (admin): prints the address to open in a browser where you are logged in to Rein as yourself; it comes back to Rein within 10 minutes.",
    async run({ api, args }) {
      const [server] = need(args, 1, "authorize SERVER");
      const { authorizationUrl } = await ok(api.POST("/api/v1/mcp-servers/{name}/authorization", { params: { path: { name: server } } }));
      console.log(
        `Open this address in a browser where you are logged in to Rein (as the same person), within 10 minutes:\n${authorizationUrl}`,
      );
    },
  },
  {
    command: "mcp",
    sub: "forget-authorization",
    usage: "SERVER",
    description: "Forget Rein's OAuth tokens and client registration for an MCP server (admin); it needs a new authorization.",
    async run({ api, args }) {
      const [server] = need(args, 1, "forget-authorization SERVER");
      await ok(api.DELETE("/api/v1/mcp-servers/{name}/authorization", { params: { path: { name: server } } }));
      console.log(`Rein forgot its tokens for ${server}`);
    },
  },
  {
    command: "mcp",
    sub: "remove",
    usage: "SERVER",
    description: "Remove an MCP server (admin): it stops and its tools leave every agent.",
    async run({ api, args }) {
      const [server] = need(args, 1, "remove SERVER");
      await ok(api.DELETE("/api/v1/mcp-servers/{name}", { params: { path: { name: server } } }));
      console.log(`Removed ${server}`);
    },
  },
  {
    command: "mcp",
    sub: "budget",
    usage: "TOKENS",
    description:
      "Set the token budget of the MCP tool definitions one agent gets (admin); tools beyond it are left out of a run, which says so.",
    async run({ api, args }) {
      const [tokens] = need(args, 1, "budget TOKENS");
      if (!/^\d+$/.test(tokens)) throw new CliError("mcp budget takes a whole number of tokens");
      const out = await ok(api.PUT("/api/v1/mcp-servers/token-budget", { body: { tokens: Number(tokens) } }));
      console.log(`The MCP token budget per agent is ${out.tokens}`);
    },
  },
];
