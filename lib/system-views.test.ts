import { describe, expect, it } from "vitest";
import { beatAgo, figure, lagWords, summary, type ProcessRowView } from "./system-views";

const NOW = Date.parse("2026-03-12T10:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function row(over: Partial<ProcessRowView>): ProcessRowView {
  return {
    id: "h:1:a",
    role: "worker",
    host: "h",
    pid: 1,
    version: "1.0.0",
    startedAt: ago(60_000),
    heartbeatAt: ago(1000),
    stoppedAt: null,
    runsOwned: 0,
    leaseRenewals: 0,
    queueDepth: null,
    lagMs: null,
    lastError: null,
    alive: true,
    state: "running",
    self: false,
    ...over,
  };
}

describe("beatAgo", () => {
  it.each([
    [0, "0 s ago"],
    [2_400, "2 s ago"],
    [59_999, "59 s ago"],
    [60_000, "1 min ago"],
    [3_599_000, "59 min ago"],
    [2 * 3_600_000, "2 h ago"],
  ])("%i ms -> %s", (ms, words) => expect(beatAgo(ago(ms), NOW)).toBe(words));

  it("a clock a little ahead of the browser's reads 0 s, never negative", () => {
    expect(beatAgo(ago(-1500), NOW)).toBe("0 s ago");
  });
});

describe("figures", () => {
  it("shows a dash where a process reports nothing, and zero as zero", () => {
    expect(figure(null)).toBe("—");
    expect(figure(0)).toBe("0");
    expect(lagWords(null)).toBe("—");
    expect(lagWords(240)).toBe("240 ms");
  });
});

describe("summary", () => {
  it("one process", () => {
    expect(summary([row({ role: "all" })])).toBe("1 process: 1 all-in-one");
  });

  it("counts live processes by role, then the silent and the stopped", () => {
    const rows = [
      row({ role: "web" }),
      row({ role: "worker" }),
      row({ role: "worker", alive: false, state: "not responding" }),
      row({ role: "worker", alive: false, state: "stopped", stoppedAt: ago(5000) }),
    ];
    expect(summary(rows)).toBe("3 processes: 1 web, 2 workers · 1 not responding · 1 stopped in the last day");
  });

  it("nothing registered", () => {
    expect(summary([])).toBe("0 processes");
  });
});
