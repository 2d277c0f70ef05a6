// The run state machine (docs/runs.md#run-states), checked pair by pair against a table
// written out here, so a change to the machine has to change this file too.
import { describe, expect, it } from "vitest";
import {
  ACTIVE_STATES,
  InvalidTransitionError,
  RUN_STATES,
  TERMINAL_STATES,
  assertTransition,
  canTransition,
  isRunState,
  isTerminal,
  sourcesOf,
  type RunState,
} from "./states";

// queued -> running <-> paused | waiting_human -> succeeded | failed | canceled.
// A paused or answered run goes back through the queue to a worker; so does
// an ended one a person continues (a message) or retries.
const ALLOWED: Record<RunState, RunState[]> = {
  queued: ["running", "paused", "canceled", "failed"],
  running: ["paused", "waiting_human", "succeeded", "failed", "canceled"],
  paused: ["queued", "canceled"],
  waiting_human: ["queued", "canceled", "failed"],
  succeeded: ["queued"],
  failed: ["queued"],
  canceled: ["queued"],
};

const ALL: RunState[] = ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"];
const PAIRS = ALL.flatMap((from) => ALL.map((to) => ({ from, to, allowed: ALLOWED[from].includes(to) })));

describe("run states", () => {
  it("are exactly the seven states of the spec", () => {
    expect([...RUN_STATES].sort()).toEqual([...ALL].sort());
    expect([...TERMINAL_STATES].sort()).toEqual(["canceled", "failed", "succeeded"]);
    expect([...ACTIVE_STATES].sort()).toEqual(["paused", "queued", "running", "waiting_human"]);
    expect(PAIRS).toHaveLength(49);
  });

  it.each(PAIRS.filter((p) => p.allowed))("allows $from -> $to", ({ from, to }) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(PAIRS.filter((p) => !p.allowed))("refuses $from -> $to with an error naming both states", ({ from, to }) => {
    expect(canTransition(from, to)).toBe(false);
    let caught: unknown;
    try {
      assertTransition(from, to);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidTransitionError);
    const err = caught as InvalidTransitionError;
    expect(err.from).toBe(from);
    expect(err.to).toBe(to);
    expect(err.message).toBe(`A run cannot go from ${from} to ${to}`);
    expect(err.name).toBe("InvalidTransitionError");
  });

  it.each(["succeeded", "failed", "canceled"] as RunState[])("%s is terminal: its only way out is back to the queue, by a person", (s) => {
    expect(isTerminal(s)).toBe(true);
    expect(ALL.filter((to) => canTransition(s, to))).toEqual(["queued"]);
  });

  it.each(["queued", "running", "paused", "waiting_human"] as RunState[])("%s is not terminal and has a way out", (s) => {
    expect(isTerminal(s)).toBe(false);
    expect(ALL.some((to) => canTransition(s, to))).toBe(true);
  });

  it("every non-terminal state can reach canceled, and no state moves to itself", () => {
    for (const s of ALL) {
      expect(canTransition(s, s)).toBe(false);
      if (!isTerminal(s)) expect(canTransition(s, "canceled")).toBe(true);
    }
  });

  it("sourcesOf lists exactly the states that may move to a target", () => {
    for (const to of ALL) {
      const expected = ALL.filter((from) => ALLOWED[from].includes(to));
      expect([...sourcesOf(to)].sort()).toEqual([...expected].sort());
    }
    expect(sourcesOf("queued").sort()).toEqual(["canceled", "failed", "paused", "succeeded", "waiting_human"]);
  });

  it("isRunState accepts the seven states only", () => {
    for (const s of ALL) expect(isRunState(s)).toBe(true);
    for (const v of ["", "RUNNING", "done", "cancelled", null, undefined, 1, {}, ["queued"]]) expect(isRunState(v)).toBe(false);
  });
});
