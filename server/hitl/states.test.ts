// The human-request state machine (docs/human-requests-and-policy.md#states),
// checked triple by triple (kind, from, to) against a table written out here,
// so a change to the machine has to change this file too.
import { describe, expect, it } from "vitest";
import { assertRequestTransition, canTransitionRequest, decisionTarget, isOpen, requestSourcesOf } from "./states";
import {
  DECISIONS,
  HumanRequestError,
  OPEN_STATES,
  REQUEST_KINDS,
  REQUEST_STATES,
  type DecisionKind,
  type RequestKind,
  type RequestState,
} from "./types";

const KINDS: RequestKind[] = ["approve", "choose", "provide", "veto"];
const STATES: RequestState[] = ["PENDING", "APPROVED", "REJECTED", "EXPIRED", "ESCALATED", "CANCELED"];

// PENDING -> APPROVED | REJECTED | EXPIRED | ESCALATED | CANCELED;
// ESCALATED -> APPROVED | REJECTED | EXPIRED | CANCELED. Only a veto goes
// EXPIRED -> APPROVED (nobody vetoed in time), and a veto never escalates.
const COMMON: Partial<Record<RequestState, RequestState[]>> = {
  PENDING: ["APPROVED", "REJECTED", "EXPIRED", "ESCALATED", "CANCELED"],
  ESCALATED: ["APPROVED", "REJECTED", "EXPIRED", "CANCELED"],
};
const ALLOWED: Record<RequestKind, Partial<Record<RequestState, RequestState[]>>> = {
  approve: COMMON,
  choose: COMMON,
  provide: COMMON,
  veto: { PENDING: ["APPROVED", "REJECTED", "EXPIRED", "CANCELED"], EXPIRED: ["APPROVED"] },
};

const TRIPLES = KINDS.flatMap((kind) =>
  STATES.flatMap((from) => STATES.map((to) => ({ kind, from, to, allowed: (ALLOWED[kind][from] ?? []).includes(to) }))),
);

// Which answer each kind takes, and where it leads; every other pair is refused.
const TARGETS: Record<RequestKind, Partial<Record<DecisionKind, RequestState>>> = {
  approve: { approve: "APPROVED", reject: "REJECTED" },
  choose: { choose: "APPROVED", reject: "REJECTED" },
  provide: { provide: "APPROVED", reject: "REJECTED" },
  veto: { veto: "REJECTED", approve: "APPROVED" },
};
const DECISION_KINDS: DecisionKind[] = ["approve", "reject", "veto", "choose", "provide"];
const ANSWERS = KINDS.flatMap((kind) => DECISION_KINDS.map((decision) => ({ kind, decision, target: TARGETS[kind][decision] ?? null })));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe("human request states", () => {
  it("are exactly the kinds, states and decisions of the spec", () => {
    expect([...REQUEST_KINDS].sort()).toEqual([...KINDS].sort());
    expect([...REQUEST_STATES].sort()).toEqual([...STATES].sort());
    expect([...DECISIONS].sort()).toEqual([...DECISION_KINDS].sort());
    expect([...OPEN_STATES].sort()).toEqual(["ESCALATED", "PENDING"]);
    expect(TRIPLES).toHaveLength(4 * 6 * 6);
    expect(TRIPLES.filter((t) => t.allowed)).toHaveLength(3 * 9 + 5);
  });

  it.each(TRIPLES.filter((t) => t.allowed))("allow a $kind request $from -> $to", ({ kind, from, to }) => {
    expect(canTransitionRequest(kind, from, to)).toBe(true);
    expect(() => assertRequestTransition(kind, from, to)).not.toThrow();
  });

  it.each(TRIPLES.filter((t) => !t.allowed))(
    "refuse a $kind request $from -> $to, naming the kind and both states",
    ({ kind, from, to }) => {
      expect(canTransitionRequest(kind, from, to)).toBe(false);
      const err = thrown(() => assertRequestTransition(kind, from, to));
      expect(err).toBeInstanceOf(HumanRequestError);
      expect((err as HumanRequestError).reason).toBe("INVALID_TRANSITION");
      const article = kind === "approve" ? "An" : "A";
      expect((err as HumanRequestError).message).toBe(`${article} ${kind} request cannot go from ${from} to ${to}`);
    },
  );

  it("let only a veto go EXPIRED -> APPROVED", () => {
    for (const kind of KINDS) expect(canTransitionRequest(kind, "EXPIRED", "APPROVED")).toBe(kind === "veto");
  });

  it("never escalate a veto, from any state", () => {
    for (const from of STATES) expect(canTransitionRequest("veto", from, "ESCALATED")).toBe(false);
  });

  it("never leave APPROVED, REJECTED or CANCELED, for any kind", () => {
    for (const kind of KINDS) {
      for (const from of ["APPROVED", "REJECTED", "CANCELED"] as const) {
        for (const to of STATES) expect(canTransitionRequest(kind, from, to)).toBe(false);
      }
    }
  });

  it("count PENDING and ESCALATED as open, nothing else", () => {
    expect(STATES.filter(isOpen).sort()).toEqual(["ESCALATED", "PENDING"]);
  });
});

describe("decisionTarget", () => {
  it.each(ANSWERS.filter((a) => a.target))("maps a $decision answer to a $kind request to $target", ({ kind, decision, target }) => {
    expect(decisionTarget(kind, decision)).toBe(target);
  });

  it.each(ANSWERS.filter((a) => !a.target))("refuses a $decision answer to a $kind request, saying what it takes", ({ kind, decision }) => {
    const err = thrown(() => decisionTarget(kind, decision));
    expect(err).toBeInstanceOf(HumanRequestError);
    expect((err as HumanRequestError).reason).toBe("INVALID_DECISION");
    const article = kind === "approve" ? "An" : "A";
    const accepted = Object.keys(TARGETS[kind]).join(" or ");
    expect((err as HumanRequestError).message).toBe(`${article} ${kind} request is answered with ${accepted}, not ${decision}`);
  });

  it("leads every accepted answer to a state the request can reach from PENDING", () => {
    for (const { kind, target } of ANSWERS) if (target) expect(canTransitionRequest(kind, "PENDING", target)).toBe(true);
  });

  it("gives every kind exactly two answers: one that approves and one that does not", () => {
    for (const kind of KINDS) {
      const targets = DECISION_KINDS.flatMap((d) => (TARGETS[kind][d] ? [decisionTarget(kind, d)] : []));
      expect(targets.sort()).toEqual(["APPROVED", "REJECTED"]);
    }
  });
});

describe("requestSourcesOf", () => {
  it.each(KINDS.flatMap((kind) => STATES.map((to) => ({ kind, to }))))(
    "lists the states a $kind request reaches $to from",
    ({ kind, to }) => {
      const expected = STATES.filter((from) => (ALLOWED[kind][from] ?? []).includes(to));
      expect(requestSourcesOf(kind, to).sort()).toEqual(expected.sort());
    },
  );

  it("names EXPIRED as a source of APPROVED only for a veto", () => {
    expect(requestSourcesOf("veto", "APPROVED").sort()).toEqual(["EXPIRED", "PENDING"]);
    expect(requestSourcesOf("approve", "APPROVED").sort()).toEqual(["ESCALATED", "PENDING"]);
    expect(requestSourcesOf("veto", "ESCALATED")).toEqual([]);
    expect(requestSourcesOf("choose", "PENDING")).toEqual([]);
  });
});
