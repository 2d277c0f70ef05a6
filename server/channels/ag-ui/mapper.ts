// A run's stored events as AG-UI 1.0 events (docs/ag-ui.md#event-mapping).
// Pure: it holds only what the mapping needs to remember between events (the
// text message streaming now, the task list last sent, the open human
// requests, the run's state), so a replay of the log maps exactly as a live
// tail does.
import { EventType, PROTOCOL_VERSION, type BaseEvent, type Interrupt } from "@ag-ui/core";
import { isTerminal, type RunEventRecord, type RunEventPayloads, type RunState, type TransientRunMessage } from "@/server/kernel";
import { taskListDelta, type AgUiState } from "./state";

/** The largest tool result a TOOL_CALL_RESULT carries, in characters; a longer one is cut and says so. */
export const MAX_RESULT_CHARS = 64_000;

/** A human request the run waits on, as the mapper keeps it until it is decided (what human.requested says of it). */
export type OpenRequest = Omit<RunEventPayloads["human.requested"], "slot">;

export interface MapperOptions {
  /** The Rein run: the AG-UI thread. */
  runId: string;
  /** Rein's origin, for the links in custom events and interrupts. */
  linkBase: string;
  /** The AG-UI run id of the first RUN_STARTED (the client's, for a POST). */
  firstRunId: string;
}

type Payload<T extends keyof RunEventPayloads> = RunEventPayloads[T];

/** The answer an approval takes, as a JSON Schema a client can build a form from. */
const DECISION_SCHEMA = {
  type: "object",
  properties: {
    decision: { type: "string", enum: ["approve", "reject", "veto", "choose", "provide"] },
    comment: { type: "string", maxLength: 4000 },
    optionId: { type: "string" },
    value: {},
    editedArguments: { type: "object" },
  },
  required: ["decision"],
};

export class AgUiMapper {
  private state: RunState | null = null;
  private readonly open = new Map<string, OpenRequest>();
  private text: { messageId: string; step: number } | null = null;
  private tasks: AgUiState | null = null;
  /** Between a RUN_STARTED and its RUN_FINISHED or RUN_ERROR. */
  private running = false;
  private started = 0;
  private agUiRunId = "";
  private lastSeq = 0;
  /** The Rein run ended: nothing follows. */
  ended = false;

  constructor(private readonly o: MapperOptions) {}

  /**
   * An event before the stream's cursor: only remembered (the run's state and
   * its open requests), so a stream that starts mid-run knows what it waits on.
   */
  recall(e: RunEventRecord): void {
    this.lastSeq = e.seq;
    if (e.type === "run.state") this.state = (e.payload as Payload<"run.state">).to;
    else if (e.type === "human.requested") this.remember(e.payload as Payload<"human.requested">);
    else if (e.type === "human.decided") this.open.delete((e.payload as Payload<"human.decided">).requestId);
  }

  /**
   * Opens the first AG-UI run. The client's RunAgentInput is not echoed: what a
   * person typed reaches a stream only as the run stored it, redacted.
   */
  start(): BaseEvent[] {
    return this.openRun();
  }

  /** One stored event (already redacted, as REST shows it). */
  stored(e: RunEventRecord): BaseEvent[] {
    if (this.ended) return [];
    this.lastSeq = e.seq;
    const out = this.running ? [] : this.openRun();
    out.push(...this.map(e));
    return out;
  }

  /** A live-only message: the model's text as it streams. */
  transient(m: TransientRunMessage): BaseEvent[] {
    if (this.ended || m.type !== "model.delta" || !m.delta) return [];
    const out = this.running ? [] : this.openRun();
    if (this.text && this.text.step !== m.step) out.push(...this.closeText());
    if (!this.text) {
      this.text = { messageId: `${this.o.runId}:step-${m.step}:after-${this.lastSeq}`, step: m.step };
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.text.messageId, role: "assistant" } as BaseEvent);
    }
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.text.messageId, delta: m.delta } as BaseEvent);
    return out;
  }

  /**
   * Called where the stream has caught up with the log: a run waiting on a
   * person ends its AG-UI run with those requests as interrupts
   * (docs/ag-ui.md#interrupts). Empty otherwise.
   */
  settle(): BaseEvent[] {
    if (this.ended || !this.running || this.state !== "waiting_human" || this.open.size === 0) return [];
    const interrupts = [...this.open.values()].map((r) => this.interrupt(r));
    this.running = false;
    return [...this.closeText(), { type: EventType.RUN_FINISHED, ...this.ids(), outcome: { type: "interrupt", interrupts } } as BaseEvent];
  }

  /** Whether the AG-UI run is closed (finished, errored or interrupted). */
  get finished(): boolean {
    return !this.running;
  }

  private ids() {
    return { threadId: this.o.runId, runId: this.agUiRunId };
  }

  private openRun(): BaseEvent[] {
    this.running = true;
    this.started++;
    // Later AG-UI runs of the same stream (after an interrupt was answered elsewhere) are named by where they start.
    this.agUiRunId = this.started === 1 ? this.o.firstRunId : `${this.o.runId}:from-${this.lastSeq}`;
    return [{ type: EventType.RUN_STARTED, ...this.ids(), protocolVersion: PROTOCOL_VERSION } as BaseEvent];
  }

  private closeText(): BaseEvent[] {
    if (!this.text) return [];
    const { messageId } = this.text;
    this.text = null;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent];
  }

  private link(tab?: string) {
    return `${this.o.linkBase}/runs/${encodeURIComponent(this.o.runId)}${tab ? `?tab=${tab}` : ""}`;
  }

  private interrupt(r: OpenRequest): Interrupt {
    return {
      id: r.requestId,
      reason: r.kind,
      message: r.title,
      ...(r.toolCallId ? { toolCallId: r.toolCallId } : {}),
      responseSchema: DECISION_SCHEMA,
      expiresAt: r.expiresAt,
      metadata: {
        rein: {
          kind: r.kind,
          requiredRole: r.requiredRole,
          tool: r.tool,
          url: `${this.o.linkBase}/inbox?id=${encodeURIComponent(r.requestId)}`,
        },
      },
    };
  }

  private remember(p: Payload<"human.requested">) {
    this.open.set(p.requestId, {
      requestId: p.requestId,
      kind: p.kind,
      title: p.title,
      requiredRole: p.requiredRole,
      expiresAt: p.expiresAt,
      tool: p.tool,
      toolCallId: p.toolCallId,
    });
  }

  private custom(name: string, value: unknown): BaseEvent {
    return { type: EventType.CUSTOM, name, value } as BaseEvent;
  }

  private map(e: RunEventRecord): BaseEvent[] {
    switch (e.type) {
      case "model.turn":
        return this.turn(e.seq, e.payload as Payload<"model.turn">);
      case "tool.call":
        // The turn's TOOL_CALL_START/ARGS/END already carried it.
        return [];
      case "tool.result":
        return this.toolResult(e.seq, e.payload as Payload<"tool.result">);
      case "user.message":
        return this.userMessage(e.seq, (e.payload as Payload<"user.message">).text);
      case "tasks.updated":
        return this.taskList(e.payload as Payload<"tasks.updated">);
      case "human.requested": {
        const p = e.payload as Payload<"human.requested">;
        this.remember(p);
        return [this.custom("rein.human.requested", p)];
      }
      case "human.escalated": {
        const p = e.payload as Payload<"human.escalated">;
        const r = this.open.get(p.requestId);
        if (r) r.expiresAt = p.expiresAt;
        return [this.custom("rein.human.escalated", p)];
      }
      case "human.decided": {
        const p = e.payload as Payload<"human.decided">;
        this.open.delete(p.requestId);
        return [this.custom("rein.human.decided", p)];
      }
      case "terminal.attached": {
        const p = e.payload as Payload<"terminal.attached">;
        return [this.custom("rein.terminal", { podId: p.podId, sandbox: p.sandbox, url: this.link("terminal") })];
      }
      case "tier.changed":
      case "tier.restored": {
        const p = e.payload as Payload<"tier.changed"> | Payload<"tier.restored">;
        const out = [this.custom(`rein.${e.type}`, p)];
        if (p.desktopId) out.push(this.custom("rein.desktop", { desktopId: p.desktopId, url: this.link("desktop") }));
        return out;
      }
      case "run.state":
        return this.runState(e.payload as Payload<"run.state">);
      default:
        return [this.custom(`rein.${e.type}`, e.payload)];
    }
  }

  private turn(seq: number, p: Payload<"model.turn">): BaseEvent[] {
    const out: BaseEvent[] = [];
    let messageId: string;
    if (this.text && this.text.step === p.step) {
      messageId = this.text.messageId;
      out.push(...this.closeText());
    } else {
      out.push(...this.closeText());
      messageId = `${this.o.runId}:${seq}`;
      if (p.text) {
        out.push(
          { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" } as BaseEvent,
          { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: p.text } as BaseEvent,
          { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent,
        );
      }
    }
    for (const call of p.toolCalls) {
      out.push(
        { type: EventType.TOOL_CALL_START, toolCallId: call.toolCallId, toolCallName: call.tool, parentMessageId: messageId } as BaseEvent,
        { type: EventType.TOOL_CALL_ARGS, toolCallId: call.toolCallId, delta: JSON.stringify(call.args ?? {}) } as BaseEvent,
        { type: EventType.TOOL_CALL_END, toolCallId: call.toolCallId } as BaseEvent,
      );
    }
    return out;
  }

  private toolResult(seq: number, p: Payload<"tool.result">): BaseEvent[] {
    let content = JSON.stringify(p.ok ? (p.output ?? null) : { error: p.error ?? { code: "FAILED", message: "The tool call failed" } });
    if (content.length > MAX_RESULT_CHARS) content = `${content.slice(0, MAX_RESULT_CHARS)}… (cut at ${MAX_RESULT_CHARS} characters)`;
    return [
      ...this.closeText(),
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${this.o.runId}:${seq}`,
        toolCallId: p.toolCallId,
        content,
        role: "tool",
      } as BaseEvent,
    ];
  }

  private userMessage(seq: number, text: string): BaseEvent[] {
    const messageId = `${this.o.runId}:${seq}`;
    return [
      ...this.closeText(),
      { type: EventType.TEXT_MESSAGE_START, messageId, role: "user" } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text } as BaseEvent,
      { type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent,
    ];
  }

  private taskList(p: Payload<"tasks.updated">): BaseEvent[] {
    const next: AgUiState = { tasks: p.tasks, notes: p.notes ?? "" };
    const before = this.tasks;
    this.tasks = next;
    if (!before) return [{ type: EventType.STATE_SNAPSHOT, snapshot: next } as BaseEvent];
    const delta = taskListDelta(before, next);
    return delta.length ? [{ type: EventType.STATE_DELTA, delta } as BaseEvent] : [];
  }

  private runState(p: Payload<"run.state">): BaseEvent[] {
    this.state = p.to;
    const out: BaseEvent[] = [this.custom("rein.run.state", p)];
    if (!isTerminal(p.to)) return out;
    this.ended = true;
    this.running = false;
    out.push(...this.closeText());
    if (p.to === "failed") {
      out.push({
        type: EventType.RUN_ERROR,
        message: p.error?.message ?? p.reason ?? "The run failed",
        ...(p.error?.code ? { code: p.error.code } : {}),
      } as BaseEvent);
    } else {
      const outcome = p.to === "succeeded" ? { type: "success" } : { type: "cancelled" };
      out.push({
        type: EventType.RUN_FINISHED,
        ...this.ids(),
        outcome,
        ...(p.to === "succeeded" ? { result: { state: p.to, ...(p.reason ? { reason: p.reason } : {}) } } : {}),
      } as BaseEvent);
    }
    return out;
  }
}
