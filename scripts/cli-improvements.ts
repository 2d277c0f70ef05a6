// CLI commands for self-improvement over REST v1 (docs/improvements.md#rest-and-cli):
// `improvements` lists them (--state, --kind, --agent), `improvements show ID`
// prints one with its trigger cases and origin friction, `improvements
// disable|enable|promote ID` acts on one; `friction` lists what Rein saw
// runs struggle with.
import { CliError, ok } from "./cli-error";
import { given, type Query } from "./cli-input";
import type { CliCommand } from "./cli-commands";

type ImprovementValues = { json?: boolean; state?: string; kind?: string; agent?: string; comment?: string };

const ACTIONS = ["disable", "enable", "promote"] as const;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const trust = (i: { trust: number; uses: number }) => (i.uses > 0 ? i.trust.toFixed(2) : "—");
const day = (d: string | null) => (d ? d.slice(0, 10) : "—");

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The gate's last results (CaseRun in server/improve/runtime-tools/cases.ts), which the API declares only as JSON. */
function caseRun(json: unknown) {
  if (!isObject(json) || !Array.isArray(json.results)) return null;
  const results: unknown[] = json.results;
  return {
    summary: String(json.summary),
    results: results.filter(isObject).map((r) => ({ passed: Boolean(r.passed), name: String(r.name), message: String(r.message) })),
  };
}

function idOf(args: string[], what: string): string {
  if (!args[1]) throw new CliError(`improvements ${what} needs the improvement's ID (npm run rein -- improvements lists them)`);
  return args[1];
}

export const IMPROVEMENT_COMMANDS: CliCommand<ImprovementValues>[] = [
  {
    command: "improvements",
    usage: "[show|disable|enable|promote ID] [--state S] [--kind runtime_tool|skill] [--agent A] [--comment REASON] [--json]",
    description:
      "List the improvements Rein made (runtime tools and skills, one line per version), show one with its trigger cases and origin friction, or switch one off (operator), back on or promote it (approver).",
    async run({ api, args, values }) {
      const [verb] = args;
      if (!verb) {
        const { improvements } = await ok(
          api.GET("/api/v1/improvements", {
            params: {
              query: {
                ...(values.state ? { state: given<Query<"/api/v1/improvements", "get">["state"]>(values.state) } : {}),
                ...(values.kind ? { kind: given<Query<"/api/v1/improvements", "get">["kind"]>(values.kind) } : {}),
                ...(values.agent ? { agent: values.agent } : {}),
                limit: 200,
              },
            },
          }),
        );
        if (values.json) return console.log(JSON.stringify(improvements));
        if (!improvements.length) return console.log("No improvements yet. Run the built-in agent demo-csv twice to see one made.");
        for (const i of improvements) {
          const name = `${i.name} v${i.version}`;
          console.log(
            `${i.id}  ${name.padEnd(28)} ${i.state.padEnd(10)} tier ${i.tier}  trust ${trust(i).padEnd(4)} ${plural(i.uses, "use").padEnd(8)} expires ${i.promoted ? "never (promoted)" : day(i.expiresAt)}`,
          );
        }
        return;
      }
      if (verb === "show") {
        const i = await ok(api.GET("/api/v1/improvements/{id}", { params: { path: { id: idOf(args, "show") } } }));
        if (values.json) return console.log(JSON.stringify(i));
        console.log(`${i.name} v${i.version} (${i.kind}, tier ${i.tier}): ${i.state}${i.stateReason ? ` — ${i.stateReason}` : ""}`);
        if (i.description) console.log(i.description);
        console.log(
          `trust ${trust({ trust: i.trust, uses: i.useCount })} · ${plural(i.useCount, "use")} · cost $${i.costUsd.toFixed(4)} · agents ${i.scopeAgents.join(", ") || "every agent"} · expires ${i.promoted ? "never (promoted)" : day(i.expiresAt)}`,
        );
        const cases = caseRun(i.caseResults);
        if (cases) {
          console.log(`\ntrigger cases: ${cases.summary}`);
          for (const r of cases.results) console.log(`  ${r.passed ? "pass" : "FAIL"}  ${r.name}: ${r.message}`);
        }
        if (i.friction)
          console.log(
            `\norigin friction: ${i.friction.title} (${i.friction.kind}, ${plural(i.friction.occurrences, "occurrence")} in ${plural(i.friction.runCount, "run")})`,
          );
        if (i.cycle)
          console.log(
            `hack cycle: ${i.cycle.state} after ${plural(i.cycle.attempts, "attempt")}${i.cycle.reason ? ` — ${i.cycle.reason}` : ""}${i.cycle.improverRunId ? ` (improver run ${i.cycle.improverRunId})` : ""}`,
          );
        if (i.uses.length)
          console.log(`\nrecent uses:\n${i.uses.map((u) => `  run ${u.runId}  ${u.ok ? "ok" : "error"}  ${u.durationMs} ms`).join("\n")}`);
        console.log(`\n${i.kind === "skill" ? "SKILL.md" : "source"}:\n${i.source}`);
        return;
      }
      const action = ACTIONS.find((a) => a === verb);
      if (action) {
        const i = await ok(
          api.POST(`/api/v1/improvements/{id}/${action}`, {
            params: { path: { id: idOf(args, action) } },
            body: values.comment ? { reason: values.comment } : {},
          }),
        );
        if (values.json) return console.log(JSON.stringify(i));
        return console.log(`${i.name} v${i.version}: ${i.state}${i.promoted ? " (promoted: it no longer expires)" : ""}`);
      }
      throw new CliError(`improvements takes show, disable, enable or promote, not "${verb}"`);
    },
  },
  {
    command: "friction",
    usage: "[--agent A] [--kind K] [--json]",
    description:
      "List the friction Rein recorded from runs (a tool failing the same way again and again, unknown tools, loops a person stopped), most recent first.",
    async run({ api, values }) {
      const query = { ...(values.agent ? { agent: values.agent } : {}), ...(values.kind ? { kind: values.kind } : {}), limit: 100 };
      const { friction } = await ok(api.GET("/api/v1/friction", { params: { query } }));
      if (values.json) return console.log(JSON.stringify(friction));
      if (!friction.length) return console.log("No friction recorded.");
      for (const f of friction)
        console.log(
          `${f.id}  ${f.kind.padEnd(17)} ${(f.agentName ?? "").padEnd(14)} ${plural(f.occurrences, "time").padEnd(9)} in ${plural(f.runCount, "run").padEnd(7)} ${f.title}`,
        );
    },
  },
];
