import { describe, expect, it } from "vitest";
import { endpointState, localInputValue, prettyBody, recoverSinceProblem, statusWords, stillMoving } from "./webhook-views";

describe("webhook views", () => {
  it.each([
    [{ enabled: true, failingSince: null }, "on"],
    [{ enabled: true, failingSince: "2026-01-01T00:00:00Z" }, "failing"],
    [{ enabled: false, failingSince: "2026-01-01T00:00:00Z" }, "off"],
    [{ enabled: false, failingSince: null }, "off"],
  ] as const)("an endpoint %o is %s", (e, state) => {
    expect(endpointState(e)).toBe(state);
  });

  it.each([
    [{ state: "pending", attempts: 0, nextAttemptAt: null }, true],
    [{ state: "pending", attempts: 2, nextAttemptAt: "2026-01-01T00:00:00Z" }, true],
    // A failed test ping: pending, tried, no retry — nothing will move it.
    [{ state: "pending", attempts: 1, nextAttemptAt: null }, false],
    [{ state: "succeeded", attempts: 1, nextAttemptAt: null }, false],
    [{ state: "failed", attempts: 9, nextAttemptAt: null }, false],
  ] as const)("a delivery %o still moves: %s", (d, moving) => {
    expect(stillMoving(d)).toBe(moving);
  });

  it("says the status, else the error, else that nothing answered", () => {
    expect(statusWords(200, "ignored")).toBe("HTTP 200");
    expect(statusWords(null, "connect ECONNREFUSED")).toBe("connect ECONNREFUSED");
    expect(statusWords(undefined)).toBe("no answer");
  });

  it("parses a JSON body and keeps anything else as text", () => {
    expect(prettyBody('{"type":"x"}')).toEqual({ type: "x" });
    expect(prettyBody("not json")).toBe("not json");
  });

  it("writes a datetime-local value in local time, to the minute", () => {
    expect(localInputValue(new Date(2026, 0, 5, 7, 3, 59))).toBe("2026-01-05T07:03");
  });

  it("accepts a start time within the last 7 days and refuses others with a reason", () => {
    const now = new Date(2026, 5, 10, 12, 0).getTime();
    expect(recoverSinceProblem(localInputValue(new Date(now - 3600_000)), now)).toBeNull();
    expect(recoverSinceProblem(localInputValue(new Date(now - 6.9 * 24 * 3600_000)), now)).toBeNull();
    expect(recoverSinceProblem(localInputValue(new Date(now - 8 * 24 * 3600_000)), now)).toMatch(/7 days/);
    expect(recoverSinceProblem(localInputValue(new Date(now + 3600_000)), now)).toMatch(/past/);
    expect(recoverSinceProblem("", now)).toMatch(/Choose a date/);
    expect(recoverSinceProblem("yesterday", now)).toMatch(/Choose a date/);
  });
});
