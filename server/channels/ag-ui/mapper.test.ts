// The mapping of a run's stored events to AG-UI 1.0 events (docs/ag-ui.md#event-mapping),
// checked against the protocol's own schemas and its client's order rules.
import { describe, expect, it } from "vitest";
import { EventType, type BaseEvent } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import type { RunEventPayloads, RunEventRecord, RunEventType } from "@/server/kernel";
import { AgUiMapper, MAX_RESULT_CHARS } from "./mapper";

const RUN = "run-1";
let seq = 0;

function record<T extends RunEventType>(type: T, payload: RunEventPayloads[T]): RunEventRecord {
  return { runId: RUN, seq: ++seq, type, actor: null, payload, createdAt: new Date(0) };
}

function mapper() {
  seq = 0;
  return new AgUiMapper({ runId: RUN, linkBase: "http://rein.test", firstRunId: "client-run" });
}

const turn = (step: number, text: string, toolCalls: RunEventPayloads["model.turn"]["toolCalls"] = []): RunEventPayloads["model.turn"] => ({
  step,
  agent: "demo",
  model: "scripted/demo",
  modelLabel: "scripted",
  scripted: true,
  text,
  toolCalls,
  finishReason: toolCalls.length ? "tool-calls" : "stop",
  usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0 },
  durationMs: 1,
});

const requested: RunEventPayloads["human.requested"] = {
  requestId: "req-1",
  kind: "approve",
  title: "Run `./deploy.sh production`?",
  requiredRole: "approver",
  expiresAt: "2026-12-01T00:00:00.000Z",
  tool: "shell",
  toolCallId: "call-1",
};

/** Every event is valid AG-UI 1.0 as @ag-ui/core's schemas define it. */
function valid(events: BaseEvent[]): BaseEvent[] {
  for (const e of events) {
    const parsed = EventSchema.safeParse(e);
    expect(parsed.success, `${e.type}: ${parsed.error?.message}`).toBe(true);
  }
  return events;
}

const types = (events: BaseEvent[]) => events.map((e) => e.type);

describe("AgUiMapper", () => {
  it("opens with RUN_STARTED naming the thread (the run) and the client's run id", () => {
    const m = mapper();
    expect(valid(m.start())).toEqual([{ type: EventType.RUN_STARTED, threadId: RUN, runId: "client-run", protocolVersion: "1.0" }]);
  });

  it("a model turn is an assistant text message and its tool calls with their arguments; a result is TOOL_CALL_RESULT", () => {
    const m = mapper();
    m.start();
    const t = record("model.turn", turn(1, "Checking.", [{ toolCallId: "call-1", tool: "shell", args: { command: "ls" } }]));
    expect(valid(m.stored(t))).toEqual([
      { type: EventType.TEXT_MESSAGE_START, messageId: `${RUN}:1`, role: "assistant" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `${RUN}:1`, delta: "Checking." },
      { type: EventType.TEXT_MESSAGE_END, messageId: `${RUN}:1` },
      { type: EventType.TOOL_CALL_START, toolCallId: "call-1", toolCallName: "shell", parentMessageId: `${RUN}:1` },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "call-1", delta: '{"command":"ls"}' },
      { type: EventType.TOOL_CALL_END, toolCallId: "call-1" },
    ]);
    expect(m.stored(record("tool.call", { step: 1, agent: "demo", toolCallId: "call-1", tool: "shell", args: { command: "ls" } }))).toEqual(
      [],
    );
    const result = record("tool.result", {
      step: 1,
      toolCallId: "call-1",
      tool: "shell",
      ok: true,
      output: { exitCode: 0, output: "a\n" },
      cached: false,
      replayClass: null,
      durationMs: 1,
    });
    expect(valid(m.stored(result))).toEqual([
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${RUN}:3`,
        toolCallId: "call-1",
        content: '{"exitCode":0,"output":"a\\n"}',
        role: "tool",
      },
    ]);
  });

  it("a failed call's result carries its error, and a huge output is cut", () => {
    const m = mapper();
    m.start();
    const failed = m.stored(
      record("tool.result", {
        step: 1,
        toolCallId: "c",
        tool: "shell",
        ok: false,
        error: { code: "EXIT", message: "exit 1" },
        cached: false,
        replayClass: null,
        durationMs: 1,
      }),
    );
    expect(JSON.parse((failed[0] as unknown as { content: string }).content)).toEqual({ error: { code: "EXIT", message: "exit 1" } });
    const huge = m.stored(
      record("tool.result", {
        step: 1,
        toolCallId: "d",
        tool: "read_file",
        ok: true,
        output: "x".repeat(MAX_RESULT_CHARS * 2),
        cached: false,
        replayClass: null,
        durationMs: 1,
      }),
    );
    const content = (huge[0] as unknown as { content: string }).content;
    expect(content.length).toBeLessThan(MAX_RESULT_CHARS + 100);
    expect(content).toMatch(/cut at/);
  });

  it("text as it streams opens a message the turn's model.turn then ends, without sending the text twice", () => {
    const m = mapper();
    m.start();
    const live = [
      ...m.transient({ type: "model.delta", runId: RUN, step: 1, agent: "demo", delta: "Hel" }),
      ...m.transient({ type: "model.delta", runId: RUN, step: 1, agent: "demo", delta: "lo" }),
    ];
    const id = (live[0] as unknown as { messageId: string }).messageId;
    expect(valid(live)).toEqual([
      { type: EventType.TEXT_MESSAGE_START, messageId: id, role: "assistant" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: "Hel" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta: "lo" },
    ]);
    const done = m.stored(record("model.turn", turn(1, "Hello", [{ toolCallId: "c1", tool: "shell", args: {} }])));
    expect(types(done)).toEqual([EventType.TEXT_MESSAGE_END, EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END]);
    expect(done[1]).toMatchObject({ parentMessageId: id });
  });

  it("a person's message is a user text message", () => {
    const m = mapper();
    m.start();
    expect(types(valid(m.stored(record("user.message", { text: "Use staging", by: "u1", byName: "Ann" }))))).toEqual([
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
    ]);
  });

  it("the task list is a STATE_SNAPSHOT, then STATE_DELTAs; an unchanged list sends nothing", () => {
    const m = mapper();
    m.start();
    const first = m.stored(record("tasks.updated", { tasks: [{ title: "write", status: "doing" }] }));
    expect(valid(first)).toEqual([
      { type: EventType.STATE_SNAPSHOT, snapshot: { tasks: [{ title: "write", status: "doing" }], notes: "" } },
    ]);
    const second = m.stored(
      record("tasks.updated", {
        tasks: [
          { title: "write", status: "done" },
          { title: "test", status: "todo" },
        ],
        notes: "n",
      }),
    );
    expect(valid(second)).toEqual([
      {
        type: EventType.STATE_DELTA,
        delta: [
          { op: "replace", path: "/tasks/0", value: { title: "write", status: "done" } },
          { op: "add", path: "/tasks/-", value: { title: "test", status: "todo" } },
          { op: "replace", path: "/notes", value: "n" },
        ],
      },
    ]);
    expect(
      m.stored(
        record("tasks.updated", {
          tasks: [
            { title: "write", status: "done" },
            { title: "test", status: "todo" },
          ],
          notes: "n",
        }),
      ),
    ).toEqual([]);
  });

  it("terminal and desktop links are custom events", () => {
    const m = mapper();
    m.start();
    expect(m.stored(record("terminal.attached", { podId: "p1", sandbox: "bwrap", fromPool: true, startMs: 1 }))).toEqual([
      {
        type: EventType.CUSTOM,
        name: "rein.terminal",
        value: { podId: "p1", sandbox: "bwrap", url: "http://rein.test/runs/run-1?tab=terminal" },
      },
    ]);
    const moved = m.stored(
      record("tier.changed", { from: "T1", to: "T2", reason: "r", trigger: "upgrade", durationMs: 1, desktopId: "d1" }),
    );
    expect(moved.at(-1)).toEqual({
      type: EventType.CUSTOM,
      name: "rein.desktop",
      value: { desktopId: "d1", url: "http://rein.test/runs/run-1?tab=desktop" },
    });
    expect(valid(moved)).toHaveLength(2);
  });

  it("a wait for a person ends the AG-UI run with its open request as an interrupt, once the stream has caught up", () => {
    const m = mapper();
    m.start();
    m.stored(record("human.requested", requested));
    m.stored(record("run.state", { from: "running", to: "waiting_human" }));
    const [finished] = valid(m.settle());
    expect(finished).toEqual({
      type: EventType.RUN_FINISHED,
      threadId: RUN,
      runId: "client-run",
      outcome: {
        type: "interrupt",
        interrupts: [
          expect.objectContaining({
            id: "req-1",
            reason: "approve",
            message: requested.title,
            toolCallId: "call-1",
            expiresAt: requested.expiresAt,
            metadata: { rein: expect.objectContaining({ requiredRole: "approver", url: "http://rein.test/inbox?id=req-1" }) },
          }),
        ],
      },
    });
    expect(m.finished).toBe(true);
    expect(m.settle()).toEqual([]);
    // The run goes on: a new AG-UI run opens, named by where it starts.
    const next = m.stored(
      record("human.decided", { requestId: "req-1", kind: "approve", state: "APPROVED", by: "u", byName: "A", channel: "api" }),
    );
    expect(next[0]).toEqual({ type: EventType.RUN_STARTED, threadId: RUN, runId: `${RUN}:from-3`, protocolVersion: "1.0" });
  });

  it("a request already decided before the stream caught up is no interrupt", () => {
    const m = mapper();
    m.start();
    m.stored(record("human.requested", requested));
    m.stored(record("run.state", { from: "running", to: "waiting_human" }));
    m.stored(record("human.decided", { requestId: "req-1", kind: "approve", state: "APPROVED", by: "u", byName: "A", channel: "api" }));
    expect(m.settle()).toEqual([]);
  });

  it("recalls what came before a cursor without sending it: the open request is still an interrupt", () => {
    const m = mapper();
    m.recall(record("human.requested", requested));
    m.recall(record("run.state", { from: "running", to: "waiting_human" }));
    m.start();
    expect(m.settle()[0]).toMatchObject({ outcome: { type: "interrupt", interrupts: [expect.objectContaining({ id: "req-1" })] } });
  });

  it.each([
    [
      "succeeded",
      { type: EventType.RUN_FINISHED, threadId: RUN, runId: "client-run", outcome: { type: "success" }, result: { state: "succeeded" } },
    ],
    ["canceled", { type: EventType.RUN_FINISHED, threadId: RUN, runId: "client-run", outcome: { type: "cancelled" } }],
    ["failed", { type: EventType.RUN_ERROR, message: "boom", code: "MODEL_ERROR" }],
  ] as const)("a run that ends %s ends the stream with %o", (to, last) => {
    const m = mapper();
    m.start();
    m.transient({ type: "model.delta", runId: RUN, step: 1, agent: "demo", delta: "half" });
    const out = valid(
      m.stored(
        record("run.state", { from: "running", to, ...(to === "failed" ? { error: { code: "MODEL_ERROR", message: "boom" } } : {}) }),
      ),
    );
    // The message streaming when the run ended is closed first, as the protocol requires.
    expect(types(out)).toContain(EventType.TEXT_MESSAGE_END);
    expect(out.at(-1)).toEqual(last);
    expect(m.ended).toBe(true);
    expect(m.stored(record("human.note", { text: "late", by: "u", byName: "A" }))).toEqual([]);
  });

  it("every other event is a custom event named after it, with its stored (redacted) payload", () => {
    const m = mapper();
    m.start();
    const payload = { action: "pause" as const, by: "u1", byName: "Ann" };
    expect(m.stored(record("run.control", payload))).toEqual([{ type: EventType.CUSTOM, name: "rein.run.control", value: payload }]);
  });
});
