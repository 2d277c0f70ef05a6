import { describe, expect, it } from "vitest";
import {
  ancestorIds,
  barOf,
  buildTraceTree,
  collapsibleSpanIds,
  durationOf,
  flattenTrace,
  groupAttributes,
  traceAxis,
  traceTotals,
  type TraceSpanLike,
  type TraceTree,
} from "./trace-tree";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const span = (spanId: string, parentSpanId: string | null, start: number, end: number | null): TraceSpanLike => ({
  spanId,
  parentSpanId,
  startTime: new Date(T0 + start),
  endTime: end === null ? null : new Date(T0 + end),
});

/** run > agent > (chat1, tool1 > human, chat2); tool2 open under the run. */
function small() {
  return [
    span("run", null, 0, 1000),
    span("agent", "run", 10, 900),
    span("chat1", "agent", 10, 200),
    span("tool1", "agent", 210, 500),
    span("human", "tool1", 220, 480),
    span("chat2", "agent", 510, 890),
    span("tool2", "run", 950, null),
  ];
}

const ids = (tree: TraceTree, collapsed: Iterable<string> = []) =>
  flattenTrace(tree, new Set(collapsed)).rows.map((r) => `${"  ".repeat(r.depth)}${tree.spans[r.index].spanId}`);

describe("buildTraceTree and flattenTrace", () => {
  it("puts children under their parent in start order, depth first", () => {
    const tree = buildTraceTree(small());
    expect(ids(tree)).toEqual(["run", "  agent", "    chat1", "    tool1", "      human", "    chat2", "  tool2"]);
    const { rows, rowOf } = flattenTrace(tree, new Set());
    expect(rows[0]).toEqual({ index: 0, depth: 0, hasChildren: true, expanded: true });
    expect(rows[2]).toMatchObject({ hasChildren: false, expanded: false });
    expect(rowOf.get("chat2")).toBe(5);
  });

  it("orders siblings by start even when the spans arrive out of order", () => {
    const spans = small();
    const tree = buildTraceTree([spans[0], spans[5], spans[3], spans[6], spans[1], spans[4], spans[2]]);
    expect(ids(tree)).toEqual(["run", "  agent", "    chat1", "    tool1", "      human", "    chat2", "  tool2"]);
  });

  it("hides what is under a collapsed span and keeps the span itself", () => {
    const tree = buildTraceTree(small());
    expect(ids(tree, ["tool1"])).toEqual(["run", "  agent", "    chat1", "    tool1", "    chat2", "  tool2"]);
    expect(ids(tree, ["agent"])).toEqual(["run", "  agent", "  tool2"]);
    expect(ids(tree, collapsibleSpanIds(tree))).toEqual(["run"]);
    expect([...collapsibleSpanIds(tree)].sort()).toEqual(["agent", "run", "tool1"]);
    const { rows } = flattenTrace(tree, new Set(["agent"]));
    expect(rows[1]).toMatchObject({ hasChildren: true, expanded: false });
    // Collapsing a leaf changes nothing.
    expect(ids(tree, ["chat1"])).toEqual(ids(tree));
  });

  it("shows spans whose parent is missing (a truncated trace) as roots", () => {
    const tree = buildTraceTree([span("a", "gone", 5, 6), span("run", null, 0, 10), span("b", "a", 6, 7)]);
    expect(ids(tree)).toEqual(["run", "a", "  b"]);
  });

  it("cuts a parent cycle and a self-parent instead of losing or repeating spans", () => {
    const tree = buildTraceTree([span("x", "y", 0, 1), span("y", "x", 1, 2), span("self", "self", 2, 3)]);
    const rows = ids(tree);
    expect(rows).toEqual(["x", "  y", "self"]);
  });

  it("finds the ancestors of a span, nearest first", () => {
    const tree = buildTraceTree(small());
    expect(ancestorIds(tree, "human")).toEqual(["tool1", "agent", "run"]);
    expect(ancestorIds(tree, "run")).toEqual([]);
    expect(ancestorIds(tree, "nope")).toEqual([]);
  });

  it("is empty for an empty trace", () => {
    const tree = buildTraceTree([]);
    expect(flattenTrace(tree, new Set()).rows).toEqual([]);
    expect(traceAxis(tree, T0)).toEqual({ start: T0, end: T0 + 1 });
  });

  it("flattens a 10,000-span trace: every span once, each after its parent, subtrees contiguous", () => {
    // A deterministic random tree: each span's parent is an earlier span.
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const N = 10_000;
    const spans: TraceSpanLike[] = [span("s0", null, 0, N * 10)];
    for (let i = 1; i < N; i++) spans.push(span(`s${i}`, `s${Math.floor(rand() * i)}`, i * 5, rand() < 0.01 ? null : i * 5 + 3));
    const tree = buildTraceTree(spans);
    const { rows, rowOf } = flattenTrace(tree, new Set());
    expect(rows).toHaveLength(N);
    expect(new Set(rows.map((r) => r.index)).size).toBe(N);
    const subtreeSize = new Array<number>(N).fill(1);
    for (let i = N - 1; i > 0; i--) subtreeSize[tree.parent[i]] += subtreeSize[i];
    const wrong: string[] = [];
    rows.forEach((row, at) => {
      const p = tree.parent[row.index];
      if (p === -1) return void (row.depth !== 0 && wrong.push(`root s${row.index} at depth ${row.depth}`));
      const parentRow = rowOf.get(`s${p}`)!;
      if (!(parentRow < at)) wrong.push(`s${row.index} above its parent`);
      if (row.depth !== rows[parentRow].depth + 1) wrong.push(`s${row.index} at depth ${row.depth}`);
      // Everything under the parent sits right below it.
      if (!(at < parentRow + subtreeSize[p])) wrong.push(`s${row.index} outside its parent's subtree`);
    });
    expect(wrong).toEqual([]);

    // Collapsing a big subtree hides exactly its descendants.
    const big = rows.filter((r) => r.depth === 1).reduce((a, b) => (subtreeSize[b.index] > subtreeSize[a.index] ? b : a));
    const collapsed = flattenTrace(tree, new Set([`s${big.index}`]));
    expect(collapsed.rows).toHaveLength(N - subtreeSize[big.index] + 1);
    expect(flattenTrace(tree, collapsibleSpanIds(tree)).rows).toHaveLength(1);
  });

  it("handles a 10,000-deep chain without recursion", () => {
    const spans = Array.from({ length: 10_000 }, (_, i) => span(`c${i}`, i ? `c${i - 1}` : null, i, i + 1));
    const { rows } = flattenTrace(buildTraceTree(spans), new Set());
    expect(rows[9_999]).toMatchObject({ index: 9_999, depth: 9_999 });
  });
});

describe("waterfall layout", () => {
  it("places bars on the trace's time axis", () => {
    const tree = buildTraceTree(small());
    const now = T0 + 2000;
    const axis = traceAxis(tree, now);
    expect(axis).toEqual({ start: T0, end: T0 + 2000 });
    expect(barOf(tree, 0, axis, now)).toEqual({ left: 0, width: 0.5, open: false });
    expect(barOf(tree, tree.indexOf.get("tool1")!, axis, now)).toEqual({ left: 0.105, width: 0.145, open: false });
    // An open span runs to now, the end of the axis.
    expect(barOf(tree, tree.indexOf.get("tool2")!, axis, now)).toEqual({ left: 0.475, width: 0.525, open: true });
    expect(durationOf(tree, tree.indexOf.get("tool2")!, now)).toBe(1050);
    expect(durationOf(tree, 0, now)).toBe(1000);
  });

  it("for a finished trace, open spans stop at the run's end, and bars stay inside the axis", () => {
    const spans = [span("run", null, 0, 1000), span("late", "run", 400, null), span("zero", "run", 300, 300)];
    const tree = buildTraceTree(spans);
    const axis = traceAxis(tree, T0 + 1000);
    expect(axis).toEqual({ start: T0, end: T0 + 1000 });
    expect(barOf(tree, 1, axis, T0 + 1000)).toEqual({ left: 0.4, width: 0.6, open: true });
    expect(barOf(tree, 2, axis, T0 + 1000)).toEqual({ left: 0.3, width: 0, open: false });
    // A clock behind the spans never gives a negative width.
    expect(barOf(tree, 1, axis, T0).width).toBe(0);
  });
});

describe("totals and attributes", () => {
  const costed = (kind: string, parentSpanId: string | null, costUsd: number, inputTokens: number) => ({
    kind,
    parentSpanId,
    costUsd,
    inputTokens,
    outputTokens: 1,
    cachedInputTokens: 2,
  });

  it("takes the run's totals from its run span, or sums the model calls without one", () => {
    expect(traceTotals([costed("run", null, 0.5, 300), costed("chat", "run", 0.2, 100), costed("chat", "run", 0.3, 200)])).toEqual({
      costUsd: 0.5,
      inputTokens: 300,
      outputTokens: 1,
      cachedInputTokens: 2,
    });
    const sum = traceTotals([costed("chat", "x", 0.25, 100), costed("execute_tool", "x", 9, 9), costed("chat", "x", 0.5, 200)]);
    expect(sum).toEqual({ costUsd: 0.75, inputTokens: 300, outputTokens: 2, cachedInputTokens: 4 });
    expect(traceTotals([])).toEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 });
  });

  it("groups attributes as gen_ai.*, rein.*, then the rest, sorted", () => {
    const groups = groupAttributes({
      "rein.run_id": "r",
      "error.type": "X",
      "gen_ai.tool.name": "shell",
      "gen_ai.operation.name": "execute_tool",
      "rein.cost_usd": 0,
    });
    expect(groups).toEqual([
      {
        name: "gen_ai",
        entries: [
          ["gen_ai.operation.name", "execute_tool"],
          ["gen_ai.tool.name", "shell"],
        ],
      },
      {
        name: "rein",
        entries: [
          ["rein.cost_usd", 0],
          ["rein.run_id", "r"],
        ],
      },
      { name: "other", entries: [["error.type", "X"]] },
    ]);
    expect(groupAttributes({})).toEqual([]);
  });
});
