// Rein's CLI: `npm run rein -- <command>`.
//   token create --email E --name N [--days D]   prints a new API token (local database)
//   run --goal G [--agent A] [--scenario FILE] [--wait] [--json]   launches a run over REST v1
//   events --run ID [--after N]                  prints a run's events
//   agents                                       lists agent specs
// The API commands read REIN_URL (default http://localhost:3000) and REIN_TOKEN (or --token).
import fs from "node:fs";
import { parseArgs } from "node:util";
import { loadConfig } from "@/server/config";
import { openDb } from "@/server/db";
import { createApiToken } from "@/server/identity";

const USAGE = `Usage: npm run rein -- <command> [options]

Commands:
  token create --email E --name N [--days D]     create an API token for a user (prints it once)
  run --goal G [--agent A] [--scenario FILE] [--wait] [--json]
                                                 launch a run (default agent: demo-coder)
  events --run ID [--after N]                    print a run's events
  agents                                         list the agent specs

Environment: REIN_URL (default http://localhost:3000), REIN_TOKEN (or --token T),
REIN_DATA_DIR for token create.`;

class CliError extends Error {}

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
      token: { type: "string" },
      url: { type: "string" },
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
    const run = await api("POST", "/api/v1/runs", { goal: values.goal, agent: values.agent ?? "demo-coder", scenario });
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
  throw new CliError(`Unknown command "${positionals.join(" ")}"\n\n${USAGE}`);
}

function apiClient(base: string, token: string | undefined) {
  if (!token) throw new CliError("Set REIN_TOKEN (or pass --token); create one with: npm run rein -- token create --email E --name N");
  return async (method: string, path: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
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
    : `${e.type} ${JSON.stringify(p).slice(0, 120)}`;
  console.log(`${String(e.seq).padStart(4)}  ${line}`);
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof CliError ? `rein: ${err.message}` : err);
  process.exit(1);
});
