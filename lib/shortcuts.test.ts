import { describe, expect, it, vi } from "vitest";
import { createShortcutRegistry } from "./shortcuts";

const next = { keys: ["j"], what: "Next" };
const prev = { keys: ["k"], what: "Previous" };
const open = { keys: ["Enter"], what: "Open" };

describe("the shortcut registry", () => {
  it("lists what pages register, in order, and forgets it when they leave", () => {
    const r = createShortcutRegistry();
    expect(r.groups()).toEqual([]);
    const leaveRuns = r.register("Runs", [next, prev]);
    const leaveRun = r.register("Run", [open]);
    expect(r.groups()).toEqual([
      { title: "Runs", shortcuts: [next, prev] },
      { title: "Run", shortcuts: [open] },
    ]);
    leaveRuns();
    expect(r.groups()).toEqual([{ title: "Run", shortcuts: [open] }]);
    leaveRun();
    expect(r.groups()).toEqual([]);
  });

  it("merges two registrations under one title and lists a key once", () => {
    const r = createShortcutRegistry();
    const a = r.register("Inbox", [next, prev]);
    r.register("Inbox", [{ keys: ["j"], what: "Next again" }, open]);
    expect(r.groups()).toEqual([{ title: "Inbox", shortcuts: [next, prev, open] }]);
    a();
    expect(r.groups()).toEqual([{ title: "Inbox", shortcuts: [{ keys: ["j"], what: "Next again" }, open] }]);
  });

  it("leaves out empty groups and tells subscribers about each change until they leave", () => {
    const r = createShortcutRegistry();
    const listener = vi.fn();
    const stop = r.subscribe(listener);
    const leave = r.register("Empty", []);
    expect(r.groups()).toEqual([]);
    leave();
    expect(listener).toHaveBeenCalledTimes(2);
    stop();
    r.register("Runs", [next]);
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it("keeps one snapshot between changes (React compares it by identity)", () => {
    const r = createShortcutRegistry();
    r.register("Runs", [next]);
    expect(r.groups()).toBe(r.groups());
  });
});
