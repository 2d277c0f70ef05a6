// Costs agree to the cent (docs/traces-and-costs.md#costs): demo runs through
// the real kernel and telemetry, priced through the prices router (which
// reloads the PriceBook), then costs.summary's totals against the runs' costUsd
// and the chat spans. Reads go through tRPC's createCaller like the Costs page.
// On SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createRun } from "@/server/kernel";
import type { Actor } from "@/server/identity";
import { costOf } from "@/server/telemetry";
import { TEST_DATABASES } from "./helpers/databases";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

describe.each(TEST_DATABASES)("on $name", ({ dialect: database }) => {
  let tk: TestKernel;
  const runIds: string[] = [];

  const cents = (usd: number) => Math.round(usd * 100);
  // Prices large enough that every run costs dollars, with cents that matter.
  const FIRST_PRICE = { inputPerMTok: 1234.567, outputPerMTok: 4321.987, cacheReadPerMTok: 12.5, cacheWritePerMTok: 0 };
  const SECOND_PRICE = { inputPerMTok: 777.77, outputPerMTok: 3333.33 };

  function caller(actor: Actor) {
    return callerFor(tk, actor);
  }

  async function flushed() {
    await tk.kernel.pool.whenIdle();
    await tk.telemetry!.settle();
  }

  async function run(input: Parameters<typeof createRun>[1], expected: string) {
    const created = await createRun(tk.kernel, input, tk.actors.operator);
    expect(await tk.settle(created.id)).toBe(expected);
    runIds.push(created.id);
    return created.id;
  }

  beforeAll(async () => {
    tk = await createTestKernel({ database, telemetry: true });
    const admin = caller(tk.actors.admin);
    await admin.prices.set({ model: "scripted/demo-coder", ...FIRST_PRICE });
    await run({ goal: "Write fizzbuzz", agent: "demo-coder" }, "succeeded");
    await run({ goal: "Write fizzbuzz again", agent: "demo-coder" }, "succeeded");
    // A run stopped by its call cap: the calls it made still count.
    await run({ goal: "Stopped early", agent: "demo-coder", maxSteps: 2 }, "failed");
    // The price changes between runs: later calls use the new price, earlier ones keep theirs.
    await admin.prices.set({ model: "scripted/demo-coder", ...SECOND_PRICE });
    await run({ goal: "Write fizzbuzz at the new price", agent: "demo-coder" }, "succeeded");
    // A scenario run is played by an unpriced scripted model: $0.
    await run({ goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi" }] }, "succeeded");
    await flushed();
  });

  afterAll(async () => {
    await tk?.cleanup();
  });

  describe("costs.summary agrees with the runs and the spans", () => {
    it("the total equals the sum of Run.costUsd and of the chat spans, to the cent", async () => {
      const runs = await tk.t.db.run.findMany({
        where: { id: { in: runIds } },
        select: { id: true, costUsd: true, tracedSeq: true, lastSeq: true },
      });
      expect(runs).toHaveLength(runIds.length);
      for (const r of runs) expect(r.tracedSeq, `run ${r.id} fully traced`).toBe(r.lastSeq);
      const runTotal = runs.reduce((n, r) => n + r.costUsd, 0);
      const chat = await tk.t.db.span.aggregate({ where: { kind: "chat" }, _sum: { costUsd: true }, _count: { _all: true } });

      const summary = await caller(tk.actors.admin).costs.summary({ groupBy: "model" });
      expect(summary.totals.costUsd).toBeGreaterThan(1);
      expect(cents(summary.totals.costUsd)).toBe(cents(runTotal));
      expect(cents(summary.totals.costUsd)).toBe(cents(chat._sum.costUsd ?? 0));
      expect(summary.totals.calls).toBe(chat._count._all);
      expect(summary.totals.runs).toBe(runIds.length);
      expect(summary.runsByOutcome).toEqual([
        { status: "succeeded", count: 4 },
        { status: "failed", count: 1 },
      ]);

      // Each run: its cost equals its own chat spans.
      for (const r of runs) {
        const spans = await tk.t.db.span.aggregate({ where: { runId: r.id, kind: "chat" }, _sum: { costUsd: true } });
        expect(r.costUsd).toBeCloseTo(spans._sum.costUsd ?? 0, 8);
      }
      // The sum over groups and over the chart's days is the total too, whatever the grouping.
      for (const groupBy of ["team", "workflow", "model"] as const) {
        const s = await caller(tk.actors.admin).costs.summary({ groupBy });
        expect(cents(s.groups.reduce((n, g) => n + g.costUsd, 0))).toBe(cents(runTotal));
        expect(cents(s.series.days.reduce((n, d) => n + d.total, 0))).toBe(cents(runTotal));
      }
    });

    it("a price change applies to later calls only, and the scripted scenario model is free", async () => {
      const [first, , stopped, repriced, scenario] = await tk.t.db.run.findMany({
        where: { id: { in: runIds } },
        orderBy: { createdAt: "asc" },
      });
      const chatSpans = (runId: string) => tk.t.db.span.findMany({ where: { runId, kind: "chat" } });
      // Every call at the price in force when it was made (cached input at the cache-read price).
      for (const [r, price] of [
        [first, FIRST_PRICE],
        [stopped, FIRST_PRICE],
        [repriced, SECOND_PRICE],
      ] as const) {
        const spans = await chatSpans(r.id);
        expect(spans.length).toBeGreaterThan(0);
        for (const s of spans) expect(s.costUsd).toBeCloseTo(costOf(s, { cacheReadPerMTok: 0, cacheWritePerMTok: 0, ...price }), 8);
      }
      expect(await chatSpans(stopped.id)).toHaveLength(2);
      expect(scenario.costUsd).toBe(0);

      const byModel = await caller(tk.actors.admin).costs.summary({ groupBy: "model" });
      expect(byModel.groups.map((g) => g.key).sort()).toEqual(["scripted/demo-coder", "scripted/run-scenario"]);
      expect(byModel.groups.find((g) => g.key === "scripted/run-scenario")?.costUsd).toBe(0);
      expect(byModel.unpricedModels).toEqual([]); // scripted models are free, not "unpriced"
    });

    it("groups by team with the team's name; a viewer of the same team sees the same figures", async () => {
      const s = await caller(tk.actors.admin).costs.summary({ groupBy: "team" });
      expect(s.groups).toHaveLength(1);
      const team = await tk.t.db.team.findUniqueOrThrow({ where: { id: s.groups[0].key } });
      expect(s.groups[0].label).toBe(team.name);
      const asViewer = await caller(tk.actors.viewer).costs.summary({ groupBy: "team" });
      expect(asViewer.scope).toBe("teams");
      expect(asViewer.totals).toEqual(s.totals);
    });

    it("prices.list shows the current price; deleting it makes later calls $0", async () => {
      const admin = caller(tk.actors.admin);
      const listed = await admin.prices.list();
      expect(listed.prices).toEqual([
        expect.objectContaining({
          model: "scripted/demo-coder",
          inputPerMTok: 777.77,
          cacheReadPerMTok: 0,
          updatedBy: expect.objectContaining({ id: tk.users.admin }),
        }),
      ]);
      expect(await admin.prices.delete({ model: "scripted/demo-coder" })).toEqual({ ok: true });
      const id = await run({ goal: "Free again", agent: "demo-coder" }, "succeeded");
      await flushed();
      expect((await tk.t.db.run.findUniqueOrThrow({ where: { id } })).costUsd).toBe(0);
      await expect(admin.prices.delete({ model: "scripted/demo-coder" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });
});
