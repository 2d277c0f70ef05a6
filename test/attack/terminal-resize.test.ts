// Attack suite: resizing a run's terminal. The agent's commands run in the
// pod's terminal, so its size is the person in control's alone: a viewer, an
// operator who only watches (with or without someone in control), or the
// controller before the run has paused for them, never changes it; and a
// hostile size (huge, negative, fractional, not a number) from the controller
// is clamped to the bounds, never passed on as it came.
import type { Socket } from "socket.io";
import { describe, expect, it } from "vitest";
import type { TerminalPod } from "@/server/compute";
import type { Actor } from "@/server/identity";
import { RunEventBus, type RunEventRecord, type RunState } from "@/server/kernel";
import { TerminalRun, type TerminalRunDeps } from "@/server/realtime";

const RUN = "run-resize";
const actor = (userId: string, role: Actor["role"]): Actor => ({
  userId,
  email: `${userId}@x.test`,
  name: userId,
  role,
  via: "token",
  teamIds: [],
});
const ada = actor("ada", "operator");
const grace = actor("grace", "operator");
const vic = actor("vic", "viewer");

function setup() {
  const bus = new RunEventBus();
  let seq = 0;
  let state: RunState = "running";
  const setState = (to: RunState) => {
    state = to;
    bus.publish(RUN, [
      { runId: RUN, seq: ++seq, type: "run.state", actor: null, payload: { from: null, to }, createdAt: new Date() } as RunEventRecord,
    ]);
  };
  const kernel = {
    bus,
    store: { getRun: async () => ({ status: state }), appendEvents: async () => [] },
    pool: { isActive: () => true, pause: async () => ({ ok: true }), resume: async () => ({ ok: true }) },
  } as unknown as TerminalRunDeps["kernel"];
  const sizes: Array<[number, number]> = [];
  const pod = {
    id: "pod-1",
    sandbox: "none",
    workspaceDir: "",
    startedAt: 0,
    onData: () => () => {},
    onExit: () => () => {},
    write() {},
    resize: (cols: number, rows: number) => void sizes.push([cols, rows]),
    exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
    alive: () => true,
    dispose: async () => {},
  } satisfies TerminalPod;
  const run = new TerminalRun(RUN, {
    kernel,
    log: { error() {} },
    graceMs: 60_000,
    serverStopping: () => false,
    remember() {},
    recall: () => null,
  });
  run.attachPod(pod);
  const connect = (id: string, who: Actor, size?: { cols: number; rows: number }) =>
    run.addViewer({ id, emit() {} } as unknown as Socket, who, size);
  // The pod's first size (the stream's default) is not anyone's doing.
  const resized = () => sizes.slice(1);
  return { run, setState, connect, resized };
}

describe("resizing a run's terminal", () => {
  it("a watcher never resizes the pod, whatever their role, by resize or by attaching with a size", () => {
    const t = setup();
    t.connect("s-vic", vic, { cols: 33, rows: 11 });
    t.connect("s-grace", grace, { cols: 250, rows: 60 });
    t.run.resize(vic, 40, 12);
    t.run.resize(grace, 300, 90);
    expect(t.resized()).toEqual([]);
  });

  it("only the controller, once the run has paused for them; not another operator meanwhile", async () => {
    const t = setup();
    t.connect("s-ada", ada);
    t.connect("s-grace", grace);
    expect((await t.run.takeover(ada)).ok).toBe(true);
    t.run.resize(ada, 100, 30); // the agent is still finishing its step in this terminal
    expect(t.resized()).toEqual([]);
    t.setState("paused");
    t.run.resize(grace, 300, 90);
    expect(t.resized()).toEqual([]);
    t.run.resize(ada, 100, 30);
    expect(t.resized()).toEqual([[100, 30]]);
  });

  it("a hostile size from the controller is clamped to the bounds", async () => {
    const t = setup();
    t.connect("s-ada", ada);
    await t.run.takeover(ada);
    t.setState("paused");
    t.run.resize(ada, 1e9, 1e9);
    t.run.resize(ada, -5, 0);
    t.run.resize(ada, 80.6, 24.4);
    t.run.resize(ada, Number.NaN, Number.POSITIVE_INFINITY);
    expect(t.resized()).toEqual([
      [500, 200],
      [20, 5],
      [81, 24],
      [120, 32],
    ]);
  });
});
