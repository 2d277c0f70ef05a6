// A run's desktop control with a fake kernel and desktops: statuses to the
// watchers, control that ends by itself (the person left, the desktop
// stopped, the run ended or was resumed), what the agent is told, and a
// server that stops without handing anything back.
import { describe, expect, it } from "vitest";
import type { Socket } from "socket.io";
import type { Actor } from "@/server/identity";
import { RunEventBus, type NewRunEvent, type RunEventRecord, type RunState } from "@/server/kernel";
import { DesktopRun, type DesktopRunDeps, type DesktopSource, type ProxiedDesktop } from "./desktop-run";
import { countInput, desktopNote, newDesktopUse, spokenDuration } from "./desktop-note";
import type { DesktopStatus } from "./protocol";

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
const vic = actor("vic", "viewer", "Vic");
const root = actor("root", "admin", "Root");

function setup({ status = "running" as RunState, graceMs = 60_000 } = {}) {
  const bus = new RunEventBus();
  const logged: NewRunEvent[] = [];
  const resumed: Array<{ by: string; note?: string }> = [];
  let state = status;
  let seq = 0;
  const publish = (type: string, payload: unknown) =>
    bus.publish(RUN, [{ runId: RUN, seq: ++seq, type, actor: null, payload, createdAt: new Date() } as RunEventRecord]);
  const setState = (to: RunState) => {
    state = to;
    publish("run.state", { from: null, to });
  };
  const kernel = {
    bus,
    store: {
      getRun: async () => ({ status: state }),
      appendEvents: async (_: string, events: NewRunEvent[]) => (logged.push(...events), []),
    },
    pool: {
      isActive: () => true,
      pause: async () => ({ ok: true }),
      resume: async (_: string, who: { id: string }, note?: string) => {
        resumed.push({ by: who.id, note });
        setState("queued");
        return { ok: true };
      },
    },
  } as unknown as DesktopRunDeps["kernel"];

  const byRun = new Map<string, ProxiedDesktop>();
  const exits: Array<(reason: string) => void> = [];
  let stopping = false;
  const desktops: DesktopSource = { get: (id) => byRun.get(id), onReleased: () => () => {} };
  const give = (id = "d1") => {
    byRun.set(RUN, {
      id,
      vncPort: 1,
      vncPassword: "x",
      width: 1280,
      height: 800,
      onExit: (cb) => (exits.push(cb), () => {}),
      page: async () => ({ url: () => "https://example.test/form", title: async () => "The form" }),
    });
  };
  give();
  const run = new DesktopRun(RUN, { kernel, desktops, log: { error() {} }, graceMs, serverStopping: () => stopping });
  const watch = (id: string, who: Actor) => {
    const sent: DesktopStatus[] = [];
    run.watch({ id, emit: (_: string, m: DesktopStatus) => sent.push(m) } as unknown as Socket, who);
    return sent;
  };
  return {
    run,
    logged,
    resumed,
    setState,
    watch,
    give,
    take: () => byRun.delete(RUN),
    exit: (reason: string) => exits.forEach((cb) => cb(reason)),
    stop: () => void (stopping = true),
    logEvent: (type: string) => publish(type, {}),
  };
}

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

describe("DesktopRun", () => {
  it("tells watchers who controls the desktop, and when the run has paused for them", async () => {
    const t = setup();
    const seen = t.watch("s-vic", vic);
    expect(t.run.status()).toMatchObject({ desktop: { id: "d1", width: 1280, height: 800 }, controller: null, ready: false, ended: false });
    expect(await t.run.takeOver(vic)).toEqual({ ok: false, error: "Taking over the desktop needs the operator role" });
    expect(await t.run.takeOver(ada)).toEqual({
      ok: true,
      message: "The agent is finishing its current step; you can use it once the run has paused",
    });
    expect(seen.at(-1)).toMatchObject({ controller: { id: "ada", name: "Ada" }, ready: false, reason: "takeover" });
    t.setState("paused");
    expect(seen.at(-1)).toMatchObject({ controller: { id: "ada" }, ready: true, reason: "ready" });
    expect(await t.run.handBack(vic)).toEqual({ ok: false, error: "Ada controls the desktop; only they or an admin can hand it back" });
    expect(await t.run.handBack(ada)).toEqual({ ok: true, message: "The agent continues" });
    expect(seen.at(-1)).toMatchObject({ controller: null, reason: "handback" });
    expect(t.resumed[0].note).toMatch(
      /Ada took over the desktop for (less than a second|\d+ seconds?) but did not use its keyboard or mouse/,
    );
    expect(t.resumed[0].note).toContain('the browser showed "The form" at https://example.test/form');
  });

  it("refuses a take over without a desktop, and after the run has ended", async () => {
    const t = setup();
    t.take();
    t.logEvent("tool.result");
    expect(await t.run.takeOver(ada)).toEqual({ ok: false, error: "The run has no desktop now" });
    t.give("d2");
    t.logEvent("tier.changed");
    expect(t.run.status().desktop?.id).toBe("d2");
    t.setState("succeeded");
    expect(t.run.status()).toMatchObject({ desktop: null, ended: true });
    expect(await t.run.takeOver(ada)).toEqual({ ok: false, error: "The run has ended" });
  });

  it("hands back with a note when the desktop stops under the person", async () => {
    const t = setup({ status: "paused" });
    const seen = t.watch("s-ada", ada);
    await t.run.takeOver(ada);
    t.exit("Xvfb exited with code 1");
    await tick();
    expect(seen.at(-1)).toMatchObject({ desktop: null, controller: null });
    expect(seen.some((s) => s.reason === "The desktop stopped: Xvfb exited with code 1")).toBe(true);
    expect(t.resumed[0].note).toContain("Control ended because the desktop stopped (Xvfb exited with code 1).");
    expect(t.logged.at(-1)).toMatchObject({
      type: "desktop.control",
      payload: { action: "handback", by: "ada", reason: "the desktop stopped (Xvfb exited with code 1)" },
    });
  });

  it("hands back by itself when the controller stays away, and not when they come back in time", async () => {
    const t = setup({ status: "paused", graceMs: 40 });
    t.watch("s1", ada);
    await t.run.takeOver(ada);
    t.run.unwatch("s1");
    await tick(10);
    t.watch("s2", ada);
    await tick(80);
    expect(t.run.status().controller).toEqual({ id: "ada", name: "Ada" });
    t.run.unwatch("s2");
    await tick(80);
    expect(t.run.status().controller).toBeNull();
    expect(t.resumed[0].note).toContain("Control ended because Ada disconnected.");
  });

  it("ends control without resuming when someone else resumes the run; an admin can end anyone's", async () => {
    const t = setup({ status: "paused" });
    await t.run.takeOver(ada);
    t.setState("queued");
    await tick();
    expect(t.run.status().controller).toBeNull();
    expect(t.resumed).toEqual([]);
    t.setState("paused");
    await t.run.takeOver(ada);
    expect(await t.run.handBack(root)).toEqual({ ok: true, message: "The agent continues" });
    expect(t.resumed[0].by).toBe("root");
    expect(t.logged.at(-1)).toMatchObject({ payload: { action: "handback", by: "root", byName: "Root" } });
  });

  it("gives the controls at once while the run waits for a person, and when a step ends in a question instead of a pause", async () => {
    const t = setup({ status: "waiting_human" });
    expect(await t.run.takeOver(ada)).toEqual({ ok: true, message: "You control the desktop" });
    expect(t.run.status()).toMatchObject({ controller: { id: "ada" }, ready: true });
    expect(await t.run.handBack(ada)).toEqual({ ok: true, message: "Handed back; the run goes on once a person answers what it asked" });
    expect(t.resumed).toEqual([]);

    const u = setup({ status: "running" });
    await u.run.takeOver(ada);
    u.setState("waiting_human");
    expect(u.run.status()).toMatchObject({ ready: true });
    // The answer lets the run go on: the person's control ends, nothing is resumed twice.
    u.setState("queued");
    await tick();
    expect(u.run.status().controller).toBeNull();
    expect(u.logged.at(-1)).toMatchObject({ payload: { action: "handback", reason: "the run was resumed" } });
  });

  it("after a restart, gives the desktop back to the person who had it, and back to the agent if they do not return", async () => {
    const t = setup({ status: "paused", graceMs: 30 });
    expect(await t.run.restoreControl({ id: "ada", name: "Ada" })).toEqual({ ready: true });
    expect(t.run.status()).toMatchObject({ controller: { id: "ada", name: "Ada" }, ready: true });
    await tick(80);
    expect(t.run.status().controller).toBeNull();
    expect(t.resumed[0].note).toContain("Control ended because Ada did not come back after the server restarted.");

    const u = setup({ status: "succeeded" });
    expect(await u.run.restoreControl({ id: "ada", name: "Ada" })).toEqual({ ready: false });
    expect(u.run.status().controller).toBeNull();
  });

  it("keeps control while the server stops and its desktops go", async () => {
    const t = setup({ status: "paused" });
    await t.run.takeOver(ada);
    t.stop();
    t.exit("the server is stopping");
    await tick();
    expect(t.run.status().controller).toEqual({ id: "ada", name: "Ada" });
    expect(t.resumed).toEqual([]);
  });
});

describe("the hand back note", () => {
  const u16 = (n: number) => [n >> 8, n & 0xff];
  it("counts key presses, clicks and pastes, never what was typed", () => {
    const use = newDesktopUse(0);
    countInput(use, "KeyEvent", Buffer.from([4, 1, 0, 0, 0, 0, 0, 0x61]));
    countInput(use, "KeyEvent", Buffer.from([4, 0, 0, 0, 0, 0, 0, 0x61]));
    countInput(use, "QemuKeyEvent", Buffer.from([255, 0, ...u16(1), 0, 0, 0, 0x62, 0, 0, 0, 0x30]));
    countInput(use, "PointerEvent", Buffer.from([5, 1, 0, 10, 0, 10]));
    countInput(use, "PointerEvent", Buffer.from([5, 1, 0, 12, 0, 10])); // dragging: not a new click
    countInput(use, "PointerEvent", Buffer.from([5, 0, 0, 12, 0, 10]));
    countInput(use, "PointerEvent", Buffer.from([5, 8, 0, 12, 0, 10])); // the wheel
    countInput(use, "PointerEvent", Buffer.from([5, 4, 0, 12, 0, 10]));
    countInput(use, "ClientCutText", Buffer.from([6, 0, 0, 0, 0, 0, 0, 3]));
    expect(use).toMatchObject({ keys: 2, clicks: 2, pastes: 1 });
    const note = desktopNote({ byName: "Ada", use, now: 3 * 60_000, page: null });
    expect(note).toContain(
      "Ada took over the desktop and used it for 3 minutes (2 key presses, 2 clicks, 1 paste; what they typed is not recorded).",
    );
    expect(note).toContain("take a screenshot");
  });

  it("states how long the person really had the desktop, not a rounded minute", () => {
    const use = newDesktopUse(1_000);
    expect(desktopNote({ byName: "Ada", use, now: 13_000, page: null })).toContain(
      "Ada took over the desktop for 12 seconds but did not use",
    );
    use.keys = 1;
    expect(desktopNote({ byName: "Ada", use, now: 1_000 + 185_000, page: null })).toContain(
      "used it for 3 minutes 5 seconds (1 key press;",
    );
  });

  it.each([
    [0, "less than a second"],
    [1_000, "1 second"],
    [45_400, "45 seconds"],
    [60_000, "1 minute"],
    [125_000, "2 minutes 5 seconds"],
    [3_600_000, "1 hour"],
    [3_600_000 + 2 * 60_000 + 30_000, "1 hour 2 minutes"],
    [-5_000, "less than a second"],
  ])("says %i ms as %s", (ms, said) => {
    expect(spokenDuration(ms)).toBe(said);
  });
});
