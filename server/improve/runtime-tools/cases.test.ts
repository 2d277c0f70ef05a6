import { describe, expect, it } from "vitest";
import { storedCaseRun } from "./cases";

describe("storedCaseRun", () => {
  const run = {
    passed: 1,
    failed: 1,
    results: [
      { name: "adds", passed: true, message: "as expected", durationMs: 3.2 },
      { name: "refuses text", passed: false, message: "expected an error, got 3", durationMs: 1 },
    ],
    summary: "1 of 2 trigger cases pass.",
  };

  it("reads the results the gate stored", () => {
    expect(storedCaseRun(JSON.stringify(run))).toEqual(run);
  });

  it("is null for none, for text that is not JSON, and for JSON of another shape", () => {
    expect(storedCaseRun(null)).toBeNull();
    expect(storedCaseRun("")).toBeNull();
    expect(storedCaseRun("{not json")).toBeNull();
    expect(storedCaseRun(JSON.stringify({ summary: "no counts" }))).toBeNull();
    expect(storedCaseRun(JSON.stringify({ ...run, results: [{ name: "x" }] }))).toBeNull();
  });
});
