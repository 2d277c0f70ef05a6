import { describe, expect, it } from "vitest";
import { EMPTY_TRACE_LIST_FILTERS, parseDay, traceListQuery, type TraceListFilters } from "./trace-list-filters";

const NOW = new Date("2026-03-15T12:00:00Z").getTime();
const read = (patch: Partial<TraceListFilters>) => traceListQuery({ ...EMPTY_TRACE_LIST_FILTERS, ...patch }, NOW);

describe("traceListQuery", () => {
  it("defaults to the last 7 days, newest first", () => {
    expect(read({})).toEqual({ query: { from: new Date(NOW - 7 * 86_400_000).toISOString(), sort: "time", order: "desc" }, errors: {} });
  });

  it("reads every filter it can", () => {
    const { query, errors } = read({
      agent: " demo-coder ",
      status: "failed,canceled",
      user: "u1",
      q: " fizz ",
      minDuration: "2.5",
      range: "24h",
      sort: "cost",
      order: "asc",
    });
    expect(errors).toEqual({});
    expect(query).toEqual({
      agent: "demo-coder",
      status: ["failed", "canceled"],
      userId: "u1",
      q: "fizz",
      minDurationMs: 2500,
      from: new Date(NOW - 86_400_000).toISOString(),
      sort: "cost",
      order: "asc",
    });
  });

  it.each([
    [{ minDuration: "abc" }, "minDuration", '"abc" is not a number of seconds: type one such as 2.5'],
    [{ minDuration: "-1" }, "minDuration", '"-1" is not a number of seconds: type one such as 2.5'],
    [{ minDuration: "1e9" }, "minDuration", '"1e9" is not a number of seconds: type one such as 2.5'],
    [{ minDuration: "3000000" }, "minDuration", "At most 30 days (2,592,000 seconds)"],
    [{ status: "done" }, "status", 'Unknown status "done": pick one from the list'],
    [{ from: "yesterday" }, "from", '"yesterday" is not a date: use 2026-03-01 or 2026-03-01T12:00'],
    [{ from: "2026-02-30" }, "from", '"2026-02-30" is not a date: use 2026-03-01 or 2026-03-01T12:00'],
    [{ to: "2026-13-01" }, "to", '"2026-13-01" is not a date: use 2026-03-01 or 2026-03-01T12:00'],
    [{ from: "2026-03-10", to: "2026-03-01" }, "to", "The range ends before it starts"],
    [{ from: "2026-01-01", to: "2026-03-01" }, "to", "The range is at most 31 days"],
    [{ from: "2025-01-01" }, "from", "The range is at most 31 days: give a To date too, or a later From date"],
  ] as Array<[Partial<TraceListFilters>, string, string]>)(
    "%j: a message under %s, and the bad value is left out",
    (patch, field, message) => {
      const { query, errors } = read({ ...patch, agent: "kept" });
      expect(errors).toEqual({ [field]: message });
      expect(query.agent).toBe("kept");
      expect(query.minDurationMs).toBeUndefined();
      expect(query.status).toBeUndefined();
      expect(query.to).toBeUndefined();
      expect(new Date(query.from).getTime()).toBe(NOW - 7 * 86_400_000);
    },
  );

  it("dates replace the range: from and to, or to alone looking back a week", () => {
    expect(read({ from: "2026-03-01", to: "2026-03-02T06:30" }).query).toMatchObject({
      from: new Date("2026-03-01T00:00:00").toISOString(),
      to: new Date("2026-03-02T06:30").toISOString(),
    });
    const { query } = read({ to: "2026-03-10" });
    expect(query.to).toBe(new Date("2026-03-10T23:59:59.999").toISOString());
    expect(new Date(query.to!).getTime() - new Date(query.from).getTime()).toBe(7 * 86_400_000);
  });

  it("parses days as local dates, the end of the day for to", () => {
    expect(parseDay("2026-03-01", false)?.getHours()).toBe(0);
    expect(parseDay("2026-03-01", true)?.getHours()).toBe(23);
    expect(parseDay("01/03/2026", false)).toBeNull();
  });
});
