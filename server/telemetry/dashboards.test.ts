// The Costs dashboards' service on hand-made rollups and runs: the range and
// its errors, grouping and labels, who sees which teams, the chart's series;
// on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { TestDb } from "@/test/helpers/db";
import { TEST_DATABASES } from "@/test/helpers/databases";
import { createUser, ensureTeam } from "@/server/identity";
import { MAX_SERIES, OTHER_KEY, UNKNOWN_KEY_LABEL, costSummary, keyWorkflowId, resolveCostQuery } from "./index";

const NOW = new Date("2026-03-15T12:00:00Z");

function zodMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ZodError);
    return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
  }
  throw new Error("expected a validation error");
}

describe("resolveCostQuery", () => {
  it("defaults to the last 30 days, today included, grouped by model", () => {
    expect(resolveCostQuery({}, NOW)).toEqual({ from: "2026-02-14", to: "2026-03-15", groupBy: "model" });
    expect(resolveCostQuery({ to: "2026-01-30" }, NOW)).toEqual({ from: "2026-01-01", to: "2026-01-30", groupBy: "model" });
  });

  it("takes ISO dates and date-times, as UTC days", () => {
    expect(resolveCostQuery({ from: "2026-03-01", to: "2026-03-02", groupBy: "team" }, NOW)).toEqual({
      from: "2026-03-01",
      to: "2026-03-02",
      groupBy: "team",
    });
    expect(resolveCostQuery({ from: "2026-03-01T23:30:00-02:00", to: "2026-03-05T10:00:00Z" }, NOW)).toMatchObject({
      from: "2026-03-02",
      to: "2026-03-05",
    });
    expect(resolveCostQuery({ from: "2026-03-01", to: "2026-03-01" }, NOW)).toMatchObject({ from: "2026-03-01", to: "2026-03-01" });
  });

  it.each([
    [
      "a date that does not exist",
      { from: "2026-02-30" },
      'from: must be an ISO date such as 2025-03-01 or 2025-03-01T00:00:00Z (got "2026-02-30")',
    ],
    ["a date that is not ISO", { to: "03/01/2026" }, "to: must be an ISO date"],
    ["a word", { from: "yesterday" }, "from: must be an ISO date"],
    ["from after to", { from: "2026-03-10", to: "2026-03-01" }, "from: must not be after to (2026-03-10 is after 2026-03-01)"],
    ["a range over a year", { from: "2024-01-01", to: "2026-01-01" }, "from: the range is at most 366 days"],
    ["an unknown groupBy", { groupBy: "user" }, "groupBy: must be one of team, workflow, model"],
    ["an unknown parameter", { group_by: "team" }, "group_by"],
  ])("refuses %s", (_what, query, message) => {
    expect(zodMessage(() => resolveCostQuery(query as never, NOW))).toContain(message);
  });
});

describe.each(TEST_DATABASES)("costSummary on $name", (database) => {
  let t: TestDb;
  let alpha: string;
  let beta: string;
  const admin = { role: "admin" as const, teamIds: [] as string[] };
  let alphaViewer: { role: "viewer"; teamIds: string[] };
  let userId: string;

  const rollup = (day: string, teamId: string, workflowId: string, model: string, calls: number, costUsd: number) => ({
    day,
    teamId,
    workflowId,
    model,
    calls,
    inputTokens: calls * 1000,
    outputTokens: calls * 100,
    cachedInputTokens: calls * 10,
    costUsd,
  });

  beforeAll(async () => {
    t = await database.open();
    alpha = await ensureTeam(t.db, "alpha");
    beta = await ensureTeam(t.db, "beta");
    alphaViewer = { role: "viewer", teamIds: [alpha] };
    await t.db.costRollup.createMany({
      data: [
        rollup("2026-03-01", alpha, "demo-coder", "openai/gpt-4.1", 2, 0.1),
        rollup("2026-03-01", alpha, "demo-team", "anthropic/claude-x", 1, 0.2),
        rollup("2026-03-03", beta, "demo-coder", "openai/gpt-4.1", 4, 1.05),
        rollup("2026-03-03", "", "demo-coder", "scripted/demo-coder", 3, 0),
        rollup("2026-03-03", "", "demo-coder", "mistral/tiny", 1, 0),
        rollup("2026-02-01", alpha, "demo-coder", "openai/gpt-4.1", 9, 9), // outside the range
      ],
    });
    userId = await createUser(t.db, { email: "dash@test.local", password: "test-password-1", role: "operator" });
    const run = (teamId: string | null, status: string, createdAt: string) => ({
      goal: "g",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/demo-coder",
      createdById: userId,
      teamId,
      status,
      createdAt: new Date(createdAt),
    });
    await t.db.run.createMany({
      data: [
        run(alpha, "succeeded", "2026-03-01T10:00:00Z"),
        run(alpha, "failed", "2026-03-02T23:59:59Z"),
        run(beta, "succeeded", "2026-03-03T00:00:00Z"),
        run(null, "canceled", "2026-03-03T08:00:00Z"),
        run(alpha, "succeeded", "2026-03-04T00:00:00Z"), // the day after the range
      ],
    });
    await t.db.modelPrice.create({ data: { model: "openai/gpt-4.1", inputPerMTok: 2, outputPerMTok: 8 } });
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  const RANGE = { from: "2026-03-01", to: "2026-03-03" };

  it("admins see every team, with team names and No team", async () => {
    const s = await costSummary(t.db, { ...RANGE, groupBy: "team" }, admin, NOW);
    expect(s.scope).toBe("all");
    expect(s.totals).toEqual({ costUsd: 1.35, calls: 11, inputTokens: 11_000, outputTokens: 1100, cachedInputTokens: 110, runs: 4 });
    expect(s.groups.map((g) => [g.label, g.costUsd, g.calls])).toEqual([
      ["beta", 1.05, 4],
      ["alpha", 0.3, 3],
      ["No team", 0, 4],
    ]);
    expect(s.groups.find((g) => g.label === "No team")?.key).toBe("");
    expect(s.runsByOutcome).toEqual([
      { status: "succeeded", count: 2 },
      { status: "canceled", count: 1 },
      { status: "failed", count: 1 },
    ]);
    expect(s.unpricedModels).toEqual(["anthropic/claude-x", "mistral/tiny"]);
  });

  it("a non-admin sees only their teams' rows, and runs counted the same way", async () => {
    const s = await costSummary(t.db, { ...RANGE, groupBy: "team" }, alphaViewer, NOW);
    expect(s.scope).toBe("teams");
    expect(s.groups.map((g) => g.label)).toEqual(["alpha"]);
    expect(s.totals).toMatchObject({ costUsd: 0.3, calls: 3, runs: 2 });
    expect(s.runsByOutcome).toEqual([
      { status: "failed", count: 1 },
      { status: "succeeded", count: 1 },
    ]);
    expect(s.unpricedModels).toEqual(["anthropic/claude-x"]);
    const none = await costSummary(t.db, RANGE, { role: "operator", teamIds: [] }, NOW);
    expect(none.totals).toEqual({ costUsd: 0, calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, runs: 0 });
  });

  it("groups by workflow and by model, with tokens by model", async () => {
    const byWorkflow = await costSummary(t.db, { ...RANGE, groupBy: "workflow" }, admin, NOW);
    expect(byWorkflow.groups.map((g) => [g.key, g.costUsd, g.calls])).toEqual([
      ["demo-coder", 1.15, 10],
      ["demo-team", 0.2, 1],
    ]);
    const byModel = await costSummary(t.db, { ...RANGE, groupBy: "model" }, admin, NOW);
    expect(byModel.groups.map((g) => g.key)).toEqual(["openai/gpt-4.1", "anthropic/claude-x", "scripted/demo-coder", "mistral/tiny"]);
    expect(byModel.tokensByModel[0]).toEqual({
      model: "openai/gpt-4.1",
      calls: 6,
      inputTokens: 6000,
      outputTokens: 600,
      cachedInputTokens: 60,
      costUsd: 1.15,
    });
    expect(byModel.tokensByModel.map((m) => m.model)).toEqual([
      "openai/gpt-4.1",
      "scripted/demo-coder",
      "anthropic/claude-x",
      "mistral/tiny",
    ]);
  });

  it("the chart has a point for every day of the range, summing to the totals", async () => {
    const s = await costSummary(t.db, { ...RANGE, groupBy: "team" }, admin, NOW);
    expect(s.series.keys).toEqual([
      { key: beta, label: "beta" },
      { key: alpha, label: "alpha" },
      { key: "", label: "No team" },
    ]);
    expect(s.series.days.map((d) => d.day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03"]);
    expect(s.series.days.map((d) => d.total)).toEqual([0.3, 0, 1.05]);
    expect(s.series.days[0].values).toEqual({ [beta]: 0, [alpha]: 0.3, "": 0 });
    expect(s.series.days[2].values).toEqual({ [beta]: 1.05, [alpha]: 0, "": 0 });
  });

  it(`draws at most ${MAX_SERIES} series: the cheapest groups are summed into Other`, async () => {
    const models = Array.from({ length: MAX_SERIES + 3 }, (_, i) => `p/m${String(i).padStart(2, "0")}`);
    await t.db.costRollup.createMany({ data: models.map((m, i) => rollup("2026-01-10", alpha, "wide", m, 1, (i + 1) / 100)) });
    const s = await costSummary(t.db, { from: "2026-01-10", to: "2026-01-10", groupBy: "model" }, admin, NOW);
    expect(s.groups).toHaveLength(models.length);
    expect(s.series.keys).toHaveLength(MAX_SERIES);
    expect(s.series.keys.at(-1)).toEqual({ key: OTHER_KEY, label: "Other (4)" });
    const point = s.series.days[0];
    expect(point.values[OTHER_KEY]).toBeCloseTo(0.01 + 0.02 + 0.03 + 0.04, 8);
    expect(Object.values(point.values).reduce((a, b) => a + b, 0)).toBeCloseTo(s.totals.costUsd, 8);
    expect(point.total).toBe(s.totals.costUsd);
  });

  it("shows a team gateway key's calls under its name, only to those who see its team", async () => {
    const key = (teamId: string, name: string, revoked = false) =>
      t.db.gatewayKey.create({
        data: { teamId, name, prefix: "rein_gk_abc", tokenHash: `hash-${name}`, createdById: userId, revokedAt: revoked ? NOW : null },
        select: { id: true },
      });
    const nightly = await key(alpha, "nightly scripts");
    const old = await key(alpha, "old ci", true);
    const secret = await key(beta, "beta's secret project");
    const DAY = "2026-01-20";
    await t.db.costRollup.createMany({
      data: [
        rollup(DAY, alpha, keyWorkflowId(nightly.id), "openai/gpt-4.1", 3, 0.3),
        rollup(DAY, alpha, keyWorkflowId(old.id), "openai/gpt-4.1", 2, 0.2),
        rollup(DAY, beta, keyWorkflowId(secret.id), "openai/gpt-4.1", 1, 0.1),
        // A row of team alpha whose workflow id names beta's key, and one naming no key at all.
        rollup(DAY, alpha, keyWorkflowId(secret.id), "mistral/tiny", 1, 0.05),
        rollup(DAY, alpha, keyWorkflowId("no-such-key"), "openai/gpt-4.1", 1, 0.01),
      ],
    });
    const range = { from: DAY, to: DAY, groupBy: "workflow" as const };
    const labels = (s: Awaited<ReturnType<typeof costSummary>>) => Object.fromEntries(s.groups.map((g) => [g.key, g.label]));

    const asAdmin = await costSummary(t.db, range, admin, NOW);
    expect(labels(asAdmin)).toEqual({
      [keyWorkflowId(nightly.id)]: "Gateway key nightly scripts",
      [keyWorkflowId(old.id)]: "Gateway key old ci (revoked)",
      [keyWorkflowId(secret.id)]: "Gateway key beta's secret project",
      [keyWorkflowId("no-such-key")]: UNKNOWN_KEY_LABEL,
    });
    // The chart's series carry the same labels; the ids stay the keys.
    expect(asAdmin.series.keys.find((k) => k.key === keyWorkflowId(nightly.id))?.label).toBe("Gateway key nightly scripts");

    const asAlpha = await costSummary(t.db, range, alphaViewer, NOW);
    expect(labels(asAlpha)).toEqual({
      [keyWorkflowId(nightly.id)]: "Gateway key nightly scripts",
      [keyWorkflowId(old.id)]: "Gateway key old ci (revoked)",
      // Alpha's row naming beta's key: counted for alpha, but beta's key's name is not alpha's to see.
      [keyWorkflowId(secret.id)]: UNKNOWN_KEY_LABEL,
      [keyWorkflowId("no-such-key")]: UNKNOWN_KEY_LABEL,
    });
    expect(JSON.stringify(asAlpha)).not.toContain("secret project");
    expect(asAlpha.groups.find((g) => g.key === keyWorkflowId(secret.id))?.costUsd).toBe(0.05);

    const asBeta = await costSummary(t.db, range, { role: "viewer", teamIds: [beta] }, NOW);
    expect(labels(asBeta)).toEqual({ [keyWorkflowId(secret.id)]: "Gateway key beta's secret project" });

    // Grouped by team or model, a key's calls are just part of its team's and its model's figures.
    const byTeam = await costSummary(t.db, { ...range, groupBy: "team" }, admin, NOW);
    expect(byTeam.groups.map((g) => g.label).sort()).toEqual(["alpha", "beta"]);
  });

  it("an empty range is all zeros, not an error", async () => {
    const s = await costSummary(t.db, { from: "2025-01-01", to: "2025-01-07" }, admin, NOW);
    expect(s.totals).toMatchObject({ costUsd: 0, calls: 0, runs: 0 });
    expect(s.groups).toEqual([]);
    expect(s.series.keys).toEqual([]);
    expect(s.series.days).toHaveLength(7);
  });
});
