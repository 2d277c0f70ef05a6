// The hack-cycle machine walked exhaustively: every pair of states is either
// in the table or refused; the attempt limit; what a restart does in each state.
import { describe, expect, it } from "vitest";
import {
  CYCLE_ACTIVE,
  CYCLE_STATES,
  CycleTransitionError,
  MAX_ATTEMPTS,
  canCycleGo,
  checkCycleTransition,
  cycleSourcesOf,
  onRestart,
  type CycleState,
} from "./states";

const ALLOWED: Array<[CycleState, CycleState]> = [
  ["DETECT", "ISOLATE"],
  ["DETECT", "ABANDONED"],
  ["ISOLATE", "MODIFY"],
  ["ISOLATE", "ABANDONED"],
  ["MODIFY", "TEST"],
  ["MODIFY", "ABANDONED"],
  ["TEST", "MODIFY"],
  ["TEST", "GATE"],
  ["TEST", "ABANDONED"],
  ["GATE", "DEPLOY"],
  ["GATE", "ABANDONED"],
];

describe("hack-cycle transitions", () => {
  for (const from of CYCLE_STATES) {
    for (const to of CYCLE_STATES) {
      const allowed = ALLOWED.some(([a, b]) => a === from && b === to);
      it(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        expect(canCycleGo(from, to)).toBe(allowed);
        if (allowed) expect(() => checkCycleTransition(from, to, 0)).not.toThrow();
        else expect(() => checkCycleTransition(from, to, 0)).toThrow(CycleTransitionError);
      });
    }
  }

  it("DEPLOY and ABANDONED are final; ABANDONED is reachable from every other active state", () => {
    expect(CYCLE_STATES.filter((s) => !CYCLE_ACTIVE.includes(s))).toEqual(["DEPLOY", "ABANDONED"]);
    expect(cycleSourcesOf("ABANDONED")).toEqual([...CYCLE_ACTIVE]);
    expect(cycleSourcesOf("DEPLOY")).toEqual(["GATE"]);
  });

  it("allows at most 3 attempts: the fourth MODIFY is refused with a reason", () => {
    expect(MAX_ATTEMPTS).toBe(3);
    expect(() => checkCycleTransition("ISOLATE", "MODIFY", 0)).not.toThrow();
    expect(() => checkCycleTransition("TEST", "MODIFY", 1)).not.toThrow();
    expect(() => checkCycleTransition("TEST", "MODIFY", 2)).not.toThrow();
    expect(() => checkCycleTransition("TEST", "MODIFY", 3)).toThrow(/used its 3 attempts/);
    // Going on to the gate is still possible after the last attempt.
    expect(() => checkCycleTransition("TEST", "GATE", 3)).not.toThrow();
  });
});

describe("a restart in each state", () => {
  const now = new Date("2026-11-25T12:00:00Z");
  const later = new Date(now.getTime() + 60_000);
  const earlier = new Date(now.getTime() - 1);

  it.each([
    ["DETECT", "none", { kind: "resume", from: "DETECT" }],
    ["ISOLATE", "none", { kind: "resume", from: "ISOLATE" }],
    ["ISOLATE", "active", { kind: "wait" }],
    ["MODIFY", "active", { kind: "wait" }],
    ["TEST", "active", { kind: "wait" }],
    ["MODIFY", "succeeded", { kind: "gate" }],
    ["TEST", "succeeded", { kind: "gate" }],
    ["GATE", "succeeded", { kind: "gate" }],
    ["DEPLOY", "succeeded", { kind: "none" }],
    ["ABANDONED", "ended", { kind: "none" }],
  ] as const)("%s with its improver run %s", (state, improverRun, action) => {
    expect(onRestart(state, { now, deadlineAt: later, improverRun })).toEqual(action);
  });

  it.each([
    ["MODIFY", "ended", /ended without passing the gate/],
    ["TEST", "ended", /ended without passing the gate/],
    ["MODIFY", "none", /never started/],
  ] as const)("%s whose improver run %s is abandoned with a reason", (state, improverRun, reason) => {
    const action = onRestart(state, { now, deadlineAt: later, improverRun });
    expect(action.kind).toBe("abandon");
    expect(action.kind === "abandon" && action.reason).toMatch(reason);
  });

  it.each(CYCLE_ACTIVE)("%s past its time box is abandoned, whatever its run", (state) => {
    const action = onRestart(state, { now, deadlineAt: earlier, improverRun: "active" });
    expect(action).toEqual({ kind: "abandon", reason: "Its time box ran out while Rein was down" });
  });
});
