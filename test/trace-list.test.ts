// The trace list (the Traces page's default view,
// docs/traces-and-costs.md#traces-the-list-of-runs) on demo runs through the
// real kernel and telemetry: one row per run with its figures, each filter
// narrows to the runs it names, every sort pages through every run once, a
// person sees only the runs they may open, and bad input gets a clear error.
// The same cases on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ZodError } from "zod";
import { callerFor } from "@/test/helpers/services";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { listTraces, resolveTraceList, TRACE_SORTS, type TraceList, type TraceRow } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const DATABASES = [
  { name: "SQLite", database: "sqlite" as const },
  { name: "PostgreSQL", database: "postgres" as const },
];

describe.each(DATABASES)("on $name", ({ database }) => {
  let tk: TestKernel;
  let other: Actor;
  let ownRun: string;
  let otherRun: string;
  let failingRun: string;

  async function settled(actor: Actor, input: Parameters<typeof createRun>[1], expected = "succeeded") {
    const run = await createRun(tk.kernel, input, actor);
    expect(await tk.settle(run.id)).toBe(expected);
    return run.id;
  }

  async function everything(actor: Pick<Actor, "role" | "teamIds" | "userId">, filter: TraceList = {}, limit = 1) {
    const found: TraceRow[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await listTraces(tk.t.db, actor, { ...filter, cursor, limit });
      found.push(...res.traces);
      if (!res.nextCursor) return found;
      cursor = res.nextCursor;
    }
    throw new Error("more than 100 pages");
  }

  beforeAll(async () => {
    tk = await createTestKernel({ telemetry: true, database });
    await tk.t.db.modelPrice.create({ data: { model: "scripted/demo-coder", inputPerMTok: 2, outputPerMTok: 8 } });
    await tk.telemetry!.telemetry.loadPrices();
    other = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, { email: "other@test.local", password: "test-password-1", role: "operator", teams: ["other"] }),
    ))!;
    ownRun = await settled(tk.actors.operator, { goal: "Write fizzbuzz", agent: "demo-coder" });
    otherRun = await settled(other, { goal: "Another team's 100% fizzbuzz", agent: "demo-coder" });
    failingRun = await settled(tk.actors.operator, {
      goal: "Read a file that is not there",
      agent: "demo-team",
      scenario: [
        { text: "Reading.", toolCalls: [{ tool: "read_file", args: { path: "no-such-file.txt" } }] },
        { text: "It is not there." },
      ],
    });
    await tk.kernel.pool.whenIdle();
    await tk.telemetry!.settle();
  });

  afterAll(async () => {
    await tk?.cleanup();
  });

  it("lists one row per run, newest first, with its run's figures, launcher, team and span count", async () => {
    const rows = await everything(tk.actors.admin);
    expect(rows.map((r) => r.runId)).toEqual([failingRun, otherRun, ownRun]);
    const own = rows.find((r) => r.runId === ownRun)!;
    const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: ownRun }, include: { createdBy: true, team: true } });
    expect(own).toMatchObject({
      name: "Write fizzbuzz",
      agentName: "demo-coder",
      status: "succeeded",
      teamId: run.teamId,
      teamName: run.team!.name,
      user: { id: run.createdById, name: run.createdBy.name, email: run.createdBy.email },
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      costUsd: run.costUsd,
    });
    expect(own.costUsd).toBeGreaterThan(0);
    expect(own.spanCount).toBe(await tk.t.db.span.count({ where: { runId: ownRun } }));
    expect(own.spanCount).toBeGreaterThan(3);
    expect(own.durationMs).toBe(run.endedAt!.getTime() - run.startedAt!.getTime());
  });

  it("narrows by agent, status, launcher, team and name (any case, % as itself)", async () => {
    const ids = async (f: TraceList) => (await everything(tk.actors.admin, f, 50)).map((r) => r.runId).sort();
    expect(await ids({ agent: "demo-team" })).toEqual([failingRun]);
    expect(await ids({ status: ["succeeded", "running"] })).toEqual([ownRun, otherRun, failingRun].sort());
    expect(await ids({ status: ["failed", "canceled"] })).toEqual([]);
    expect(await ids({ userId: other.userId })).toEqual([otherRun]);
    expect(await ids({ teamId: other.teamIds[0] })).toEqual([otherRun]);
    expect(await ids({ q: "FIZZBUZZ" })).toEqual([ownRun, otherRun].sort());
    expect(await ids({ q: "100%" })).toEqual([otherRun]);
    expect(await ids({ q: "%" })).toEqual([otherRun]);
    expect(await ids({ q: "_" })).toEqual([]);
  });

  it("keeps to the time range", async () => {
    const runs = await tk.t.db.run.findMany({ orderBy: { createdAt: "asc" }, select: { id: true, createdAt: true } });
    const newest = runs[runs.length - 1];
    const found = await everything(tk.actors.admin, { from: newest.createdAt, to: new Date(newest.createdAt.getTime() + 60_000) }, 50);
    expect(found.map((r) => r.runId)).toEqual(
      runs
        .filter((r) => r.createdAt >= newest.createdAt)
        .map((r) => r.id)
        .reverse(),
    );
    expect(await everything(tk.actors.admin, { from: "2020-01-01T00:00:00Z", to: "2020-01-02T00:00:00Z" })).toEqual([]);
  });

  it.each(TRACE_SORTS)("sorted by %s, pages one run at a time through every run once, in order", async (sort) => {
    for (const order of ["desc", "asc"] as const) {
      const rows = await everything(tk.actors.admin, { sort, order }, 1);
      expect(rows.map((r) => r.runId).sort()).toEqual([ownRun, otherRun, failingRun].sort());
      const value = (r: TraceRow) =>
        sort === "time"
          ? r.createdAt.getTime()
          : sort === "cost"
            ? r.costUsd
            : sort === "tokens"
              ? r.inputTokens + r.outputTokens
              : (r.durationMs ?? -1);
      const values = rows.map(value);
      const sorted = [...values].sort((a, b) => (order === "asc" ? a - b : b - a));
      expect(values, `${sort} ${order}`).toEqual(sorted);
    }
  });

  it("shows a person only the runs of their teams and their own", async () => {
    expect((await everything(other)).map((r) => r.runId)).toEqual([otherRun]);
    const mine = (await everything(tk.actors.viewer)).map((r) => r.runId);
    expect(mine).not.toContain(otherRun);
    expect(mine).toEqual([failingRun, ownRun]);
  });

  it("refuses bad input with a clear message, through the API too", async () => {
    const issues = (q: TraceList) => {
      try {
        resolveTraceList(q);
      } catch (err) {
        return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      }
      throw new Error("accepted");
    };
    expect(issues({ from: "yesterday" })).toEqual(['from: must be an ISO date-time such as 2025-03-01T12:00:00Z (got "yesterday")']);
    expect(issues({ from: "2026-03-10T00:00:00Z", to: "2026-03-01T00:00:00Z" })[0]).toMatch(/^from: must not be after to/);
    expect(issues({ sort: "name" as never })[0]).toBe("sort: must be one of time, duration, cost, tokens");
    expect(issues({ cursor: "bm90IGEgY3Vyc29y" })[0]).toBe("cursor: is not a cursor from an earlier page of this list");
    expect(issues({ minDurationMs: -5 })[0]).toBe("minDurationMs: must not be negative");
    expect(issues({ nonsense: 1 } as never)[0]).toMatch(/nonsense/);
    const api = callerFor(tk, tk.actors.viewer);
    const err = (await api.traces.list({ from: "yesterday" }).catch((e: unknown) => e)) as { code: string; message: string };
    expect(err.code).toBe("BAD_REQUEST");
    const page = await api.traces.list({ sort: "cost", direction: "forward", limit: 5 });
    expect(page.traces.map((r) => r.runId)).not.toContain(otherRun);
  });
});
