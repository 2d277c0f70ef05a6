// Reading a run's trace a page at a time and what changed since a watermark
// (traces.page, traces.changes): pages return every span once in start order,
// ties by id; changes after a watermark hold every span created or changed
// since (new, ended, ended earlier than its closing event), never another
// run's span; a bad cursor or watermark is refused or answered with "read it
// again". The same cases on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { Db } from "@/server/db";
import { createSqliteTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { createPgTestDb } from "@/test/helpers/pg";
import { MAX_TRACE_CHANGES, listRunSpans, runSpanChanges, runSpanPage } from "./queries";

const BACKENDS = [
  { name: "SQLite", open: () => createSqliteTestDb() },
  { name: "PostgreSQL", open: () => createPgTestDb(makeTempDir("rein-test-pg-")) },
];

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);

interface Row {
  spanId: string;
  parentSpanId?: string | null;
  kind?: string;
  start: number;
  end?: number | null;
  status?: string;
}

describe.each(BACKENDS)("run trace queries on $name", (backend) => {
  let t: TestDb;
  let db: Db;
  let userId: string;

  beforeAll(async () => {
    t = await backend.open();
    db = t.db;
    userId = (await db.user.create({ data: { email: "trace@test.local", name: "trace", passwordHash: "x", role: "operator" } })).id;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  let runs = 0;
  async function newRun(): Promise<string> {
    const run = await db.run.create({
      data: { id: `run-${++runs}`, goal: "g", agentName: "a", agentVersion: 1, createdById: userId, model: "scripted/x" },
    });
    return run.id;
  }

  /** What a sink does for a batch: the spans, the events they came from, tracedSeq moved on, in one transaction. */
  async function write(runId: string, seq: number, eventAt: number, spans: Row[]) {
    await db.$transaction([
      ...spans.map((s) => {
        const data = {
          traceId: `trace-${runId}`,
          parentSpanId: s.parentSpanId ?? null,
          kind: s.kind ?? "execute_tool",
          name: `${s.kind ?? "execute_tool"} ${s.spanId}`,
          startTime: at(s.start),
          endTime: s.end == null ? null : at(s.end),
          status: s.status ?? (s.end == null ? "unset" : "ok"),
          workflowId: "w",
          attributes: JSON.stringify({ "rein.run_id": runId }),
        };
        return db.span.upsert({
          where: { runId_spanId: { runId, spanId: s.spanId } },
          create: { spanId: s.spanId, runId, ...data },
          update: data,
        });
      }),
      db.runEvent.create({ data: { runId, seq, type: "test", payload: "{}", createdAt: at(eventAt) } }),
      db.run.update({ where: { id: runId }, data: { tracedSeq: seq, lastSeq: seq } }),
    ]);
  }

  const ids = (spans: Array<{ spanId: string }>) => spans.map((s) => s.spanId);

  describe("runSpanPage", () => {
    let runId: string;
    let other: string;
    let expected: string[];
    beforeAll(async () => {
      runId = await newRun();
      // 23 spans, several starting at the same millisecond (ties go by id), written out of order.
      const rows: Row[] = Array.from({ length: 23 }, (_, i) => ({
        spanId: `s${String((i * 7) % 23).padStart(2, "0")}`,
        start: Math.floor(i / 3) * 10,
        end: Math.floor(i / 3) * 10 + 5,
      }));
      await write(runId, 1, 0, rows);
      other = await newRun();
      await write(other, 1, 0, [{ spanId: "x-1", start: 0 }]);
      expected = [...rows].sort((a, b) => a.start - b.start || (a.spanId < b.spanId ? -1 : 1)).map((r) => r.spanId);
    });

    it("returns every span once, in start order with ties by id, across pages", async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await runSpanPage(db, { runId, cursor, limit: 5 });
        expect(page).toMatchObject({ total: 23, watermark: 1, traceId: `trace-${runId}` });
        expect(page.spans.length).toBeLessThanOrEqual(5);
        seen.push(...ids(page.spans));
        cursor = page.next ?? undefined;
        pages++;
      } while (cursor);
      expect(pages).toBe(5);
      expect(seen).toEqual(expected);
      // The same spans as the whole-trace query.
      expect(new Set(ids((await listRunSpans(db, runId)).spans))).toEqual(new Set(expected));
    });

    it("says there is no next page after the last span, also when a page ends exactly there", async () => {
      expect((await runSpanPage(db, { runId, limit: 23 })).next).toBeNull();
      expect((await runSpanPage(db, { runId, limit: 100 })).spans).toHaveLength(23);
    });

    it("returns an empty first page for a run without spans, with its watermark", async () => {
      const empty = await newRun();
      expect(await runSpanPage(db, { runId: empty })).toEqual({ traceId: null, spans: [], next: null, total: 0, watermark: 0 });
    });

    it("never returns another run's spans, whatever the cursor", async () => {
      const first = await runSpanPage(db, { runId, limit: 1 });
      expect(ids((await runSpanPage(db, { runId: other, cursor: first.next! })).spans)).toEqual(["x-1"]);
      expect(ids((await runSpanPage(db, { runId: other })).spans)).toEqual(["x-1"]);
    });

    it.each([
      ["a cursor that is not one", { cursor: "bm90IGEgY3Vyc29y" }, "cursor: is not a cursor from an earlier page of this trace"],
      [
        "a cursor with SQL in it",
        { cursor: Buffer.from("2026-03-01T10:00:00.000+00:00' OR 1=1 --\nx").toString("base64url") },
        "cursor: is not a cursor",
      ],
      ["a page over 2000", { limit: 2001 }, "limit: is at most 2000"],
      ["a page of 0", { limit: 0 }, "limit"],
      ["an unknown parameter", { offset: 5 }, "offset"],
    ])("refuses %s", async (_what, input, message) => {
      const err = await runSpanPage(db, { runId, ...(input as object) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZodError);
      expect((err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")).toContain(message);
    });
  });

  describe("runSpanChanges", () => {
    it("returns the spans created or changed after the watermark, and only those", async () => {
      const runId = await newRun();
      // Event 1 at 10 s: the run and an agent open, a model call ended then, one long before.
      await write(runId, 1, 10_000, [
        { spanId: "run", kind: "run", start: 0 },
        { spanId: "agent-1", kind: "invoke_agent", parentSpanId: "run", start: 100 },
        { spanId: "chat-0", kind: "chat", parentSpanId: "agent-1", start: 100, end: 500 },
        { spanId: "chat-1", kind: "chat", parentSpanId: "agent-1", start: 8000, end: 10_000 },
      ]);
      const page = await runSpanPage(db, { runId });
      expect(page.watermark).toBe(1);
      expect(await runSpanChanges(db, { runId, since: 1 })).toEqual({ reset: false, spans: [], total: 4, watermark: 1 });

      // Events 2 and 3: a tool call starts and ends; a second agent takes over and the first ends
      // when the second's model call started, before the event that says so was written.
      await write(runId, 2, 12_000, [{ spanId: "tool-1", parentSpanId: "agent-1", start: 12_000 }]);
      await write(runId, 3, 15_000, [
        { spanId: "tool-1", parentSpanId: "agent-1", start: 12_000, end: 15_000 },
        { spanId: "agent-1", kind: "invoke_agent", parentSpanId: "run", start: 100, end: 5000 },
        { spanId: "agent-2", kind: "invoke_agent", parentSpanId: "run", start: 5000 },
        { spanId: "chat-2", kind: "chat", parentSpanId: "agent-2", start: 5000, end: 15_000 },
      ]);
      const changes = await runSpanChanges(db, { runId, since: 1, open: ["agent-1"] });
      if (changes.reset) throw new Error("unexpected reset");
      expect(changes.watermark).toBe(3);
      expect(changes.total).toBe(7);
      // The still-open run span comes too, and what ended at event 1 (a superset); what ended long before does not.
      expect(new Set(ids(changes.spans))).toEqual(new Set(["run", "agent-1", "agent-2", "chat-1", "chat-2", "tool-1"]));
      expect(changes.spans.find((s) => s.spanId === "agent-1")!.endTime).toEqual(at(5000));
      expect(changes.spans.find((s) => s.spanId === "tool-1")).toMatchObject({ endTime: at(15_000), status: "ok" });
      // Without asking about agent-1 it is not sent: it ended before event 1's time.
      const unasked = await runSpanChanges(db, { runId, since: 2 });
      expect(unasked.reset === false && ids(unasked.spans)).not.toContain("agent-1");
      // In start order, ties by id.
      const starts = changes.spans.map((s) => s.startTime.getTime());
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    });

    it("sends every span after a watermark of 0 (spans not written yet when the page was read)", async () => {
      const runId = await newRun();
      const page = await runSpanPage(db, { runId });
      expect(page).toMatchObject({ spans: [], watermark: 0 });
      await write(runId, 4, 10, [
        { spanId: `${runId}-a`, start: 0, end: 5 },
        { spanId: `${runId}-b`, start: 1 },
      ]);
      const changes = await runSpanChanges(db, { runId, since: 0 });
      expect(changes).toMatchObject({ reset: false, watermark: 4, total: 2 });
      expect(changes.reset === false && ids(changes.spans)).toEqual([`${runId}-a`, `${runId}-b`]);
    });

    it("never returns another run's span, even when asked about it by id", async () => {
      const mine = await newRun();
      const theirs = await newRun();
      await write(mine, 1, 0, [{ spanId: "mine-1", start: 0, end: 1 }]);
      await write(theirs, 1, 0, [{ spanId: "theirs-1", start: 0 }]);
      await write(mine, 2, 10_000, [{ spanId: "mine-2", start: 10_000, end: 10_001 }]);
      const changes = await runSpanChanges(db, { runId: mine, since: 1, open: ["theirs-1", "mine-1"] });
      expect(changes.reset === false && ids(changes.spans).sort()).toEqual(["mine-1", "mine-2"]);
    });

    it("says read it again when the watermark is ahead of the run's, names no event, or too much changed", async () => {
      const runId = await newRun();
      await write(runId, 2, 0, [{ spanId: `${runId}-a`, start: 0 }]);
      expect(await runSpanChanges(db, { runId, since: 3 })).toEqual({ reset: true });
      await db.runEvent.deleteMany({ where: { runId } });
      await db.run.update({ where: { id: runId }, data: { tracedSeq: 5 } });
      expect(await runSpanChanges(db, { runId, since: 1 })).toEqual({ reset: true });
      expect(await runSpanChanges(db, { runId: "no-such-run", since: 0 })).toEqual({ reset: true });

      const busy = await newRun();
      await write(busy, 1, 0, []);
      await db.span.createMany({
        data: Array.from({ length: MAX_TRACE_CHANGES + 1 }, (_, i) => ({
          spanId: `${busy}-${i}`,
          traceId: "t",
          runId: busy,
          kind: "chat",
          name: "chat",
          startTime: at(1000 + i),
          endTime: at(1001 + i),
          status: "ok",
          workflowId: "w",
          attributes: "{}",
        })),
      });
      await db.run.update({ where: { id: busy }, data: { tracedSeq: 2 } });
      await db.runEvent.create({ data: { runId: busy, seq: 2, type: "test", payload: "{}", createdAt: at(5000) } });
      expect(await runSpanChanges(db, { runId: busy, since: 1 })).toEqual({ reset: true });
    });

    it.each([
      ["a negative watermark", { since: -1 }, "since"],
      ["a watermark that is not a whole number", { since: 1.5 }, "since"],
      ["too many open spans", { since: 0, open: Array.from({ length: 201 }, (_, i) => `s${i}`) }, "open: at most 200 open spans"],
      ["an open span id over 64 characters", { since: 0, open: ["x".repeat(65)] }, "open.0"],
    ])("refuses %s", async (_what, input, message) => {
      const err = await runSpanChanges(db, { runId: "run-1", ...(input as { since: number }) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ZodError);
      expect((err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")).toContain(message);
    });
  });
});
