// CLI commands that steer a run over time, over REST v1 (as an operator):
// `say --run ID --text T [--interrupt]` sends the agent a message (a paused
// run resumes and an ended one continues with it), `retry --run ID` takes a
// failed run up again from its last good checkpoint (raising its step limit
// or cost ceiling first), and `rerun --run ID` starts a new run like it.
// `fork --run ID --step N` starts a new run after step N with the workspace
// as it was, and `compare --run A --with B` lines two runs up step by step.
// Each that starts work takes --wait to follow the run until it ends.
import type { RestClient } from "../lib/rest-client";
import { CliError, ok } from "./cli-error";
import type { CliCommand } from "./cli-commands";
import { followRun } from "./cli-follow";

export const STEERING_OPTIONS = {
  /** say: the message. */
  text: { type: "string" },
  /** say: stop the tool call in flight so the agent reads the message now. */
  interrupt: { type: "boolean" },
  /** retry, rerun: the step limit (model calls). */
  "max-steps": { type: "string" },
  /** retry, rerun: the cost ceiling in USD. */
  budget: { type: "string" },
  /** rerun, fork: the agent version to run. */
  "agent-version": { type: "string" },
  /** fork: the step to fork after. */
  step: { type: "string" },
  /** compare: the second run. */
  with: { type: "string" },
} as const;

type SteeringValues = {
  run?: string;
  text?: string;
  interrupt?: boolean;
  "max-steps"?: string;
  budget?: string;
  "agent-version"?: string;
  goal?: string;
  model?: string;
  wait?: boolean;
  json?: boolean;
  step?: string;
  with?: string;
};

function wholeNumber(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number of at least ${min}`);
  return n;
}

function dollars(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new CliError("--budget must be an amount in USD above 0, e.g. 5 or 0.50");
  return n;
}

function needRun(values: SteeringValues, command: string): string {
  if (!values.run) throw new CliError(`${command} needs --run ID`);
  return values.run;
}

/** The event log's end now, so --wait prints only what happens from here. */
async function cursorOf(api: RestClient, runId: string): Promise<number> {
  return (await ok(api.GET("/api/v1/runs/{id}", { params: { path: { id: runId } } }))).lastSeq;
}

export const STEERING_COMMANDS: CliCommand<SteeringValues>[] = [
  {
    command: "say",
    usage: "--run ID --text T [--interrupt] [--wait] [--json]",
    description:
      "Send a run's agent a message. It reads it before its next model call (--interrupt stops the tool call in flight first); a paused run resumes with it and an ended run continues with it, in the same workspace.",
    async run({ api, values }) {
      const id = needRun(values, "say");
      if (!values.text?.trim()) throw new CliError("say needs --text with the message");
      const after = await cursorOf(api, id);
      const sent = await ok(
        api.POST("/api/v1/runs/{id}/messages", {
          params: { path: { id } },
          body: { text: values.text, ...(values.interrupt ? { interrupt: true } : {}) },
        }),
      );
      if (!values.wait) {
        if (values.json) return console.log(JSON.stringify(sent));
        return console.log(
          sent.delivery === "continued"
            ? `Message sent; the ${sent.from} run continues with it`
            : `Message sent; the agent reads it before its next model call${sent.interrupted ? " (the tool call in flight was stopped)" : ""}`,
        );
      }
      await followRun(api, id, { after, json: values.json });
    },
  },
  {
    command: "retry",
    usage: "--run ID [--max-steps N] [--budget USD] [--model PROVIDER/MODEL_ID] [--wait] [--json]",
    description:
      "Retry a failed or canceled run from its last good checkpoint, after raising its step limit or cost ceiling or choosing another model.",
    async run({ api, values }) {
      const id = needRun(values, "retry");
      const after = await cursorOf(api, id);
      const run = await ok(
        api.POST("/api/v1/runs/{id}/retry", {
          params: { path: { id } },
          body: { maxSteps: wholeNumber("--max-steps", values["max-steps"], 1), budgetUsd: dollars(values.budget), model: values.model },
        }),
      );
      if (!values.wait) return console.log(values.json ? JSON.stringify(run) : `Run ${run.id} queued again`);
      await followRun(api, id, { after, json: values.json });
    },
  },
  {
    command: "rerun",
    usage: "--run ID [--goal G] [--model PROVIDER/MODEL_ID] [--agent-version N] [--max-steps N] [--budget USD] [--wait] [--json]",
    description:
      "Start a new run with this run's goal, agent version and model (each may be changed); the new run names the old one as its parent.",
    async run({ api, values }) {
      const id = needRun(values, "rerun");
      const run = await ok(
        api.POST("/api/v1/runs/{id}/rerun", {
          params: { path: { id } },
          body: {
            goal: values.goal,
            model: values.model,
            agentVersion:
              values["agent-version"] === undefined ? undefined : wholeNumber("--agent-version", values["agent-version"], -1_000_000),
            maxSteps: wholeNumber("--max-steps", values["max-steps"], 1),
            budgetUsd: dollars(values.budget),
          },
        }),
      );
      if (!values.wait) return console.log(values.json ? JSON.stringify(run) : `Run ${run.id} queued (a re-run of ${values.run})`);
      await followRun(api, run.id, { after: 0, json: values.json });
    },
  },
  {
    command: "fork",
    usage:
      "--run ID --step N [--goal G] [--text MESSAGE] [--model PROVIDER/MODEL_ID] [--agent-version N] [--max-steps N] [--budget USD] [--wait] [--json]",
    description:
      "Fork a run after step N: a new run with the conversation, task list and workspace exactly as they were then, optionally with another goal, model or agent version, and a message (--text) the agent reads first.",
    async run({ api, values }) {
      const id = needRun(values, "fork");
      const step = wholeNumber("--step", values.step, 1);
      if (step === undefined) throw new CliError("fork needs --step N (the step to fork after)");
      const run = await ok(
        api.POST("/api/v1/runs/{id}/fork", {
          params: { path: { id } },
          body: {
            step,
            goal: values.goal,
            message: values.text,
            model: values.model,
            agentVersion:
              values["agent-version"] === undefined ? undefined : wholeNumber("--agent-version", values["agent-version"], -1_000_000),
            maxSteps: wholeNumber("--max-steps", values["max-steps"], 1),
            budgetUsd: dollars(values.budget),
          },
        }),
      );
      if (!values.wait)
        return console.log(values.json ? JSON.stringify(run) : `Run ${run.id} queued (a fork of ${values.run} after step ${step})`);
      await followRun(api, run.id, { after: 0, json: values.json });
    },
  },
  {
    command: "compare",
    usage: "--run A --with B [--json]",
    description:
      "Compare two runs step by step (a fork's early steps are its parent's): where they part, and each one's outcome, steps, tokens, cost and duration.",
    async run({ api, values }) {
      if (!values.run || !values.with) throw new CliError("compare needs --run A and --with B");
      const result = await ok(api.GET("/api/v1/runs/compare", { params: { query: { a: values.run, b: values.with } } }));
      if (values.json) return console.log(JSON.stringify(result));
      for (const side of ["a", "b"] as const) {
        const r = result[side];
        console.log(
          `${side.toUpperCase()}  ${r.id}  ${r.status}  ${r.steps} steps  ${r.inputTokens}/${r.outputTokens} tokens  $${Number(r.costUsd).toFixed(4)}  ${r.agentName} v${r.agentVersion}  ${r.model}`,
        );
      }
      console.log(result.firstDivergence === null ? "The runs take the same steps." : `They part at step ${result.firstDivergence}.`);
      const said = (s: { text: string; toolCalls: Array<{ tool: string; ok: boolean | null }> } | null) =>
        s
          ? `${s.text.replace(/\s+/g, " ").slice(0, 50)}${s.toolCalls.length ? ` [${s.toolCalls.map((c) => `${c.tool}${c.ok === false ? " ✗" : ""}`).join(", ")}]` : ""}`
          : "—";
      for (const row of result.rows)
        console.log(`${String(row.step).padStart(4)} ${row.same ? "=" : "≠"}  ${said(row.a).padEnd(70)}  ${said(row.b)}`);
    },
  },
];
