import { describe, expect, it } from "vitest";
import { InflightCalls } from "./inflight";

describe("InflightCalls", () => {
  it("cancels a call only for the person who made it, by its exact id", () => {
    const calls = new InflightCalls();
    const call = calls.track("user-a", 7, new AbortController().signal);
    expect(calls.cancel("user-b", 7)).toBe(false);
    expect(calls.cancel("user-a", "7")).toBe(false);
    expect(calls.cancel("user-a", 8)).toBe(false);
    expect(call.signal.aborted).toBe(false);
    expect(calls.cancel("user-a", 7)).toBe(true);
    expect(call.signal.aborted).toBe(true);
  });

  it("follows the request's own signal, and forgets a call once released", () => {
    const calls = new InflightCalls();
    const request = new AbortController();
    const call = calls.track("user-a", "x", request.signal);
    request.abort();
    expect(call.signal.aborted).toBe(true);
    call.release();
    expect(calls.size).toBe(0);
    expect(calls.cancel("user-a", "x")).toBe(false);
  });

  it("a released call's id can be used again without touching the new call", () => {
    const calls = new InflightCalls();
    const first = calls.track("user-a", 1, new AbortController().signal);
    const second = calls.track("user-a", 1, new AbortController().signal);
    first.release();
    expect(calls.cancel("user-a", 1)).toBe(true);
    expect(second.signal.aborted).toBe(true);
  });
});
