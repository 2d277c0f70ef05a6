// Recorded-run builders for the miner's tests and benchmark: each method
// appends events shaped as the kernel (server/kernel/loop.ts), the HITL
// broker and gate (server/hitl) and run takeovers (server/realtime) write them.
import type { RunEventRecord, RunEventPayloads, RunEventType } from "@/server/kernel";

const T0 = Date.parse("2026-03-02T09:00:00Z");

export class RunLog {
  readonly events: RunEventRecord[] = [];
  private seq = 0;
  private step = 0;
  private calls = 0;
  private requests = 0;

  constructor(
    readonly runId: string,
    readonly agent = "coder",
  ) {
    this.push("run.created", {
      goal: "Fix the failing report",
      agent,
      agentVersion: 3,
      model: "anthropic/claude-x",
      modelLabel: "Claude X",
      scripted: false,
      scenarioGiven: false,
    });
    this.state(null, "queued");
    this.state("queued", "running");
  }

  push<T extends RunEventType>(type: T, payload: RunEventPayloads[T], actor: string | null = `agent:${this.agent}`): RunEventRecord {
    const e: RunEventRecord = { runId: this.runId, seq: ++this.seq, type, actor, payload, createdAt: new Date(T0 + this.seq * 250) };
    this.events.push(e);
    return e;
  }

  state(
    from: RunEventPayloads["run.state"]["from"],
    to: RunEventPayloads["run.state"]["to"],
    extra: { reason?: string; error?: { code: string; message: string } } = {},
  ): this {
    this.push("run.state", { from, to, ...extra }, null);
    return this;
  }

  /** A model turn that calls one tool, and the tool.call; returns the call's id. */
  call(tool: string, args: unknown): string {
    this.step++;
    const toolCallId = `call_${this.runId}_${++this.calls}`;
    this.push("model.turn", {
      step: this.step,
      agent: this.agent,
      model: "anthropic/claude-x",
      modelLabel: "Claude X",
      scripted: false,
      text: "",
      toolCalls: [{ toolCallId, tool, args }],
      finishReason: "tool-calls",
      usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 900 },
      durationMs: 850,
    });
    this.push("tool.call", { step: this.step, agent: this.agent, toolCallId, tool, args });
    return toolCallId;
  }

  result(
    toolCallId: string,
    tool: string,
    outcome: { ok: true; output: unknown } | { ok: false; error: { code: string; message: string } },
    gate?: RunEventPayloads["tool.result"]["gate"],
  ): this {
    this.push("tool.result", {
      step: this.step,
      toolCallId,
      tool,
      ok: outcome.ok,
      ...(outcome.ok ? { output: outcome.output } : { error: outcome.error }),
      cached: false,
      replayClass: tool === "shell" ? "unsafe_on_replay" : "pure",
      durationMs: 42,
      ...(gate ? { gate } : {}),
    });
    return this;
  }

  /** A shell command that ran; the shell tool's output is `{ exitCode, output }`. */
  shell(command: string, exitCode: number, output: string): this {
    return this.result(this.call("shell", { command }), "shell", { ok: true, output: { exitCode, output } });
  }

  fail(tool: string, args: unknown, code: string, message: string): this {
    return this.result(this.call(tool, args), tool, { ok: false, error: { code, message } });
  }

  ok(tool: string, args: unknown, output: unknown = { ok: true }): this {
    return this.result(this.call(tool, args), tool, { ok: true, output });
  }

  /** The gate asked a person about the call: the run waits. `slot` only when the payload carries it. */
  requested(toolCallId: string, tool: string, kind: string, title: string, slot?: string): string {
    const requestId = `req_${this.runId}_${++this.requests}`;
    this.push("human.requested", {
      requestId,
      kind,
      title,
      requiredRole: "approver",
      expiresAt: "2026-03-02T10:00:00.000Z",
      tool,
      toolCallId,
      ...(slot ? { slot } : {}),
    });
    this.state("running", "waiting_human", { reason: `Waiting for a person: ${title}` });
    return requestId;
  }

  /** A person answered (the broker's human.decided), and the run is queued again. */
  decided(
    requestId: string,
    kind: string,
    state: string,
    extra: { decision?: string; comment?: string; optionId?: string; edited?: boolean } = {},
  ): this {
    this.push("human.decided", { requestId, kind, state, by: "user_ann", byName: "Ann Approver", channel: "inbox", ...extra }, "user_ann");
    this.state("waiting_human", "queued", { reason: "A person answered" });
    this.state("queued", "running");
    return this;
  }

  takeover(what: "terminal" | "desktop", reason?: string): this {
    const type = what === "terminal" ? "terminal.control" : "desktop.control";
    this.push(type, { action: "takeover", by: "user_ann", byName: "Ann Approver", ...(reason ? { reason } : {}) }, "user_ann");
    this.push(type, { action: "handback", by: "user_ann", byName: "Ann Approver" }, "user_ann");
    return this;
  }

  succeed(): RunEventRecord[] {
    this.step++;
    this.push("model.turn", {
      step: this.step,
      agent: this.agent,
      model: "anthropic/claude-x",
      modelLabel: "Claude X",
      scripted: false,
      text: "Done.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1500, outputTokens: 20, cachedInputTokens: 1200 },
      durationMs: 400,
    });
    this.state("running", "succeeded", { reason: "The agent finished" });
    return this.events;
  }

  failWith(code: string, message: string): RunEventRecord[] {
    this.state("running", "failed", { reason: message, error: { code, message } });
    return this.events;
  }

  cancel(reason: string): RunEventRecord[] {
    this.state("running", "canceled", { reason });
    return this.events;
  }
}

/** The gate's policy note on a call that a rule sent to a person (server/policy/matchers.ts writes the reason). */
export function askedBy(rule: number, name: string | null, level = "team"): RunEventPayloads["tool.result"]["gate"] {
  const label = `rule ${rule + 1}${name ? ` ${JSON.stringify(name)}` : ""} (${level} level)`;
  return {
    policy: { effect: "ask", level, rule, reason: `${label} asks a person to approve`, version: 7 },
    requestId: "set-by-test",
    decidedBy: "user_ann",
  };
}

/** The gate's note on a call the policy allowed. */
export const ALLOWED: RunEventPayloads["tool.result"]["gate"] = {
  policy: { effect: "allow", level: "org", rule: 0, reason: 'rule 1 "tiers" (org level) allows', version: 7 },
};
