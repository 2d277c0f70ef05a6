// Spans through the real kernel: a demo run's trace lands in the database in
// batches, its cost agrees with the rollups, and re-projecting after a crash
// (tracedSeq behind lastSeq) changes nothing. The same cases on SQLite and
// on PostgreSQL.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dbDialect } from "@/server/db";
import { createRun } from "@/server/kernel";
import { Pruner, saveRetentionSettings } from "@/server/retention";
import { getSpanDetail, listRunSpans } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const DATABASES = [
  { name: "SQLite", database: "sqlite" as const },
  { name: "PostgreSQL", database: "postgres" as const },
];

describe.each(DATABASES)("on $name", ({ database }) => {
  let tk: TestKernel;
  beforeEach(async () => {
    tk = await createTestKernel({ telemetry: true, database });
    expect(dbDialect(tk.t.db)).toBe(database);
  });
  afterEach(async () => {
    await tk?.cleanup();
  });

  async function finishedRun() {
    await tk.t.db.modelPrice.create({ data: { model: "scripted/demo-coder", inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 } });
    await tk.telemetry!.telemetry.loadPrices();
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await tk.telemetry!.settle();
    return run.id;
  }

  describe("telemetry through the kernel", () => {
    it("stores the run's trace: every model call and tool call a span, with team and workflow, cost summed", async () => {
      const runId = await finishedRun();
      const { spans } = await listRunSpans(tk.t.db, runId);
      const events = await tk.kernel.store.listEvents(runId, 0, 10_000);
      expect(spans.filter((s) => s.kind === "chat")).toHaveLength(events.filter((e) => e.type === "model.turn").length);
      expect(spans.filter((s) => s.kind === "execute_tool")).toHaveLength(events.filter((e) => e.type === "tool.result").length);
      for (const s of spans) {
        expect(s.attributes).toHaveProperty(["rein.team_id"]);
        expect(s.attributes["rein.workflow_id"]).toBe("demo-coder");
      }
      const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
      const chatCost = spans.filter((s) => s.kind === "chat").reduce((n, s) => n + s.costUsd, 0);
      expect(chatCost).toBeGreaterThan(0);
      expect(run.costUsd).toBeCloseTo(chatCost, 8);
      expect(run.tracedSeq).toBe(run.lastSeq);
      const rollups = await tk.t.db.costRollup.findMany();
      expect(rollups).toHaveLength(1);
      expect(rollups[0]).toMatchObject({
        workflowId: "demo-coder",
        model: "scripted/demo-coder",
        calls: spans.filter((s) => s.kind === "chat").length,
      });
      expect(rollups[0].costUsd).toBeCloseTo(chatCost, 8);
    });

    it("counts an eval trial under its experiment's workflow, not its agent's", async () => {
      const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator, {
        workflow: "eval:demo-coding",
      });
      expect(await tk.settle(run.id)).toBe("succeeded");
      await tk.telemetry!.settle();
      const { spans } = await listRunSpans(tk.t.db, run.id);
      expect(spans.length).toBeGreaterThan(0);
      for (const s of spans) expect(s.attributes["rein.workflow_id"]).toBe("eval:demo-coding");
      expect((await tk.t.db.costRollup.findMany()).map((r) => r.workflowId)).toEqual(["eval:demo-coding"]);
    });

    it("counts every ended model call and tool call once in the span rollups (latency buckets, errors)", async () => {
      const runId = await finishedRun();
      const { spans } = await listRunSpans(tk.t.db, runId);
      const rows = await tk.t.db.spanRollup.findMany();
      const total = (kind: string) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.count, 0);
      expect(total("chat")).toBe(spans.filter((s) => s.kind === "chat").length);
      expect(total("execute_tool")).toBe(spans.filter((s) => s.kind === "execute_tool").length);
      const shell = rows.filter((r) => r.kind === "execute_tool" && r.name === "shell");
      expect(shell.reduce((n, r) => n + r.count, 0)).toBe(spans.filter((s) => s.tool === "shell").length);
      for (const r of rows) expect(r.bucket).toBeGreaterThanOrEqual(0);
    });

    it("projecting a run again (as after a crash) rebuilds nothing twice", async () => {
      const runId = await finishedRun();
      const before = {
        spans: await tk.t.db.span.count(),
        rollup: await tk.t.db.costRollup.findFirstOrThrow(),
        spanRollup: await tk.t.db.spanRollup.findMany({ orderBy: [{ kind: "asc" }, { name: "asc" }, { bucket: "asc" }] }),
      };
      await tk.t.db.run.update({ where: { id: runId }, data: { tracedSeq: 0 } });
      // A lost batch: the spans it held are gone (what it counted in rollups was lost with it).
      await tk.t.db.span.deleteMany({ where: { runId, kind: { in: ["run", "invoke_agent"] } } });
      expect(await tk.telemetry!.telemetry.catchUp()).toBe(1);
      expect(await tk.t.db.span.count()).toBe(before.spans);
      expect(await tk.t.db.costRollup.findFirstOrThrow()).toEqual(before.rollup);
      expect(await tk.t.db.spanRollup.findMany({ orderBy: [{ kind: "asc" }, { name: "asc" }, { bucket: "asc" }] })).toEqual(
        before.spanRollup,
      );
      expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).tracedSeq).toBeGreaterThan(0);
    });
  });

  describe("retention of span detail", () => {
    it("drops inputs and outputs of spans older than the setting; spans, costs and rollups stay", async () => {
      const runId = await finishedRun();
      const { spans } = await listRunSpans(tk.t.db, runId);
      const tool = spans.find((s) => s.kind === "execute_tool")!;
      expect(await getSpanDetail(tk.t.db, runId, tool.spanId)).not.toBeNull();
      await expect(saveRetentionSettings(tk.t.db, { spanDetail: 0 }, { id: "admin", name: "Admin" })).rejects.toThrow("at least 1 day");
      // Only span detail goes in this test.
      const keep = { events: null, terminal: null, checkpoints: null, snapshots: null, workspaces: null, spans: null };
      await saveRetentionSettings(tk.t.db, { ...keep, spanDetail: 7 }, { id: tk.actors.admin.userId, name: "Admin" });
      const rollup = await tk.t.db.costRollup.findFirstOrThrow();
      const pruner = (at: Date) => new Pruner({ db: tk.t.db, dataDir: tk.t.dir, databaseUrl: tk.t.url, now: () => at });
      expect((await pruner(new Date()).pass())!.dropped.spanDetail).toBeUndefined();
      const withDetail = spans.filter((s) => s.kind === "chat" || s.kind === "execute_tool").length;
      expect((await pruner(new Date(Date.now() + 8 * 86_400_000)).pass())!.dropped.spanDetail).toBe(withDetail);
      expect(await getSpanDetail(tk.t.db, runId, tool.spanId)).toBeNull();
      expect((await listRunSpans(tk.t.db, runId)).spans).toHaveLength(spans.length);
      expect(await tk.t.db.costRollup.findFirstOrThrow()).toEqual(rollup);
    });
  });
});
