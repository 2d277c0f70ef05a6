import { describe, expect, it } from "vitest";
import type { TimelineEvent } from "./run-events";
import { endedAfterFailedCall, groupTimeline, lastStep, mayHaveDesktop, modelsThatAnswered, showGateNote } from "./timeline-groups";

let seq = 0;
function ev(type: string, payload: Record<string, unknown>): TimelineEvent {
  return { runId: "r", seq: ++seq, type, actor: null, payload, createdAt: "2026-01-01T00:00:00.000Z" } as TimelineEvent;
}
const call = (id: string, tool = "shell") => ev("tool.call", { step: 1, agent: "a", toolCallId: id, tool, args: { command: "ls" } });
const result = (id: string, extra: Record<string, unknown> = {}) =>
  ev("tool.result", {
    step: 1,
    toolCallId: id,
    tool: "shell",
    ok: true,
    output: { exitCode: 0, output: "" },
    cached: false,
    replayClass: null,
    durationMs: 1,
    ...extra,
  });
const state = (from: string | null, to: string) => ev("run.state", { from, to });
const kinds = (entries: ReturnType<typeof groupTimeline>) => entries.map((e) => (e.kind === "event" ? e.event.type : e.kind));

describe("the timeline's grouping", () => {
  it("keeps a gated call's result after the question and the decision, in the order they happened", () => {
    const c = call("gated");
    const asked = ev("human.requested", {
      requestId: "q1",
      kind: "approve",
      title: "t",
      requiredRole: "approver",
      expiresAt: "",
      tool: "shell",
      toolCallId: "gated",
    });
    const decided = ev("human.decided", { requestId: "q1", kind: "approve", state: "APPROVED", by: "u", byName: "Admin", channel: "web" });
    const r = result("gated", { gate: { requestId: "q1", decidedBy: "u" } });
    const plain = call("plain");
    const pr = result("plain");
    const entries = groupTimeline([c, asked, decided, r, plain, pr]);
    expect(kinds(entries)).toEqual(["tool", "human.requested", "human.decided", "tool.result", "tool"]);
    expect(entries[0]).toEqual({ kind: "tool", call: c, result: null });
    expect(entries[4]).toEqual({ kind: "tool", call: plain, result: pr });
    // Rejected: the refusal is the result, after the decision too.
    const rc = call("rejected");
    const ra = ev("human.requested", {
      requestId: "q2",
      kind: "approve",
      title: "t",
      requiredRole: "approver",
      expiresAt: "",
      tool: "shell",
      toolCallId: "rejected",
    });
    const rd = ev("human.decided", { requestId: "q2", kind: "approve", state: "REJECTED", by: "u", byName: "Admin", channel: "web" });
    const rr = result("rejected", { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "no" } });
    expect(kinds(groupTimeline([rc, ra, rd, rr]))).toEqual(["tool", "human.requested", "human.decided", "tool.result"]);
  });

  it("puts a tool call and its result on one card, at the call's place", () => {
    const c1 = call("c1");
    const c2 = call("c2");
    const r2 = result("c2");
    const r1 = result("c1");
    const entries = groupTimeline([c1, c2, r2, r1]);
    expect(entries).toEqual([
      { kind: "tool", call: c1, result: r1 },
      { kind: "tool", call: c2, result: r2 },
    ]);
  });

  it("a call still running has no result; the result fills in when it arrives", () => {
    const c1 = call("c1");
    expect(groupTimeline([c1])).toEqual([{ kind: "tool", call: c1, result: null }]);
    const r1 = result("c1");
    expect(groupTimeline([c1, r1])).toEqual([{ kind: "tool", call: c1, result: r1 }]);
  });

  it("a result whose call is not in the log keeps its own row", () => {
    const r = result("lost");
    expect(groupTimeline([r])).toEqual([{ kind: "event", event: r }]);
  });

  it("a second result for the same call is not dropped", () => {
    const c = call("c");
    const first = result("c");
    const again = result("c", { ok: false });
    expect(groupTimeline([c, first, again])).toEqual([
      { kind: "tool", call: c, result: first },
      { kind: "event", event: again },
    ]);
  });

  it("folds the routine rows a restart's resume writes under it, up to the next real event", () => {
    const resumed = ev("run.resumed", { fromCheckpoint: 3, step: 2, reason: "restart" });
    const running = state("queued", "running");
    const attached = ev("terminal.attached", { podId: "p", sandbox: "s", fromPool: true, startMs: 1 });
    const turn = ev("model.turn", { step: 3 });
    const entries = groupTimeline([state(null, "running"), resumed, running, attached, turn]);
    expect(kinds(entries)).toEqual(["run.state", "resume", "model.turn"]);
    expect(entries[1]).toEqual({ kind: "resume", head: resumed, rows: [running, attached] });
  });

  it("groups a person's resume with its state changes, but never an end", () => {
    const resume = ev("run.control", { action: "resume", by: "u", byName: "Ann" });
    const queued = state("paused", "queued");
    const failed = state("running", "failed");
    const entries = groupTimeline([resume, queued, failed]);
    expect(entries).toEqual([
      { kind: "resume", head: resume, rows: [queued] },
      { kind: "event", event: failed },
    ]);
  });

  it("a resume with nothing after it, and a pause, are plain rows", () => {
    const resumed = ev("run.resumed", { fromCheckpoint: 1, step: 0, reason: "x" });
    const pause = ev("run.control", { action: "pause", by: "u", byName: "Ann" });
    expect(kinds(groupTimeline([pause, state("running", "paused"), resumed]))).toEqual(["run.control", "run.state", "run.resumed"]);
  });

  it("shows every event exactly once", () => {
    const log = [
      state(null, "running"),
      call("a"),
      ev("run.resumed", { fromCheckpoint: 1, step: 0, reason: "x" }),
      state("queued", "running"),
      result("a"),
      call("b"),
    ];
    const seen = groupTimeline(log).flatMap((e) =>
      e.kind === "event" ? [e.event] : e.kind === "tool" ? [e.call, ...(e.result ? [e.result] : [])] : [e.head, ...e.rows],
    );
    expect(seen.map((e) => e.seq).sort((x, y) => x - y)).toEqual(log.map((e) => e.seq));
  });
});

describe("routine policy notes", () => {
  const allow = { policy: { effect: "allow", level: "team", rule: 1, reason: "workspace tools", version: 2 } };
  it("hides a plain allow unless asked, and always shows an ask, a deny or a person's answer", () => {
    expect(showGateNote(allow, false)).toBe(false);
    expect(showGateNote(allow, true)).toBe(true);
    expect(showGateNote({ ...allow, requestId: "req" }, false)).toBe(true);
    expect(showGateNote({ policy: { ...allow.policy, effect: "ask" } }, false)).toBe(true);
    expect(showGateNote({ policy: { ...allow.policy, effect: "deny" } }, false)).toBe(true);
    expect(showGateNote(undefined, true)).toBe(false);
    expect(showGateNote({}, true)).toBe(false);
  });
});

describe("what the header says about the end", () => {
  it("flags a success whose last tool call failed or exited non-zero", () => {
    expect(endedAfterFailedCall([call("a"), result("a", { ok: false, output: undefined })], "succeeded")).toBe(true);
    expect(endedAfterFailedCall([call("a"), result("a", { output: { exitCode: 2, output: "boom" } })], "succeeded")).toBe(true);
  });

  it("does not flag a failure followed by a good call, a run still going, or a run with no calls", () => {
    expect(endedAfterFailedCall([result("a", { ok: false }), result("b")], "succeeded")).toBe(false);
    expect(endedAfterFailedCall([result("a", { ok: false })], "running")).toBe(false);
    expect(endedAfterFailedCall([result("a", { ok: false })], "failed")).toBe(false);
    expect(endedAfterFailedCall([], "succeeded")).toBe(false);
  });

  it("names the models that answered, once each, first answer first", () => {
    expect(modelsThatAnswered([])).toEqual([]);
    const turn = (model: string, scripted = false) => ev("model.turn", { step: 1, model, scripted });
    expect(modelsThatAnswered([turn("a/x"), turn("b/y"), turn("a/x")])).toEqual([
      { model: "a/x", scripted: false },
      { model: "b/y", scripted: false },
    ]);
  });

  it("reads the last step from the model turns", () => {
    expect(lastStep([])).toBe(0);
    expect(lastStep([ev("model.turn", { step: 2 }), ev("model.turn", { step: 5 }), ev("model.turn", { step: 4 })])).toBe(5);
  });
});

describe("the Desktop tab", () => {
  it("is there for a T2 run or one whose log shows a desktop", () => {
    expect(mayHaveDesktop("T2", [])).toBe(true);
    expect(mayHaveDesktop("T1", [ev("tier.requested", { from: "T1", to: "T2", reason: "web" })])).toBe(true);
    expect(mayHaveDesktop("T1", [ev("tier.changed", { from: "T2", to: "T1", reason: "idle", trigger: "idle", durationMs: 1 })])).toBe(true);
    expect(mayHaveDesktop("T1", [ev("desktop.control", { action: "takeover", by: "u", byName: "Ann" })])).toBe(true);
  });

  it("is not there for a plain terminal run", () => {
    expect(mayHaveDesktop("T1", [state(null, "running"), call("a"), result("a")])).toBe(false);
    expect(mayHaveDesktop("T0", [ev("tier.requested", { from: "T0", to: "T1", reason: "shell" })])).toBe(false);
  });
});
