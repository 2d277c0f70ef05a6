// The Trace tab's loaded window of a trace: pages add spans, changes replace
// them in place, a new span beyond the loaded pages waits for its page, and
// the tree built from the window is right whichever arrives first, parent or child.
import { describe, expect, it } from "vitest";
import { buildTraceTree, flattenTrace } from "./trace-tree";
import { addPage, applyChanges, emptyWindow, openSpanIds, type TraceWindow, type WindowSpan } from "./trace-window";

const T0 = Date.parse("2026-03-01T10:00:00Z");

function span(
  spanId: string,
  parentSpanId: string | null,
  start: number,
  end: number | null = start + 5,
  over: Partial<WindowSpan> = {},
): WindowSpan {
  return {
    spanId,
    parentSpanId,
    startTime: new Date(T0 + start),
    endTime: end === null ? null : new Date(T0 + end),
    status: end === null ? "unset" : "ok",
    name: spanId,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: 0,
    attributes: {},
    ...over,
  };
}

const ids = (w: TraceWindow<WindowSpan>) => w.spans.map((s) => s.spanId);
/** The rows the tree shows, as "depth:id". */
const rows = (w: TraceWindow<WindowSpan>) => {
  const tree = buildTraceTree(w.spans);
  return flattenTrace(tree, new Set()).rows.map((r) => `${r.depth}:${tree.spans[r.index].spanId}`);
};

describe("the trace window", () => {
  const run = span("run", null, 0, null);
  const agent = span("agent", "run", 10, null);
  const chat1 = span("chat-1", "agent", 20, 30);
  const tool1 = span("tool-1", "agent", 40, 50);
  const chat2 = span("chat-2", "agent", 60, 70);

  it("adds pages in order and knows where the loaded range ends", () => {
    let w = addPage(emptyWindow(), [run, agent, chat1], false);
    expect(ids(w)).toEqual(["run", "agent", "chat-1"]);
    expect(w.end).toEqual({ start: T0 + 20, spanId: "chat-1" });
    expect(w.complete).toBe(false);
    w = addPage(w, [tool1, chat2], true);
    expect(ids(w)).toEqual(["run", "agent", "chat-1", "tool-1", "chat-2"]);
    expect(w.complete).toBe(true);
    expect(rows(w)).toEqual(["0:run", "1:agent", "2:chat-1", "2:tool-1", "2:chat-2"]);
  });

  it("replaces a span that changed (an open span that ended) in its place, once", () => {
    const w = addPage(emptyWindow(), [run, agent, chat1, span("tool-1", "agent", 40, null)], true);
    const next = applyChanges(w, [tool1, { ...run, costUsd: 0.5 }]);
    expect(ids(next)).toEqual(["run", "agent", "chat-1", "tool-1"]);
    expect(next.spans[3].endTime).toEqual(tool1.endTime);
    expect(next.spans[0].costUsd).toBe(0.5);
    // The window it came from is untouched (React state).
    expect(w.spans[3].endTime).toBeNull();
  });

  it("returns the same window when the changes hold nothing new (the server sends a superset)", () => {
    const w = addPage(emptyWindow(), [run, agent, chat1], true);
    expect(applyChanges(w, [{ ...chat1 }, { ...run, attributes: {} }])).toBe(w);
    expect(applyChanges(w, [])).toBe(w);
    expect(addPage(w, [], true)).toBe(w);
  });

  it("adds a new span inside the loaded range, and leaves one beyond it for its page", () => {
    let w = addPage(emptyWindow(), [run, agent, tool1], false);
    // chat-1 started before the last loaded span (written after that page was read); chat-2 after it.
    w = applyChanges(w, [chat1, chat2]);
    expect(ids(w)).toEqual(["run", "agent", "tool-1", "chat-1"]);
    expect(rows(w)).toEqual(["0:run", "1:agent", "2:chat-1", "2:tool-1"]);
    w = addPage(w, [chat2], true);
    expect(ids(w)).toEqual(["run", "agent", "tool-1", "chat-1", "chat-2"]);
    // Once every page is in, new spans are added wherever they start.
    w = applyChanges(w, [span("tool-2", "agent", 80, null)]);
    expect(ids(w).at(-1)).toBe("tool-2");
  });

  it("builds the right tree whether a child arrives before or after its parent", () => {
    const request = span("request", "tool-1", 45, null);
    // The request comes in a change set before its parent tool span: it shows at the top level until then.
    let w = addPage(emptyWindow(), [run, agent, chat1], true);
    w = applyChanges(w, [request]);
    expect(rows(w)).toEqual(["0:run", "1:agent", "2:chat-1", "0:request"]);
    w = applyChanges(w, [tool1]);
    expect(rows(w)).toEqual(["0:run", "1:agent", "2:chat-1", "2:tool-1", "3:request"]);
    // And the other way round, parent first.
    let v = addPage(emptyWindow(), [run, agent, chat1, tool1], true);
    v = applyChanges(v, [request]);
    expect(rows(v)).toEqual(rows(w));
  });

  it("orders ties by id, as the server pages", () => {
    const a = span("a", "run", 20);
    const b = span("b", "run", 20);
    let w = addPage(emptyWindow(), [run, a], false);
    expect(w.end).toEqual({ start: T0 + 20, spanId: "a" });
    // "b" starts at the same time as "a" but comes after it: beyond the loaded range.
    w = applyChanges(w, [b]);
    expect(ids(w)).toEqual(["run", "a"]);
  });

  it("names the open spans to ask about, the latest started first, at most as many as asked", () => {
    const w = addPage(emptyWindow(), [run, agent, chat1, span("tool-1", "agent", 40, null)], true);
    expect(openSpanIds(w, 10)).toEqual(["tool-1", "agent", "run"]);
    expect(openSpanIds(w, 2)).toEqual(["tool-1", "agent"]);
  });
});
