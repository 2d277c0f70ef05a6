// The reads behind a budget check give the same verdicts whichever way they
// go: through Prisma (SQLite or PostgreSQL) or over the direct SQLite
// connection server.ts uses. And spend still queued in the trace sink counts
// without a flush: a budget never lets a call through because its spans have
// not been written yet.
import { afterEach, describe, expect, it } from "vitest";
import { openNativeSqlite, type NativeSqlite } from "@/server/db";
import { createUser } from "@/server/identity";
import { createSqliteTestDb, makeTempDir, type TestDb } from "@/test/helpers/db";
import { createPgTestDb } from "@/test/helpers/pg";
import { Budgets, SETTING_RUN_BUDGET } from "./budgets";

const NOW = new Date("2026-11-27T12:00:00Z");

interface Harness {
  t: TestDb;
  native: NativeSqlite | null;
}

const BACKENDS: Array<{ name: string; make(): Promise<Harness> }> = [
  { name: "Prisma on SQLite", make: async () => ({ t: await createSqliteTestDb(), native: null }) },
  {
    name: "direct SQLite",
    async make() {
      const t = await createSqliteTestDb();
      return { t, native: openNativeSqlite(t.url) };
    },
  },
  { name: "Prisma on PostgreSQL", make: async () => ({ t: await createPgTestDb(makeTempDir("rein-test-pg-")), native: null }) },
];

let open: Harness | null = null;
afterEach(async () => {
  open?.native?.close();
  await open?.t.cleanup();
  open = null;
});

async function setUp(backend: (typeof BACKENDS)[number]) {
  open = await backend.make();
  const { t } = open;
  const userId = await createUser(t.db, { email: "ops@rein.test", password: "password-123", role: "operator" });
  let spans = 0;
  const run = async (opts: { budgetUsd?: number; teamId?: string; spent?: number[] } = {}) => {
    const r = await t.db.run.create({
      data: {
        goal: "g",
        agentName: "demo-coder",
        agentVersion: 1,
        createdById: userId,
        model: "scripted",
        budgetUsd: opts.budgetUsd ?? null,
        teamId: opts.teamId ?? null,
      },
    });
    for (const [i, usd] of (opts.spent ?? []).entries()) {
      await t.db.span.create({
        data: {
          spanId: `s-${spans++}`,
          traceId: r.id,
          runId: r.id,
          kind: "chat",
          name: "chat",
          startTime: new Date(NOW.getTime() + i * 1000),
          costUsd: usd,
          workflowId: "demo-coder",
          attributes: "{}",
        },
      });
    }
    // Another run's spend and a tool span never count.
    await t.db.span.create({
      data: {
        spanId: `s-${spans++}`,
        traceId: r.id,
        runId: r.id,
        kind: "execute_tool",
        name: "tool",
        startTime: NOW,
        costUsd: 50,
        workflowId: "demo-coder",
        attributes: "{}",
      },
    });
    return r.id;
  };
  return { t, native: open.native, run };
}

describe.each(BACKENDS)("budget reads: $name", (backend) => {
  it("a run's own ceiling: spent so far, and the next call assumed to cost what the last did", async () => {
    const { t, native, run } = await setUp(backend);
    const budgets = new Budgets({ db: t.db, native, flush: async () => {}, now: () => NOW });
    const other = await run({ spent: [5] });
    const roomy = await run({ budgetUsd: 1, spent: [0.1, 0.2] });
    const tight = await run({ budgetUsd: 1, spent: [0.2, 0.45] }); // 0.65 spent, last 0.45: 1.10 > 1
    const free = await run({ spent: [3] });
    expect(await budgets.beforeModelCall(roomy)).toEqual({ ok: true });
    expect(await budgets.beforeModelCall(free)).toEqual({ ok: true });
    expect(await budgets.beforeModelCall(other)).toEqual({ ok: true });
    const verdict = await budgets.beforeModelCall(tight);
    expect(verdict).toMatchObject({ ok: false, code: "RUN_BUDGET_EXCEEDED" });
    expect(verdict.reason).toContain("$0.65 of its $1.00 budget");
    expect(verdict.reason).toContain("about $0.45");
    expect(await budgets.beforeModelCall("no-such-run")).toEqual({ ok: true });
  });

  it("the default ceiling for every run, read at each check", async () => {
    const { t, native, run } = await setUp(backend);
    const budgets = new Budgets({ db: t.db, native, flush: async () => {}, now: () => NOW });
    const id = await run({ spent: [0.3] });
    expect(await budgets.beforeModelCall(id)).toEqual({ ok: true });
    await t.db.setting.create({ data: { key: SETTING_RUN_BUDGET, value: "0.5" } });
    expect(await budgets.defaultRunBudget()).toBe(0.5);
    expect(await budgets.beforeModelCall(id)).toMatchObject({ ok: false, code: "RUN_BUDGET_EXCEEDED" });
  });

  it("a team's month, from the rollups of this month only", async () => {
    const { t, native, run } = await setUp(backend);
    const budgets = new Budgets({ db: t.db, native, flush: async () => {}, now: () => NOW });
    const team = await t.db.team.create({ data: { name: "red", budgetUsd: 10 } });
    await t.db.costRollup.create({ data: { day: "2026-10-30", teamId: team.id, workflowId: "w", model: "m", costUsd: 100 } });
    await t.db.costRollup.create({ data: { day: "2026-11-02", teamId: team.id, workflowId: "w", model: "m", costUsd: 9.5 } });
    const id = await run({ teamId: team.id, spent: [0.2] });
    expect(await budgets.beforeModelCall(id)).toEqual({ ok: true });
    await t.db.costRollup.create({ data: { day: "2026-11-20", teamId: team.id, workflowId: "w2", model: "m", costUsd: 0.4 } });
    const verdict = await budgets.beforeModelCall(id);
    expect(verdict).toMatchObject({ ok: false, code: "TEAM_BUDGET_EXCEEDED" });
    expect(verdict.reason).toContain("Team red has spent $9.90 of its $10.00 budget for 2026-11");
  });

  it("spend still queued for writing counts, for the run and for its team, without a flush", async () => {
    const { t, native, run } = await setUp(backend);
    const team = await t.db.team.create({ data: { name: "blue", budgetUsd: 10 } });
    const id = await run({ budgetUsd: 1, teamId: team.id, spent: [0.1] });
    let queued: Array<{ runId: string; teamId: string; day: string; costUsd: number }> = [];
    let flushes = 0;
    const budgets = new Budgets({
      db: t.db,
      native,
      now: () => NOW,
      flush: async () => void flushes++,
      unwritten(scope) {
        const mine = queued.filter((q) =>
          "runId" in scope ? q.runId === scope.runId : q.teamId === scope.teamId && q.day >= scope.fromDay,
        );
        return { costUsd: mine.reduce((n, q) => n + q.costUsd, 0), latest: mine.at(-1) ?? null };
      },
    });
    expect(await budgets.beforeModelCall(id)).toEqual({ ok: true });
    // A call of 0.5 is queued, not written: 0.6 spent, the next assumed to cost 0.5 again.
    queued = [{ runId: id, teamId: team.id, day: "2026-11-27", costUsd: 0.5 }];
    expect(await budgets.beforeModelCall(id)).toMatchObject({ ok: false, code: "RUN_BUDGET_EXCEEDED" });
    // The team: 9.95 queued this month (from other runs), none written.
    await t.db.run.update({ where: { id }, data: { budgetUsd: null } });
    queued = [
      { runId: "elsewhere", teamId: team.id, day: "2026-11-03", costUsd: 9.95 },
      { runId: "older", teamId: team.id, day: "2026-10-31", costUsd: 50 },
    ];
    const verdict = await budgets.beforeModelCall(id);
    expect(verdict).toMatchObject({ ok: false, code: "TEAM_BUDGET_EXCEEDED" });
    expect(verdict.reason).toContain("$9.95 of its $10.00");
    expect(flushes).toBe(0);
  });
});
