// A batch of span writes worked out in memory, so a sink can store it with a
// few multi-row statements: given what is stored for the batch's spans, which
// version of each span ends up stored and what counts in the rollups, exactly
// as writing the spans one by one, in order, would have left it:
// - a model call (chat) is inserted if no span of its id is stored, else left
//   alone; it counts (CostRollup and SpanRollup) only when inserted;
// - any other span replaces the stored one, except that an ended tool or
//   request span is never reopened by an open version of it (KEEPS_ENDED);
// - a tool or request span counts in SpanRollup when it is written ended over
//   nothing or over an open version, once;
// - a run span sets its run's cost, the last one written winning.
import { spanKey, spanRollupKey } from "./span-rows";
import type { SpanRecord } from "./types";

/** What is stored of a span before the batch, by spanKey. */
export interface StoredSpan {
  kind: string;
  ended: boolean;
}

export interface BatchPlan {
  /** The version of each span the batch leaves stored, one per span (spanKey); spans the batch leaves as they were are not here. */
  rows: SpanRecord[];
  /** Model calls the batch inserted: they count in CostRollup. */
  calls: SpanRecord[];
  /** Spans that count in SpanRollup: the model calls inserted and the tool and request spans ended. */
  ended: SpanRecord[];
  /** Each run's cost from its last run span in the batch. */
  runCosts: Map<string, number>;
}

const COUNTS_WHEN_ENDED = new Set(["execute_tool", "human_request"]);

export function planBatch(spans: SpanRecord[], stored: ReadonlyMap<string, StoredSpan>): BatchPlan {
  const state = new Map(stored);
  const rows = new Map<string, SpanRecord>();
  const calls: SpanRecord[] = [];
  const ended: SpanRecord[] = [];
  const runCosts = new Map<string, number>();
  for (const s of spans) {
    const key = spanKey(s);
    const before = state.get(key);
    if (s.kind === "chat") {
      if (before) continue;
      rows.set(key, s);
      state.set(key, { kind: s.kind, ended: s.endTime !== null });
      calls.push(s);
      ended.push(s);
      continue;
    }
    const reopens = before !== undefined && COUNTS_WHEN_ENDED.has(before.kind) && before.ended && s.endTime === null;
    if (!reopens) {
      rows.set(key, s);
      state.set(key, { kind: s.kind, ended: s.endTime !== null });
    }
    if (s.kind === "run") runCosts.set(s.runId, s.costUsd);
    if (COUNTS_WHEN_ENDED.has(s.kind) && s.endTime !== null && !before?.ended) ended.push(s);
  }
  return { rows: [...rows.values()], calls, ended, runCosts };
}

/** Sums per key, in key order (the order rollup rows are locked in on PostgreSQL). */
export function sumsBy<K extends unknown[], V extends Record<string, number>>(
  items: SpanRecord[],
  key: (s: SpanRecord) => K,
  value: (s: SpanRecord) => V,
): Array<[K, V]> {
  const sums = new Map<string, [K, V]>();
  for (const s of items) {
    const k = key(s);
    const v = value(s);
    const id = JSON.stringify(k);
    const entry = sums.get(id);
    if (!entry) sums.set(id, [k, v]);
    else for (const name of Object.keys(v) as Array<keyof V>) (entry[1][name] as number) += v[name];
  }
  return [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, entry]) => entry);
}

/** CostRollup deltas of model calls: [day, teamId, workflowId, model] and the sums. */
export const costSums = (calls: SpanRecord[]) =>
  sumsBy(
    calls,
    (s) => [s.startTime.toISOString().slice(0, 10), s.teamId ?? "", s.workflowId, s.model ?? ""],
    (s) => ({
      calls: 1,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      cachedInputTokens: s.cachedInputTokens,
      costUsd: s.costUsd,
    }),
  );

/** SpanRollup deltas of ended spans: [day, kind, name, bucket] and the counts. */
export const endedSums = (ended: SpanRecord[]) => sumsBy(ended, spanRollupKey, (s) => ({ count: 1, errors: s.status === "error" ? 1 : 0 }));
