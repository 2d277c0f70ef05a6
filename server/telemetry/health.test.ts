// The health dashboards' arithmetic on hand-made rollups: percentiles from a
// known latency histogram, the range, and a burn-down that sums to the month;
// the rollup cases on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDb } from "@/test/helpers/db";
import { TEST_DATABASES } from "@/test/helpers/databases";
import { ensureTeam } from "@/server/identity";
import { budgetBurnDown, bucketUpperMs, healthSummary, percentileMs, quantile } from "./index";

const NOW = new Date("2026-03-15T12:00:00Z");
const ADMIN = { role: "admin" as const, teamIds: [], userId: "admin" };

describe("percentileMs", () => {
  // 100 calls: 10 under 1 ms, 40 in [1, 2), 40 in [8, 16), 9 in [512, 1024), 1 in [4096, 8192).
  const histogram = [
    { bucket: 4, count: 40 },
    { bucket: 0, count: 10 },
    { bucket: 1, count: 40 },
    { bucket: 10, count: 9 },
    { bucket: 13, count: 1 },
  ];

  it("is the upper bound of the bucket holding the nearest rank", () => {
    expect(percentileMs(histogram, 0.1)).toBe(1); // rank 10: the last call under 1 ms
    expect(percentileMs(histogram, 0.11)).toBe(2); // rank 11: the first in [1, 2)
    expect(percentileMs(histogram, 0.5)).toBe(2); // rank 50: the last in [1, 2)
    expect(percentileMs(histogram, 0.51)).toBe(16);
    expect(percentileMs(histogram, 0.9)).toBe(16);
    expect(percentileMs(histogram, 0.95)).toBe(1024);
    expect(percentileMs(histogram, 0.99)).toBe(1024);
    expect(percentileMs(histogram, 1)).toBe(8192);
  });

  it("bounds every latency the bucket holds, as the sink buckets them", () => {
    for (const ms of [0, 0.5, 1, 1.5, 2, 3, 700, 1023, 1024, 60_000]) {
      const bucket = ms < 1 ? 0 : Math.floor(Math.log2(ms)) + 1;
      expect(bucketUpperMs(bucket)).toBeGreaterThan(ms);
      if (bucket > 0) expect(bucketUpperMs(bucket - 1)).toBeLessThanOrEqual(ms);
    }
  });

  it("is 0 for no calls; one call is every percentile", () => {
    expect(percentileMs([], 0.5)).toBe(0);
    expect(percentileMs([{ bucket: 3, count: 0 }], 0.5)).toBe(0);
    expect(percentileMs([{ bucket: 6, count: 1 }], 0.5)).toBe(64);
    expect(percentileMs([{ bucket: 6, count: 1 }], 0.99)).toBe(64);
  });

  it("quantile of exact values is the nearest rank", () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([30, 10, 20], 0.5)).toBe(20);
    expect(quantile([10, 20, 30, 40], 0.5)).toBe(20);
    expect(
      quantile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(95);
  });
});

describe.each(TEST_DATABASES)("healthSummary on rollups on $name", (database) => {
  let t: TestDb;
  let alpha: string;
  let beta: string;

  beforeAll(async () => {
    t = await database.open();
    alpha = await ensureTeam(t.db, "alpha");
    beta = await ensureTeam(t.db, "beta");
    const rollup = (day: string, kind: string, name: string, bucket: number, count: number, errors = 0) => ({
      day,
      kind,
      name,
      bucket,
      count,
      errors,
    });
    await t.db.spanRollup.createMany({
      data: [
        rollup("2026-03-10", "execute_tool", "shell", 5, 6, 2),
        rollup("2026-03-11", "execute_tool", "shell", 8, 4, 1),
        rollup("2026-03-11", "execute_tool", "read_file", 0, 3),
        rollup("2026-02-01", "execute_tool", "shell", 8, 100, 100), // outside the range
        rollup("2026-03-10", "chat", "openai/gpt-4.1", 10, 19),
        rollup("2026-03-12", "chat", "openai/gpt-4.1", 12, 1),
        rollup("2026-03-12", "human_request", "approve", 17, 1), // not a latency row
      ],
    });
    const cost = (day: string, teamId: string, costUsd: number) => ({ day, teamId, workflowId: "w", model: "m/x", calls: 1, costUsd });
    await t.db.costRollup.createMany({
      data: [
        cost("2026-02-28", alpha, 50),
        cost("2026-03-01", alpha, 1.25),
        cost("2026-03-01", beta, 7),
        cost("2026-03-14", alpha, 2.5),
        cost("2026-03-15", alpha, 0.25),
      ],
    });
    await t.db.team.update({ where: { id: alpha }, data: { budgetUsd: 10 } });
  });

  afterAll(async () => {
    await t?.cleanup();
  });

  it("tool success per tool and latency percentiles per model and tool, within the range", async () => {
    const h = await healthSummary(t.db, { from: "2026-03-01", to: "2026-03-15" }, ADMIN, NOW);
    expect(h.tools).toEqual([
      { tool: "shell", calls: 10, errors: 3, successRate: 0.7 },
      { tool: "read_file", calls: 3, errors: 0, successRate: 1 },
    ]);
    expect(h.latency).toEqual([
      { kind: "chat", name: "openai/gpt-4.1", count: 20, p50Ms: 1024, p95Ms: 1024, p99Ms: 4096 },
      { kind: "execute_tool", name: "shell", count: 10, p50Ms: 32, p95Ms: 256, p99Ms: 256 },
      { kind: "execute_tool", name: "read_file", count: 3, p50Ms: 1, p95Ms: 1, p99Ms: 1 },
    ]);
  });

  it("the burn-down is this month's spend per day, cumulative to today, summing to the month's rollups", async () => {
    const burn = await budgetBurnDown(t.db, null, NOW);
    expect(burn.month).toBe("2026-03");
    expect(burn.teams).toHaveLength(1); // beta has no budget
    const [team] = burn.teams;
    expect(team).toMatchObject({ teamId: alpha, name: "alpha", budgetUsd: 10, spentUsd: 4 });
    expect(team.days).toHaveLength(31);
    expect(team.days[0]).toEqual({ day: "2026-03-01", cumulativeUsd: 1.25 });
    expect(team.days[12]).toEqual({ day: "2026-03-13", cumulativeUsd: 1.25 });
    expect(team.days[13]).toEqual({ day: "2026-03-14", cumulativeUsd: 3.75 });
    expect(team.days[14]).toEqual({ day: "2026-03-15", cumulativeUsd: 4 });
    expect(team.days[15]).toEqual({ day: "2026-03-16", cumulativeUsd: null });
    expect(team.projectedUsd).toBeCloseTo((4 / 15) * 31, 8);
    const month = await t.db.costRollup.aggregate({
      where: { teamId: alpha, day: { gte: "2026-03-01", lte: "2026-03-31" } },
      _sum: { costUsd: true },
    });
    expect(team.spentUsd).toBe(month._sum.costUsd);
    // A non-admin sees only their teams' budgets.
    expect((await budgetBurnDown(t.db, [beta], NOW)).teams).toEqual([]);
    expect((await budgetBurnDown(t.db, [alpha], NOW)).teams).toHaveLength(1);
  });

  it("human requests: answer times, states, UTC days and who sees which", async () => {
    const userId = (await t.db.user.create({ data: { email: "asker@test.local", name: "asker", passwordHash: "x", role: "operator" } })).id;
    const run = await t.db.run.create({
      data: {
        goal: "g",
        agentName: "demo-deploy",
        agentVersion: 1,
        model: "scripted/demo-deploy",
        createdById: userId,
        teamId: alpha,
        status: "succeeded",
        createdAt: new Date("2026-03-05T09:00:00Z"),
      },
    });
    let n = 0;
    const request = (createdAt: string, kind: string, state: string, teamId: string, decided?: { afterMs: number; by: string }) => ({
      runId: run.id,
      nodeId: `node-${n++}`,
      checkpointId: "cp",
      slot: "policy",
      kind,
      state,
      title: "t",
      payload: "{}",
      teamId,
      expiresAt: new Date("2026-04-01T00:00:00Z"),
      hardExpiresAt: new Date("2026-04-02T00:00:00Z"),
      createdAt: new Date(createdAt),
      ...(decided ? { decidedById: decided.by, decidedAt: new Date(new Date(createdAt).getTime() + decided.afterMs) } : {}),
    });
    await t.db.humanRequest.createMany({
      data: [
        request("2026-03-05T23:59:59.999Z", "approve", "APPROVED", alpha, { afterMs: 90_000, by: userId }),
        request("2026-03-06T00:00:00.000Z", "approve", "REJECTED", alpha, { afterMs: 30_000, by: userId }),
        request("2026-03-06T10:00:00.000Z", "choose", "EXPIRED", alpha, { afterMs: 3_600_000, by: "system" }),
        request("2026-03-06T11:00:00.000Z", "approve", "PENDING", beta),
        request("2026-03-06T12:00:00.000Z", "provide", "CANCELED", beta),
        request("2026-03-07T00:00:00.000Z", "approve", "APPROVED", alpha, { afterMs: 1, by: userId }), // the day after the range
      ],
    });
    const h = (await healthSummary(t.db, { from: "2026-03-05", to: "2026-03-06" }, ADMIN, NOW)).humanRequests;
    expect(h).toMatchObject({
      total: 5,
      answered: 2,
      expired: 1,
      canceled: 1,
      open: 1,
      shareAnswered: 0.4,
      medianAnswerMs: 30_000,
      p95AnswerMs: 90_000,
      perRun: 5,
    });
    expect(h.kinds).toEqual(["approve", "choose", "provide"]);
    expect(h.byDay).toEqual([
      { day: "2026-03-05", total: 1, counts: { approve: 1, choose: 0, provide: 0 } },
      { day: "2026-03-06", total: 4, counts: { approve: 2, choose: 1, provide: 1 } },
    ]);
    // A viewer of beta sees beta's requests only, and no run of theirs.
    const ofBeta = (
      await healthSummary(t.db, { from: "2026-03-05", to: "2026-03-06" }, { role: "viewer", teamIds: [beta], userId: "someone" }, NOW)
    ).humanRequests;
    expect(ofBeta).toMatchObject({ total: 2, answered: 0, open: 1, canceled: 1, perRun: null });
  });

  it("an empty range has zeros, not gaps", async () => {
    const h = await healthSummary(t.db, { from: "2025-01-01", to: "2025-01-03" }, ADMIN, NOW);
    expect(h.tools).toEqual([]);
    expect(h.latency).toEqual([]);
    expect(h.humanRequests).toMatchObject({
      total: 0,
      answered: 0,
      shareAnswered: null,
      medianAnswerMs: null,
      p95AnswerMs: null,
      perRun: null,
      kinds: [],
    });
    expect(h.humanRequests.byDay.map((d) => d.day)).toEqual(["2025-01-01", "2025-01-02", "2025-01-03"]);
  });
});
