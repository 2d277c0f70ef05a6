// The AG-UI stream's tail (docs/ag-ui.md#streams) over a bus and a log held in
// memory: the log replayed then followed with nothing lost or sent twice, the
// end at an interrupt or with the run, and nothing left listening after.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Readable } from "node:stream";
import { RunEventBus, type RunEventPayloads, type RunEventRecord, type RunEventType } from "@/server/kernel";
import { waitFor } from "@/test/helpers/wait";
import { agUiStream, type AgUiStreamOptions } from "./stream";

const RUN = "run-1";

/** A run's log and the bus that announces it, as the kernel's store writes then publishes. */
class FakeRun {
  readonly bus = new RunEventBus();
  readonly log: RunEventRecord[] = [];
  listening = 0;

  constructor() {
    const onRun = this.bus.onRun.bind(this.bus);
    this.bus.onRun = (id, listener) => {
      this.listening++;
      const off = onRun(id, listener);
      return () => {
        this.listening--;
        off();
      };
    };
  }

  readonly store = {
    listEvents: async (_runId: string, after: number, limit: number) => this.log.filter((e) => e.seq > after).slice(0, limit),
  };

  write<T extends RunEventType>(type: T, payload: RunEventPayloads[T], publish = true): RunEventRecord {
    const e: RunEventRecord = { runId: RUN, seq: this.log.length + 1, type, actor: null, payload, createdAt: new Date(0) };
    this.log.push(e);
    if (publish) this.bus.publish(RUN, [e]);
    return e;
  }
}

const note = (text: string): RunEventPayloads["human.note"] => ({ text, by: "u", byName: "A" });

function open(run: FakeRun, o: Partial<AgUiStreamOptions> = {}) {
  const out = agUiStream(run as never, { runId: RUN, linkBase: "http://rein.test", firstRunId: "r", after: 0, once: false, ...o });
  const state = { text: "", ended: false };
  out.on("data", (chunk: Buffer) => (state.text += chunk.toString("utf8")));
  out.on("end", () => (state.ended = true));
  return {
    out,
    state,
    events: () =>
      [...state.text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]) as { type: string; name?: string; value?: { text?: string } }),
  };
}

const streams: Readable[] = [];
afterEach(() => {
  streams.splice(0).forEach((s) => s.destroy());
});

describe("agUiStream", () => {
  it("replays the log, then follows it, sending each event once in order", async () => {
    const run = new FakeRun();
    run.write("human.note", note("one"));
    run.write("human.note", note("two"));
    const s = open(run);
    streams.push(s.out);
    // Written after the stream listened, maybe before it read the log: sent once, in its place.
    run.write("human.note", note("three"));
    await waitFor(() => s.events().length >= 4, "the replay");
    run.write("human.note", note("four"));
    await waitFor(() => s.events().length >= 5, "the live event");
    const notes = s
      .events()
      .filter((e) => e.name === "rein.human.note")
      .map((e) => e.value!.text);
    expect(notes).toEqual(["one", "two", "three", "four"]);
    expect(s.events()[0].type).toBe("RUN_STARTED");
    expect([...s.state.text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3, 4]);
  });

  it("ends when the run ends, and stops listening", async () => {
    const run = new FakeRun();
    const s = open(run);
    await waitFor(() => s.events().length === 1, "RUN_STARTED");
    expect(run.listening).toBe(1);
    run.write("run.state", { from: "running", to: "succeeded" });
    await waitFor(() => s.state.ended, "the end of the stream");
    expect(s.events().at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(run.listening).toBe(0);
  });

  it("once: ends at the first interrupt", async () => {
    const run = new FakeRun();
    run.write("human.requested", {
      requestId: "req",
      kind: "approve",
      title: "t",
      requiredRole: "approver",
      expiresAt: "2026-12-01T00:00:00.000Z",
      tool: "shell",
      toolCallId: "c",
    });
    run.write("run.state", { from: "running", to: "waiting_human" });
    const s = open(run, { once: true });
    await waitFor(() => s.state.ended, "the end of the stream");
    expect(s.events().at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });
    expect(run.listening).toBe(0);
  });

  it("destroyed by a client that went away, it stops listening", async () => {
    const run = new FakeRun();
    const s = open(run);
    await waitFor(() => s.events().length === 1, "RUN_STARTED");
    s.out.destroy();
    await waitFor(() => run.listening === 0, "no listener");
  });

  it("sends a heartbeat, reads what other processes wrote, and ends when the watcher may no longer see the run", async () => {
    const run = new FakeRun();
    let allowed = true;
    const s = open(run, { heartbeatMs: 5, stillAllowed: async () => allowed });
    streams.push(s.out);
    await waitFor(() => s.state.text.includes(": keep-alive"), "a heartbeat");
    // Written by another process: not announced on this process's bus.
    run.write("human.note", note("from elsewhere"), false);
    await waitFor(() => s.events().some((e) => e.value?.text === "from elsewhere"), "the event read at a heartbeat");
    allowed = false;
    await waitFor(() => s.state.ended, "the end of the stream");
    expect(run.listening).toBe(0);
  });

  it("a log that cannot be read ends the stream with the error", async () => {
    const run = new FakeRun();
    run.store.listEvents = vi.fn().mockRejectedValue(new Error("disk gone"));
    const out = agUiStream(run as never, { runId: RUN, linkBase: "http://rein.test", firstRunId: "r", after: 0, once: false });
    const error = await new Promise<Error>((resolve) => out.on("error", resolve).resume());
    expect(error.message).toBe("disk gone");
    expect(run.listening).toBe(0);
  });
});
