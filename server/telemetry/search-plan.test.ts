// The span search reads a filter's own index when it matches few spans and
// walks the time range when it matches many (search.ts, SPARSE): both ways
// must find the same spans, in the same order, page after page, and a filter
// that matches nothing finds nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openNativeSqlite, type NativeSqlite } from "@/server/db";
import { createSqliteTestDb, type TestDb } from "@/test/helpers/db";
import { searchSpans, type SpanSearch } from "./search";
import { SqliteSpanSink } from "./sqlite-sink";
import type { SpanRecord } from "./types";

const NOW = new Date("2026-03-10T12:00:00.000Z");
const admin = { role: "admin" as const, teamIds: [], userId: "u1" };

function span(i: number, over: Partial<SpanRecord> = {}): SpanRecord {
  const startTime = new Date(NOW.getTime() - 3_600_000 - Math.floor(i / 3) * 1000);
  return {
    spanId: `s${String(i).padStart(5, "0")}`,
    traceId: "t",
    parentSpanId: null,
    runId: "r1",
    kind: "chat",
    name: `chat model-${i % 2}`,
    startTime,
    endTime: new Date(startTime.getTime() + 500),
    status: "ok",
    teamId: null,
    workflowId: "wf",
    userId: "u1",
    model: `model-${i % 2}`,
    tool: null,
    inputTokens: 1,
    outputTokens: 1,
    cachedInputTokens: 0,
    costUsd: 0,
    attributes: {},
    detail: null,
    ...over,
  };
}

describe("span search, through an index or along the range", () => {
  let t: TestDb;
  let native: NativeSqlite;
  const spans: SpanRecord[] = [];

  beforeAll(async () => {
    t = await createSqliteTestDb();
    native = openNativeSqlite(t.url);
    native.prepare(`INSERT INTO "User" (id, email, name, passwordHash, role) VALUES ('u1', 'u1@test.local', 'u1', 'x', 'operator')`).run();
    native
      .prepare(
        `INSERT INTO "Run" (id, goal, agentName, agentVersion, createdById, model, updatedAt) VALUES ('r1', 'g', 'a', 1, 'u1', 'm', '2026-03-01T00:00:00.000+00:00')`,
      )
      .run();
    for (let i = 0; i < 2400; i++) spans.push(span(i));
    // A few slow tool calls, and one still open, started 90 s ago.
    for (let i = 0; i < 12; i++)
      spans.push(
        span(5000 + i * 97, {
          kind: "execute_tool",
          name: "execute_tool slow_tool",
          model: null,
          tool: "slow_tool",
          endTime: new Date(NOW.getTime() - 3_000_000 + i),
        }),
      );
    spans.push(
      span(9999, {
        kind: "execute_tool",
        name: "execute_tool slow_tool",
        tool: "slow_tool",
        model: null,
        startTime: new Date(NOW.getTime() - 90_000),
        endTime: null,
        status: "unset",
      }),
    );
    const sink = new SqliteSpanSink(native);
    for (let i = 0; i < spans.length; i += 1000) await sink.write(spans.slice(i, i + 1000), []);
  });
  afterAll(async () => {
    native?.close();
    await t?.cleanup();
  });

  const duration = (s: SpanRecord) => (s.endTime ?? NOW).getTime() - s.startTime.getTime();
  const newestFirst = (a: SpanRecord, b: SpanRecord) => b.startTime.getTime() - a.startTime.getTime() || (a.spanId < b.spanId ? 1 : -1);

  async function everything(filter: SpanSearch): Promise<string[]> {
    const found: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await searchSpans(t.db, admin, { ...filter, cursor, limit: 200 }, NOW);
      found.push(...res.spans.map((s) => s.spanId));
      if (!res.nextCursor) return found;
      cursor = res.nextCursor;
    }
    throw new Error("more than 100 pages");
  }

  it.each<[string, SpanSearch, (s: SpanRecord) => boolean]>([
    ["a name most spans have (walk)", { q: "MODEL-1" }, (s) => s.name.includes("model-1")],
    ["a name few spans have (index)", { q: "slow" }, (s) => s.name.includes("slow")],
    ["a duration most spans have (walk)", { minDurationMs: 400 }, (s) => duration(s) >= 400],
    ["a duration few spans have, and the open span by its time so far (index)", { minDurationMs: 60_000 }, (s) => duration(s) >= 60_000],
    [
      "a maximum duration the open span is within",
      { maxDurationMs: 90_000, q: "slow" },
      (s) => duration(s) <= 90_000 && s.name.includes("slow"),
    ],
    [
      "a maximum duration the open span is over",
      { maxDurationMs: 89_999, q: "slow" },
      (s) => duration(s) <= 89_999 && s.name.includes("slow"),
    ],
    ["name and duration together", { q: "chat", maxDurationMs: 500 }, (s) => s.name.includes("chat") && duration(s) <= 500],
    ["a name nobody has", { q: "no-such-span" }, () => false],
    ["a duration nobody has", { minDurationMs: 10_000_000 }, () => false],
  ])("%s", async (_what, filter, keep) => {
    const expected = spans
      .filter(keep)
      .sort(newestFirst)
      .map((s) => s.spanId);
    expect(await everything(filter)).toEqual(expected);
  });
});
