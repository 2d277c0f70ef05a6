// Rein's CLI: `npm run rein -- <command>`.
//   token create --email E --name N [--days D]   prints a new API token (local database)
//   run --goal G [--agent A] [--scenario FILE] [--wait] [--json]   launches a run over REST v1
//   events --run ID [--after N]                  prints a run's events
//   agents                                       lists agent specs
//   requests [--state S] [--run ID]              lists human requests (default: open ones)
//   decide --request ID --decision D [...]       decides a human request
//   provider add|list|test|remove, model add|list|remove   model configuration (admins; scripts/cli-models.ts)
//   secret set|list|delete                       secrets for tools (admins; scripts/cli-secrets.ts)
// The API commands read REIN_URL (default http://localhost:3000) and REIN_TOKEN (or --token).
import fs from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "@/server/config";
import { openDb } from "@/server/db";
import { createApiToken } from "@/server/identity";
import { CliError } from "./cli-error";
import { MODEL_OPTIONS, MODEL_USAGE, modelCommand } from "./cli-models";
import { SECRET_OPTIONS, SECRET_USAGE, secretCommand } from "./cli-secrets";

const USAGE = `Usage: npm run rein -- <command> [options]

Commands:
  token create --email E --name N [--days D]     create an API token for a user (prints it once)
  run --goal G [--agent A] [--model PROVIDER/MODEL_ID|auto] [--complexity 0..1]
      [--scenario FILE] [--secret NAME]... [--wait] [--json]
                                                 launch a run (default agent: demo-coder); --secret: a secret
                                                 its tools may use, as $NAME (repeat for more)
  events --run ID [--after N]                    print a run's events
  agents                                         list the agent specs
  requests [--state PENDING,ESCALATED] [--run ID]
                                                 list human requests (default: the open ones)
  decide --request ID --decision approve|reject|veto|choose|provide
         [--option ID] [--value JSON] [--comment C] [--args JSON]
                                                 decide a human request (--args: edited arguments)
${MODEL_USAGE}
${SECRET_USAGE}

Environment: REIN_URL (default http://localhost:3000), REIN_TOKEN (or --token T),
REIN_DATA_DIR for token create.`;


async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      days: { type: "string" },
      goal: { type: "string" },
      agent: { type: "string" },
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
      ...MODEL_OPTIONS,
      ...SECRET_OPTIONS,
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, sub] = positionals;
  if (values.help || !command) return console.log(USAGE);

  if (command === "token" && sub === "create") {
    if (!values.email || !values.name) throw new CliError("token create needs --email and --name");
    const config = loadConfig();
    const db = await openDb(config.databaseUrl);
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
    return;
  }

  const api = apiClient(values.url ?? process.env.REIN_URL ?? "http://localhost:3000", values.token ?? process.env.REIN_TOKEN);
  if (command === "agents") {
    const { agents } = await api("GET", "/api/v1/agents");
    for (const a of agents) console.log(`${a.name.padEnd(20)} v${a.version}  ${a.model.padEnd(24)} ${a.description}`);
    return;
  }
  if (command === "run") {
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
    const run = await api("POST", "/api/v1/runs", { goal: values.goal, agent: values.agent ?? "demo-coder", scenario, model: values.model, complexity, secrets: values.secret });
    if (!values.wait) return console.log(values.json ? JSON.stringify(run) : `Run ${run.id} queued`);
    let after = 0;
    let status = run.status;
    while (!["succeeded", "failed", "canceled"].includes(status)) {
      const { events, cursor } = await api("GET", `/api/v1/runs/${run.id}/events?after=${after}`);
      after = cursor;
      if (!values.json) events.forEach(printEvent);
      status = (await api("GET", `/api/v1/runs/${run.id}`)).status;
      if (events.length === 0) await new Promise((r) => setTimeout(r, 300));
    }
    const { events } = await api("GET", `/api/v1/runs/${run.id}/events?after=${after}`);
    if (!values.json) events.forEach(printEvent);
    const final = await api("GET", `/api/v1/runs/${run.id}`);
    if (values.json) console.log(JSON.stringify(final));
    else console.log(`Run ${run.id} ${final.status}${final.errorMessage ? `: ${final.errorMessage}` : ""}`);
    process.exitCode = final.status === "succeeded" ? 0 : 1;
    return;
  }
  if (command === "events") {
    if (!values.run) throw new CliError("events needs --run");
    const { events } = await api("GET", `/api/v1/runs/${values.run}/events?after=${values.after ?? 0}`);
    events.forEach(printEvent);
    return;
  }
  if (command === "provider" || command === "model") return modelCommand(api, command, sub, values);
  if (command === "secret") return secretCommand(api, sub, positionals[2] ?? values.name, values);
  if (command === "requests") {
    const query = new URLSearchParams({ state: values.state ?? "PENDING,ESCALATED", ...(values.run ? { runId: values.run } : {}) });
    const { items } = await api("GET", `/api/v1/human-requests?${query}`);
    if (values.json) return console.log(JSON.stringify(items));
    if (items.length === 0) return console.log("No human requests match.");
    for (const r of items) {
      console.log(`${r.id}  ${r.kind.padEnd(7)} ${r.state.padEnd(9)} needs ${r.requiredRole.padEnd(8)} expires ${r.expiresAt}  ${r.title}`);
    }
    return;
  }
  if (command === "decide") {
    if (!values.request || !values.decision) throw new CliError("decide needs --request and --decision");
    const body: Record<string, unknown> = { decision: values.decision };
    if (values.option) body.optionId = values.option;
    if (values.comment) body.comment = values.comment;
    if (values.value !== undefined) body.value = parseJsonOption("--value", values.value);
    if (values.args !== undefined) body.editedArguments = parseJsonOption("--args", values.args);
    const decided = await api("POST", `/api/v1/human-requests/${encodeURIComponent(values.request)}/decision`, body);
    console.log(values.json ? JSON.stringify(decided) : `Request ${decided.id} ${decided.state}`);
    return;
  }
  throw new CliError(`Unknown command "${positionals.join(" ")}"\n\n${USAGE}`);
}

function parseJsonOption(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${name} must be JSON, e.g. ${name} '{"capPercent": 10}'`);
  }
}

function apiClient(base: string, token: string | undefined) {
  if (!token) throw new CliError("Set REIN_TOKEN (or pass --token); create one with: npm run rein -- token create --email E --name N");
  return async (method: string, path: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${token}`, "x-rein-channel": "cli", ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw new CliError(`Cannot reach Rein at ${base}: ${(err as Error).message}`);
    }
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new CliError(`${res.status} ${data?.error?.code ?? ""}: ${data?.error?.message ?? res.statusText}`);
    return data;
  };
}

function printEvent(e: { seq: number; type: string; payload: any }) {
  const p = e.payload;
  const line =
    e.type === "model.turn" ? `${p.agent}: ${p.text || "(no text)"}${p.toolCalls.length ? ` [${p.toolCalls.map((c: any) => c.tool).join(", ")}]` : ""}`
    : e.type === "tool.call" ? `→ ${p.tool} ${JSON.stringify(p.args).slice(0, 120)}`
    : e.type === "tool.result" ? `← ${p.tool} ${p.ok ? "ok" : `error ${p.error.code}: ${p.error.message}`}${p.cached ? " (cached)" : ""}`
    : e.type === "run.state" ? `state ${p.from ?? "-"} → ${p.to}${p.reason ? ` (${p.reason})` : ""}`
    : e.type === "handoff" ? `handoff ${p.from} → ${p.to}: ${p.reason}`
    : e.type === "human.requested" ? `waiting for a person (${p.kind}, needs ${p.requiredRole}): ${p.title} [request ${p.requestId}]`
    : e.type === "human.decided" ? `${p.byName} → ${p.state}${p.comment ? `: ${p.comment}` : ""} (via ${p.channel})`
    : `${e.type} ${JSON.stringify(p).slice(0, 120)}`;
  console.log(`${String(e.seq).padStart(4)}  ${line}`);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof CliError ? `rein: ${err.message}` : err);
  process.exit(1);
});
