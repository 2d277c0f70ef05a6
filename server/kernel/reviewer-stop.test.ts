import { describe, expect, it } from "vitest";
import type { Message } from "@/server/models";
import { reviewerStopIn, reviewerStopReason } from "./reviewer-stop";

const call: Message = {
  role: "assistant",
  content: [{ type: "tool-call", toolCallId: "c1", toolName: "shell", input: { command: "./deploy.sh" } }],
};
const result = (output: unknown, isError = true, toolName = "shell"): Message => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: "c1", toolName, output, isError }],
});
const rejected = (reviewer?: unknown) =>
  result({ error: { code: "REJECTED_BY_HUMAN", message: "Ada rejected this call: no", ...(reviewer ? { reviewer } : {}) } });

describe("a run stopped by a reviewer", () => {
  it("finds the person's rejection among the results the model read last", () => {
    expect(reviewerStopIn([call, rejected({ by: "Ada", verb: "rejected", comment: " not on a Friday " })])).toEqual({
      by: "Ada",
      comment: "not on a Friday",
      tool: "shell",
      verb: "rejected",
    });
  });

  it("not a rejection: another failure, a success, or a rejection before the model's last turn", () => {
    expect(reviewerStopIn([call, result({ error: { code: "POLICY_DENIED", message: "no" } })])).toBeNull();
    expect(reviewerStopIn([call, result({ exitCode: 0, output: "" }, false)])).toBeNull();
    expect(reviewerStopIn([call, rejected({ by: "Ada", verb: "rejected" }), call, result({ exitCode: 1, output: "" }, false)])).toBeNull();
    expect(reviewerStopIn([])).toBeNull();
  });

  it("a declined consent to a tier names its person; a consent nobody gave in time does not", () => {
    const consent = (reviewer?: unknown) =>
      result(
        { error: { code: "CONSENT_REJECTED", message: "Ada did not consent to T2 (desktop)", ...(reviewer ? { reviewer } : {}) } },
        true,
        "upgrade_tier",
      );
    expect(reviewerStopIn([call, consent({ by: "Ada", verb: "declined", comment: "use the API" })])).toEqual({
      by: "Ada",
      comment: "use the API",
      tool: "upgrade_tier",
      verb: "declined",
    });
    expect(reviewerStopReason({ by: "Ada", tool: "upgrade_tier", verb: "declined" })).toBe(
      "Stopped by a reviewer — Ada declined the upgrade_tier call",
    );
    expect(reviewerStopIn([call, consent()])).toBeNull();
    expect(reviewerStopIn([call, consent({ by: 7 })])).toBeNull();
  });

  it("reads hostile or missing reviewer fields safely", () => {
    expect(reviewerStopIn([call, rejected()])).toEqual({ by: "A reviewer", tool: "shell", verb: "rejected" });
    expect(reviewerStopIn([call, rejected({ by: 42, comment: { x: 1 }, verb: "<b>" })])).toEqual({
      by: "A reviewer",
      tool: "shell",
      verb: "rejected",
    });
    expect(reviewerStopIn([call, result(null)])).toBeNull();
  });

  it.each([
    [{ by: "Ada", comment: "not on a Friday", tool: "shell", verb: "rejected" }, "Stopped by a reviewer — Ada: not on a Friday"],
    [{ by: "Ada", tool: "shell", verb: "rejected" }, "Stopped by a reviewer — Ada rejected the shell call"],
    [{ by: "Bob", tool: "browser_click", verb: "vetoed" }, "Stopped by a reviewer — Bob vetoed the browser_click call"],
    [{ by: "Ada", comment: "line one\n\n  line two", tool: "shell", verb: "rejected" }, "Stopped by a reviewer — Ada: line one line two"],
  ])("reads %j as %s", (stop, said) => {
    expect(reviewerStopReason(stop)).toBe(said);
  });

  it("keeps a very long comment to a readable length", () => {
    const said = reviewerStopReason({ by: "Ada", comment: "x".repeat(5000), tool: "shell", verb: "rejected" });
    expect(said.length).toBeLessThan(600);
    expect(said.endsWith("…")).toBe(true);
  });
});
