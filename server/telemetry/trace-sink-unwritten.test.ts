// What budgets read instead of flushing before every model call: the model
// calls queued or being written, by run and by team and month. A call counts
// from the moment it is queued until the database has it, with no gap while
// its batch is being written.
import { describe, expect, it } from "vitest";
import { TraceSink } from "./trace-sink";
import type { SpanRecord, SpanSink } from "./types";

function chat(
  spanId: string,
  runId: string,
  teamId: string | null,
  day: string,
  costUsd: number,
  kind: SpanRecord["kind"] = "chat",
): SpanRecord {
  return {
    spanId,
    traceId: runId,
    parentSpanId: null,
    runId,
    kind,
    name: "chat scripted",
    startTime: new Date(`${day}T10:00:00.000Z`),
    endTime: new Date(`${day}T10:00:01.000Z`),
    status: "ok",
    teamId,
    workflowId: "demo",
    userId: null,
    model: "scripted",
    tool: null,
    inputTokens: 1,
    outputTokens: 1,
    cachedInputTokens: 0,
    costUsd,
    attributes: {},
    detail: null,
  };
}

/** A sink whose writes wait until released, so a batch can be caught being written. */
function heldSink() {
  const stored: SpanRecord[] = [];
  let release: () => void = () => {};
  const sink: SpanSink = {
    write(spans) {
      return new Promise<void>((resolve) => {
        release = () => {
          stored.push(...spans);
          resolve();
        };
      });
    },
  };
  // The write starts a turn after flush() (it waits for the batch before it).
  return { sink, stored, release: async () => (await new Promise((r) => setImmediate(r)), release()) };
}

describe("TraceSink.unwrittenCalls", () => {
  it("counts a run's queued calls, then the same calls while their batch is written, then none", async () => {
    const held = heldSink();
    const sink = new TraceSink(held.sink, { intervalMs: 60_000 });
    sink.record([
      chat("a1", "run-a", "t1", "2026-11-27", 0.25),
      chat("a2", "run-a", "t1", "2026-11-27", 0.5),
      chat("b1", "run-b", "t1", "2026-11-27", 4),
    ]);
    sink.record([chat("a-tool", "run-a", "t1", "2026-11-27", 9, "execute_tool")]);
    const queued = sink.unwrittenCalls({ runId: "run-a" });
    expect(queued.costUsd).toBe(0.75);
    expect(queued.latest?.spanId).toBe("a2");

    const flushed = sink.flush();
    expect(sink.unwrittenCalls({ runId: "run-a" }).costUsd).toBe(0.75);
    // A call queued while the batch is on its way counts too, once.
    sink.record([chat("a2", "run-a", "t1", "2026-11-27", 0.5), chat("a3", "run-a", "t1", "2026-11-27", 1)]);
    expect(sink.unwrittenCalls({ runId: "run-a" }).costUsd).toBe(1.75);
    await held.release();
    await flushed;
    expect(held.stored.map((s) => s.spanId).sort()).toEqual(["a-tool", "a1", "a2", "b1"]);
    expect(sink.unwrittenCalls({ runId: "run-a" }).costUsd).toBe(1.5);

    const second = sink.flush();
    await held.release();
    await second;
    expect(sink.unwrittenCalls({ runId: "run-a" })).toEqual({ costUsd: 0, latest: null });
  });

  it("counts a team's calls from the first day of its month on, and no other team's", () => {
    const sink = new TraceSink(heldSink().sink, { intervalMs: 60_000 });
    sink.record([
      chat("x1", "run-x", "t1", "2026-11-01", 2),
      chat("x2", "run-y", "t1", "2026-11-27", 3),
      chat("x3", "run-z", "t1", "2026-10-31", 50),
      chat("x4", "run-w", "t2", "2026-11-27", 70),
      chat("x5", "run-v", null, "2026-11-27", 80),
    ]);
    expect(sink.unwrittenCalls({ teamId: "t1", fromDay: "2026-11-01" }).costUsd).toBe(5);
    expect(sink.unwrittenCalls({ teamId: "t2", fromDay: "2026-11-01" }).costUsd).toBe(70);
  });
});
