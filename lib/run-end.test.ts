import { describe, expect, it } from "vitest";
import { runEndNote, runEndText } from "./run-end";

describe("a run's end in words", () => {
  it("a run a reviewer stopped reads as who stopped it and why, not as a failure", () => {
    const run = {
      status: "canceled",
      statusReason: "Stopped by a reviewer — Ada: not on a Friday",
      errorCode: "STOPPED_BY_REVIEWER",
      errorMessage: "Stopped by a reviewer — Ada: not on a Friday",
    };
    expect(runEndNote(run)).toEqual({ tone: "muted", text: "Stopped by a reviewer — Ada: not on a Friday", byReviewer: true });
    expect(runEndText(run)).toBe("Stopped by a reviewer — Ada: not on a Friday");
  });

  it("a failure leads with its message; the code follows", () => {
    const run = {
      status: "failed",
      statusReason: null,
      errorCode: "STEP_LIMIT",
      errorMessage: "The run reached its limit of 5 model calls",
    };
    expect(runEndNote(run)).toEqual({ tone: "error", text: "The run reached its limit of 5 model calls", code: "STEP_LIMIT" });
    expect(runEndText(run)).toBe("The run reached its limit of 5 model calls (STEP_LIMIT)");
  });

  it("a failure without a message still says something", () => {
    expect(runEndText({ status: "failed" })).toBe("The run failed");
    expect(runEndText({ status: "failed", statusReason: "  The agent stopped  " })).toBe("The agent stopped");
  });

  it("an operator's cancel shows its reason; a running or finished run shows nothing", () => {
    expect(runEndText({ status: "canceled", statusReason: "Canceled by an operator" })).toBe("Canceled by an operator");
    expect(runEndNote({ status: "canceled", statusReason: "" })).toBeNull();
    expect(runEndNote({ status: "running", statusReason: "Resumed" })).toBeNull();
    expect(runEndNote({ status: "succeeded", statusReason: "The agent finished", errorCode: "X", errorMessage: "y" })).toBeNull();
  });
});
