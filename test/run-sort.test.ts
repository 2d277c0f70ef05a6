// The Runs list's sorts, on SQLite and PostgreSQL: every column in both
// directions pages with a small limit to exactly the order of one large page,
// and that order is the column's. Duration orders ended runs by what they
// took, then runs still going (longest going first when the longest come
// first), then runs not started.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRuns, RUN_SORTS, type RunSort } from "@/server/kernel";
import type { Dialect } from "@/server/db";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const HOUR = 3_600_000;
const T0 = new Date("2026-11-20T08:00:00Z").getTime();

// [status, minutes started after T0 (null: not started), minutes it took (null: not ended), cost, steps]
const ROWS: Array<[string, number | null, number | null, number, number]> = [
  ["succeeded", 0, 30, 0.5, 4],
  ["failed", 10, 5, 0.01, 2],
  ["canceled", 20, 30, 0, 1], // the same duration as the first: the start orders them
  ["running", 40, null, 0.2, 3],
  ["waiting_human", 30, null, 0.2, 3],
  ["queued", null, null, 0, 0],
  ["succeeded", 50, 1, 1.5, 9],
  ["queued", null, null, 0, 0],
];

describe.each<Dialect>(["sqlite", "postgres"])("sorting the Runs list on %s", (database) => {
  let tk: TestKernel;
  const ids: string[] = [];

  beforeAll(async () => {
    tk = await createTestKernel({ database });
    const db = tk.t.db;
    for (const [i, [status, start, took, costUsd, stepCount]] of ROWS.entries()) {
      const startedAt = start === null ? null : new Date(T0 + start * 60_000);
      const endedAt = startedAt && took !== null ? new Date(startedAt.getTime() + took * 60_000) : null;
      const run = await db.run.create({
        data: {
          goal: `Goal ${String.fromCharCode(104 - i)}`,
          agentName: i % 2 ? "demo-coder" : "demo-browser",
          agentVersion: 1,
          model: "scripted/demo",
          status,
          createdById: tk.users.operator,
          teamId: tk.actors.operator.teamIds[0],
          createdAt: new Date(T0 - HOUR + i * 60_000),
          startedAt,
          endedAt,
          durationMs: endedAt && startedAt ? endedAt.getTime() - startedAt.getTime() : null,
          costUsd,
          stepCount,
          inputTokens: stepCount * 100,
          outputTokens: stepCount * 10,
        },
        select: { id: true },
      });
      ids.push(run.id);
    }
  }, 60_000);
  afterAll(async () => tk?.cleanup());

  const list = (sort: RunSort, dir: "asc" | "desc", limit: number, cursor?: string) =>
    listRuns(tk.t.db, { sort, dir, limit, cursor }, tk.actors.admin);

  for (const sort of RUN_SORTS) {
    for (const dir of ["asc", "desc"] as const) {
      it(`${sort} ${dir}: pages of two read the same runs, in the same order, as one page`, async () => {
        const whole = (await list(sort, dir, 100)).runs.map((r) => r.id);
        expect([...whole].sort()).toEqual([...ids].sort());
        const paged: string[] = [];
        let cursor: string | undefined;
        for (let n = 0; n < 20; n++) {
          const page = await list(sort, dir, 2, cursor);
          paged.push(...page.runs.map((r) => r.id));
          if (!page.nextCursor) break;
          cursor = page.nextCursor;
        }
        expect(paged).toEqual(whole);
      });
    }
  }

  it("duration: ended runs by what they took, then runs still going, then runs not started", async () => {
    const at = (i: number) => ids[i];
    const desc = (await list("duration", "desc", 100)).runs.map((r) => r.id);
    // 30 min (two runs: the one started first, first), 5 min, 1 min; going since 08:30, then since 08:40; never started.
    expect(desc.slice(0, 6)).toEqual([at(0), at(2), at(1), at(6), at(4), at(3)]);
    expect(new Set(desc.slice(6))).toEqual(new Set([at(5), at(7)]));
    const asc = (await list("duration", "asc", 100)).runs.map((r) => r.id);
    expect(asc.slice(0, 6)).toEqual([at(6), at(1), at(2), at(0), at(3), at(4)]);
  });

  it("a run that ends records its duration; one a person reopens clears it", async () => {
    const store = tk.kernel.store;
    const id = ids[4]; // waiting for a person since 08:30
    expect(await store.transition(id, ["waiting_human"], "canceled", { reason: "test" })).toBe(true);
    const ended = await tk.t.db.run.findUniqueOrThrow({ where: { id }, select: { durationMs: true, startedAt: true, endedAt: true } });
    expect(ended.durationMs).toBe(ended.endedAt!.getTime() - ended.startedAt!.getTime());
    expect(await store.transition(id, ["canceled"], "queued", { reason: "continued" })).toBe(true);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id }, select: { durationMs: true } })).durationMs).toBeNull();
  });
});
