import { describe, expect, it } from "vitest";
import { runDuration } from "./run-duration";
import { ariaSort, cancelSummary, nextSort, parseDay, parseSort, rangeErrors, rangeQuery, tagFilter } from "./run-list";
import { parseTags } from "./run-tags";

describe("sort in the URL", () => {
  it.each([
    [null, null, { sort: "created", dir: "desc" }],
    ["cost", null, { sort: "cost", dir: "desc" }],
    ["goal", null, { sort: "goal", dir: "asc" }],
    ["cost", "asc", { sort: "cost", dir: "asc" }],
    ["secret", "asc", { sort: "created", dir: "asc" }],
    ["cost", "sideways", { sort: "cost", dir: "desc" }],
  ])("sort=%s dir=%s reads %j", (sort, dir, want) => expect(parseSort(sort, dir)).toEqual(want));

  it("a header click flips its own column and starts another at its natural direction", () => {
    expect(nextSort({ sort: "cost", dir: "desc" }, "cost")).toEqual({ sort: "cost", dir: "asc" });
    expect(nextSort({ sort: "cost", dir: "asc" }, "cost")).toEqual({ sort: "cost", dir: "desc" });
    expect(nextSort({ sort: "cost", dir: "asc" }, "agent")).toEqual({ sort: "agent", dir: "asc" });
    expect(nextSort({ sort: "agent", dir: "asc" }, "steps")).toEqual({ sort: "steps", dir: "desc" });
  });

  it("aria-sort names only the sorted column", () => {
    expect(ariaSort({ sort: "cost", dir: "asc" }, "cost")).toBe("ascending");
    expect(ariaSort({ sort: "cost", dir: "desc" }, "cost")).toBe("descending");
    expect(ariaSort({ sort: "cost", dir: "desc" }, "goal")).toBe("none");
  });
});

describe("date range", () => {
  it("reads only real calendar days", () => {
    expect(parseDay("2026-02-28")?.getDate()).toBe(28);
    expect(parseDay("2026-02-30")).toBeNull();
    expect(parseDay("2026-2-3")).toBeNull();
    expect(parseDay("yesterday")).toBeNull();
  });

  it("names a bad value under its own field and a reversed range under the end", () => {
    expect(rangeErrors("", "")).toEqual({});
    expect(rangeErrors("2026-11-01", "2026-11-01")).toEqual({});
    expect(rangeErrors("nope", "")).toEqual({ from: "Not a date; use YYYY-MM-DD" });
    expect(rangeErrors("", "2026-13-01")).toEqual({ to: "Not a date; use YYYY-MM-DD" });
    expect(rangeErrors("2026-11-05", "2026-11-01")).toEqual({ to: "The end date is before the start date" });
  });

  it("queries from the start of the first day to the end of the last", () => {
    const q = rangeQuery("2026-11-01", "2026-11-01");
    expect(new Date(q.from!).getTime()).toBe(new Date(2026, 10, 1).getTime());
    expect(new Date(q.to!).getTime()).toBe(new Date(2026, 10, 2).getTime() - 1);
    expect(rangeQuery("", "")).toEqual({});
  });
});

describe("tags", () => {
  it("split on commas and spaces, lowercased, without repeats", () => {
    expect(parseTags("Bug, nightly  bug,,eval")).toEqual({ tags: ["bug", "nightly", "eval"], error: null });
    expect(parseTags("")).toEqual({ tags: [], error: null });
  });

  it("name the first tag that cannot be used", () => {
    expect(parseTags("ok <b>").error).toBe('"<b>" may hold only letters, digits and - _ . :');
    expect(parseTags("x".repeat(33)).error).toMatch(/longer than 32 characters/);
    expect(parseTags(Array.from({ length: 11 }, (_, i) => `t${i}`).join(" ")).error).toBe("A run has at most 10 tags; this is 11");
    expect(tagFilter(" Nightly ")).toEqual({ tag: "nightly", error: null });
    expect(tagFilter("a b").error).toMatch(/may hold only/);
  });
});

describe("bulk cancel summary", () => {
  it("counts each outcome in words", () => {
    const o = (outcome: "canceled" | "ended" | "not_found" | "forbidden") => ({ id: "x", outcome });
    expect(cancelSummary([o("canceled"), o("canceled"), o("canceled"), o("ended")])).toBe("3 canceled, 1 had already ended");
    expect(cancelSummary([o("not_found"), o("forbidden")])).toBe("1 was not found, 1 you may not cancel");
    expect(cancelSummary([])).toBe("Nothing to cancel");
  });
});

describe("runDuration", () => {
  const started = new Date(1_000_000);
  it("counts up for every run that started and has not ended, waiting ones too", () => {
    for (const status of ["running", "paused", "waiting_human"] as const)
      expect(runDuration({ status, startedAt: started, durationMs: null }, 1_060_000)).toBe(60_000);
  });
  it("shows the recorded figure once ended, and none before a start", () => {
    expect(runDuration({ status: "succeeded", startedAt: started, durationMs: 5000 }, 9_999_999)).toBe(5000);
    expect(runDuration({ status: "queued", startedAt: null, durationMs: null }, 9_999_999)).toBeNull();
  });
});
