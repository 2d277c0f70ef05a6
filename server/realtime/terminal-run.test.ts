// Take over and hand back with a fake pod, kernel and sockets: who may type,
// what is logged, when the run resumes, and control that ends by itself.
import { describe, expect, it } from "vitest";
import type { Socket } from "socket.io";
import type { Actor } from "@/server/identity";
import { RunEventBus, type NewRunEvent, type RunEventRecord, type RunState } from "@/server/kernel";
import type { TerminalPod } from "@/server/compute";
import { TerminalRun, type TerminalRunDeps } from "./terminal-run";
import { HIGH_WATER } from "./terminal-flow";

const RUN = "run-1";
const actor = (userId: string, role: Actor["role"], name = userId): Actor => ({
  userId,
  email: `${userId}@x.test`,
  name,
  role,
  via: "token",
  teamIds: [],
});
const ada = actor("ada", "operator", "Ada");
const grace = actor("grace", "operator", "Grace");
const vic = actor("vic", "viewer", "Vic");
const root = actor("root", "admin", "Root");

function setup({ status = "running" as RunState, graceMs = 60_000, active = true } = {}) {
  const bus = new RunEventBus();
  const logged: NewRunEvent[] = [];
  const resumed: Array<{ by: string; note?: string }> = [];
  const pauses: string[] = [];
  const worker = { active, stopping: false };
  let state = status;
  let seq = 0;
  const setState = (to: RunState) => {
    state = to;
    bus.publish(RUN, [
      { runId: RUN, seq: ++seq, type: "run.state", actor: null, payload: { from: null, to }, createdAt: new Date() } as RunEventRecord,
    ]);
  };
  const kernel = {
    bus,
    store: {
      getRun: async () => ({ status: state }),
      appendEvents: async (_: string, events: NewRunEvent[]) => (logged.push(...events), []),
    },
    pool: {
      isActive: () => worker.active,
      pause: async (_: string, who: { id: string }) => (pauses.push(who.id), { ok: true }),
      resume: async (_: string, who: { id: string }, note?: string) => {
        resumed.push({ by: who.id, note });
        setState("queued");
        return { ok: true };
      },
    },
  } as unknown as TerminalRunDeps["kernel"];
  const dataListeners = new Set<(chunk: string) => void>();
  const written: string[] = [];
  const settled: number[] = [];
  const pod = {
    id: "pod-1",
    sandbox: "none",
    workspaceDir: "",
    startedAt: 0,
    onData: (l: (chunk: string) => void) => (dataListeners.add(l), () => dataListeners.delete(l)),
    onExit: () => () => {},
    write: (d: string) => void written.push(d),
    resize() {},
    exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
    alive: () => true,
    dispose: async () => {},
  } satisfies TerminalPod;
  const run = new TerminalRun(RUN, {
    kernel,
    log: { error() {} },
    graceMs,
    serverStopping: () => worker.stopping,
    remember() {},
    recall: () => null,
    settled: () => void settled.push(Date.now()),
  });
  run.attachPod(pod);
  const sockets = new Map<string, Array<[string, any]>>();
  const connect = (id: string, who: Actor) => {
    const sent: Array<[string, any]> = [];
    sockets.set(id, sent);
    run.addViewer({ id, emit: (e: string, m: unknown) => sent.push([e, m]) } as unknown as Socket, who);
    return sent;
  };
  const shell = (chunk: string) => dataListeners.forEach((l) => l(chunk));
  const logEvent = (type: string) =>
    bus.publish(RUN, [{ runId: RUN, seq: ++seq, type, actor: null, payload: {}, createdAt: new Date() } as RunEventRecord]);
  return { run, logged, resumed, pauses, worker, written, settled, setState, logEvent, connect, shell, state: () => state };
}

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));
const statuses = (sent: Array<[string, any]>) => sent.filter(([e]) => e === "status").map(([, m]) => m);

describe("TerminalRun take over", () => {
  it("pauses the run; only the controller types, once the run has paused; each line is logged", async () => {
    const t = setup();
    const watcher = t.connect("s-vic", vic);
    t.connect("s-ada", ada);
    expect(await t.run.takeover(vic)).toEqual({ ok: false, error: "Taking over the terminal needs the operator role" });
    const took = await t.run.takeover(ada);
    expect(took).toMatchObject({ ok: true, message: expect.stringMatching(/finishing its current step/) });
    expect(await t.run.takeover(grace)).toEqual({
      ok: false,
      error: "Ada is controlling the terminal; they (or an admin) must hand it back first",
    });
    expect(t.run.input(ada, "ls\r")).toEqual({
      ok: false,
      error: "The agent is finishing its current step; you can type once the run has paused",
    });

    t.setState("paused");
    expect(statuses(watcher).at(-1)).toMatchObject({ controller: { id: "ada", name: "Ada" }, ready: true, reason: "ready" });
    expect(t.run.input(vic, "rm -rf /\r")).toMatchObject({ ok: false });
    expect(t.run.input(grace, "rm -rf /\r")).toEqual({ ok: false, error: "Ada is controlling the terminal; you can watch, not type" });
    expect(t.run.input(ada, "echo hi\r").ok).toBe(true);
    expect(t.run.input(ada, "l").ok).toBe(true);
    expect(t.written).toEqual(["echo hi\r", "l"]);
    await tick();
    expect(t.logged.map((e) => [e.type, e.payload])).toEqual([
      ["terminal.control", { action: "takeover", by: "ada", byName: "Ada" }],
      ["terminal.input", { text: "echo hi", by: "ada", byName: "Ada" }],
    ]);

    // Hand back: the half-typed line is cleared, the run resumes with a note.
    expect(await t.run.handback(grace)).toEqual({ ok: false, error: "Ada controls the terminal; only they or an admin can hand it back" });
    expect(await t.run.handback(ada)).toEqual({ ok: true, message: "The agent continues" });
    expect(t.written.at(-1)).toBe("\u0005\u0015");
    expect(t.resumed).toHaveLength(1);
    expect(t.resumed[0].note).toContain("$ echo hi");
    expect(t.logged.at(-1)).toMatchObject({ type: "terminal.control", payload: { action: "handback", by: "ada", byName: "Ada" } });
    expect(statuses(watcher).at(-1)).toMatchObject({ controller: null, reason: "handback" });
    expect(t.run.input(ada, "more\r").ok).toBe(false);
  });

  it("refuses to hand back while the person's command runs; an admin can end it anyway", async () => {
    const t = setup({ status: "paused" });
    t.connect("s-ada", ada);
    expect((await t.run.takeover(ada)).ok).toBe(true);
    t.run.input(ada, "vi notes.txt\r");
    t.shell("\u001b]6973;S\u0007");
    t.run.input(ada, "ihello\r");
    const refused = await t.run.handback(ada);
    expect(refused).toEqual({
      ok: false,
      error: "A command is still running in the terminal (vi notes.txt). Finish it or press Ctrl-C, then hand back.",
    });
    expect(await t.run.handback(root)).toMatchObject({ ok: true });
    expect(t.written.at(-1)).toBe("\u0003");
    // What went into vi is counted, not recorded (it may be a password).
    expect(t.resumed[0]).toMatchObject({ by: "root" });
    expect(t.resumed[0].note).toContain("typed 1 line into programs");
    expect(t.logged.filter((e) => e.type === "terminal.input").map((e) => (e.payload as { text: string }).text)).toEqual(["vi notes.txt"]);
  });

  it("hands back by itself when the controller stays away, and not when they come back in time", async () => {
    const t = setup({ status: "paused", graceMs: 40 });
    t.connect("s1", ada);
    await t.run.takeover(ada);
    t.run.removeViewer("s1");
    await tick(10);
    t.connect("s2", ada);
    await tick(80);
    expect(t.run.controller).toEqual({ id: "ada", name: "Ada" });

    t.run.removeViewer("s2");
    await tick(80);
    expect(t.run.controller).toBeNull();
    expect(t.resumed).toHaveLength(1);
    expect(t.resumed[0].note).toContain("Control ended because Ada disconnected.");
    expect(t.logged.at(-1)).toMatchObject({ type: "terminal.control", payload: { action: "handback", reason: "Ada disconnected" } });
  });

  it("ends control without resuming when someone else resumes or the run ends", async () => {
    const t = setup({ status: "paused" });
    t.connect("s1", ada);
    await t.run.takeover(ada);
    t.setState("queued");
    await tick();
    expect(t.run.controller).toBeNull();
    expect(t.resumed).toEqual([]);
    expect(t.logged.at(-1)).toMatchObject({ payload: { action: "handback", reason: "the run was resumed" } });

    t.setState("paused");
    await t.run.takeover(grace);
    t.setState("canceled");
    await tick();
    expect(t.run.controller).toBeNull();
    expect(t.resumed).toEqual([]);
  });

  it("hands back when the terminal ends under the person", async () => {
    const t = setup({ status: "paused" });
    t.connect("s1", ada);
    await t.run.takeover(ada);
    t.run.input(ada, "exit\r");
    t.run.podGone("pod-1", "its shell exited (code 0)");
    // The note waits for the terminal's last lines.
    for (let i = 0; i < 300 && !t.resumed.length; i++) await tick();
    expect(t.run.controller).toBeNull();
    expect(t.resumed[0].note).toContain("Control ended because the terminal ended (its shell exited (code 0))");
    expect((await t.run.takeover(ada)).ok).toBe(false);
  });
});

describe("TerminalRun control after a server restart", () => {
  const saved = { who: { id: "ada", name: "Ada" }, commands: [{ text: "echo before-restart", approximate: false }], moreCommands: 0 };

  it("gives a paused run's terminal back to the person who had it; the hand back note has what they typed before and after", async () => {
    const t = setup({ status: "paused" });
    const watcher = t.connect("s-vic", vic);
    await t.run.restoreControl(saved);
    expect(t.run.controller).toEqual({ id: "ada", name: "Ada" });
    expect(t.pauses).toEqual([]);
    expect(statuses(watcher).at(-1)).toMatchObject({ controller: { id: "ada", name: "Ada" }, ready: true, reason: "takeover" });
    expect(await t.run.takeover(grace)).toEqual({
      ok: false,
      error: "Ada is controlling the terminal; they (or an admin) must hand it back first",
    });
    expect(t.run.input(grace, "ls\r").ok).toBe(false);
    t.connect("s-ada", ada);
    expect(t.run.input(ada, "echo after-restart\r").ok).toBe(true);
    expect(await t.run.handback(ada)).toEqual({ ok: true, message: "The agent continues" });
    expect(t.resumed[0].note).toContain("$ echo before-restart");
    expect(t.resumed[0].note).toContain("$ echo after-restart");
  });

  it("asks a recovered run to pause again, once a worker has it; the person may type once it has paused", async () => {
    const t = setup({ status: "running", active: false });
    await t.run.restoreControl(saved);
    expect(t.run.controller).toEqual({ id: "ada", name: "Ada" });
    await tick();
    expect(t.pauses).toEqual([]); // no worker runs it yet: a pause now would be refused
    t.worker.active = true;
    t.logEvent("run.resumed");
    await tick();
    expect(t.pauses).toEqual(["ada"]);
    t.connect("s-ada", ada);
    expect(t.run.input(ada, "ls\r").ok).toBe(false);
    t.setState("paused");
    expect(t.run.input(ada, "ls\r").ok).toBe(true);
    t.logEvent("terminal.input");
    await tick();
    expect(t.pauses).toEqual(["ada"]);
  });

  it("restores nothing for a run that has ended", async () => {
    const t = setup({ status: "succeeded" });
    await t.run.restoreControl(saved);
    expect(t.run.controller).toBeNull();
  });

  it("hands back by itself when the person does not come back after the restart", async () => {
    const t = setup({ status: "paused", graceMs: 30 });
    await t.run.restoreControl(saved);
    await tick(80);
    expect(t.run.controller).toBeNull();
    expect(t.resumed[0].note).toContain("Ada did not come back after the server restarted");
  });

  it("keeps control while the server stops and its pods go", async () => {
    const t = setup({ status: "paused" });
    t.connect("s-ada", ada);
    await t.run.takeover(ada);
    t.worker.stopping = true;
    t.run.podGone("pod-1", "the server is stopping");
    await tick();
    expect(t.run.controller).toEqual({ id: "ada", name: "Ada" });
    expect(t.logged.filter((e) => e.type === "terminal.control").map((e) => (e.payload as { action: string }).action)).toEqual([
      "takeover",
    ]);
    expect(t.resumed).toEqual([]);
  });
});

describe("TerminalRun watchers and flow control", () => {
  it("stops sending to a watcher that does not acknowledge (the server's memory stays bounded), then sends it a fresh screen", async () => {
    const t = setup();
    const slow = t.connect("s-slow", vic);
    // The fast watcher acknowledges each chunk as it comes.
    const fast: Array<[string, any]> = [];
    const fastSocket = { id: "s-fast", emit: (e: string, m: any) => (fast.push([e, m]), e === "data" && t.run.ack("s-fast", m.seq)) };
    t.run.addViewer(fastSocket as unknown as Socket, ada);
    t.run.greet("s-slow");
    t.run.greet("s-fast");
    for (let i = 0; i < 300 && slow.filter(([e]) => e === "snapshot").length < 1; i++) await tick(10);
    expect(slow.filter(([e]) => e === "snapshot")).toHaveLength(1);
    // 4 MB of output in full reads, a few per turn of the event loop, as a PTY gives it.
    const read = `${"x".repeat(198)}\r\n`.repeat(21).slice(0, 4095);
    for (let i = 0; i < 1000; i++) {
      t.shell(read);
      if (i % 4 === 3) await new Promise((r) => setImmediate(r));
    }
    const data = (sent: Array<[string, any]>) => sent.filter(([e]) => e === "data").map(([, m]) => m as { seq: number; data: string });
    const fastChars = () => data(fast).reduce((n, m) => n + m.data.length, 0);
    // The headless terminal parses 4 MB in well under a second, however busy the machine is.
    for (let i = 0; i < 500 && fastChars() < 4095 * 1000; i++) await tick(10);
    const slowChars = data(slow).reduce((n, m) => n + m.data.length, 0);
    expect(slowChars).toBeGreaterThan(0);
    expect(slowChars).toBeLessThanOrEqual(HIGH_WATER + 64 * 1024);
    expect(fastChars()).toBe(4095 * 1000);
    // Once it has caught up it gets the screen as it is now, then live output again.
    t.run.ack("s-slow", data(slow).at(-1)!.seq);
    for (let i = 0; i < 300 && slow.filter(([e]) => e === "snapshot").length < 2; i++) await tick(10);
    expect(slow.filter(([e]) => e === "snapshot")).toHaveLength(2);
    t.shell("after\r\n");
    for (let i = 0; i < 300 && data(slow).at(-1)!.data !== "after\r\n"; i++) await tick(10);
    expect(data(slow).at(-1)!.data).toBe("after\r\n");
  });

  it("a watcher who comes while the pod's last screen is being taken gets that screen, not an empty tab", async () => {
    const t = setup();
    t.connect("s-vic", vic);
    t.run.greet("s-vic");
    t.shell("final words\r\n");
    t.run.podGone("pod-1", "the run no longer needs it");
    // The page reconnects (or opens) in the moment between the pod going and its last screen being ready.
    const late = t.connect("s-late", ada);
    t.run.greet("s-late");
    for (let i = 0; i < 300 && !late.some(([e]) => e === "ended"); i++) await tick(10);
    const ended = late.find(([e]) => e === "ended")?.[1] as { data: string; reason: string } | undefined;
    expect(ended?.reason).toBe("the run no longer needs it");
    expect(ended?.data).toContain("final words");
  });

  it("is not let go while its last screen is being taken, even with nobody watching, and says when it may be", async () => {
    const t = setup();
    t.shell("the last line\r\n");
    t.run.podGone("pod-1", "the run no longer needs it");
    // The namespace asks at once whether it may let go: not yet, or a watcher who comes now would find nothing.
    expect(t.run.idle()).toBe(false);
    for (let i = 0; i < 300 && !t.settled.length; i++) await tick(10);
    expect(t.settled).toHaveLength(1);
    expect(t.run.idle()).toBe(true);
  });
});
