// Budget settings: validation, an audit row per change, each team's spend this
// month, and the values Budgets enforces are the ones saved here.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { listAudit } from "@/server/audit";
import { ensureTeam } from "@/server/identity";
import { Budgets, TeamNotFoundError, getBudgetSettings, setRunBudget, setTeamBudget } from "./index";

let t: TestDb;
let alpha: string;
let beta: string;
const admin = { userId: "admin-1", name: "Ada Admin" };
const NOW = new Date("2026-03-15T12:00:00Z");

beforeEach(async () => {
  t = await createTestDb();
  alpha = await ensureTeam(t.db, "alpha");
  beta = await ensureTeam(t.db, "beta");
});
afterEach(async () => {
  await t.cleanup();
});

async function zodMessages(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ZodError);
    return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  }
  throw new Error("expected a validation error");
}

describe("getBudgetSettings", () => {
  it("lists every team with its budget and this month's spend from the rollups; no default ceiling yet", async () => {
    const cost = (day: string, teamId: string, costUsd: number) => ({ day, teamId, workflowId: "w", model: "m/x", calls: 1, costUsd });
    await t.db.costRollup.createMany({
      data: [cost("2026-02-28", alpha, 99), cost("2026-03-01", alpha, 1.5), cost("2026-03-15", alpha, 0.25), cost("2026-03-02", "", 5)],
    });
    await t.db.team.update({ where: { id: alpha }, data: { budgetUsd: 20 } });
    const settings = await getBudgetSettings(t.db, { now: NOW });
    expect(settings.month).toBe("2026-03");
    expect(settings.runBudgetUsd).toBeNull();
    expect(settings.teams).toEqual([
      { id: alpha, name: "alpha", budgetUsd: 20, spentThisMonthUsd: 1.75 },
      { id: beta, name: "beta", budgetUsd: null, spentThisMonthUsd: 0 },
    ]);
    expect((await getBudgetSettings(t.db, { teamIds: [beta], now: NOW })).teams.map((x) => x.name)).toEqual(["beta"]);
  });
});

describe("setRunBudget", () => {
  it("saves the default ceiling that Budgets enforces, clears it with null, and audits both", async () => {
    const budgets = new Budgets({ db: t.db, flush: async () => {} });
    expect(await setRunBudget(t.db, 2.5, admin)).toBe(2.5);
    expect((await getBudgetSettings(t.db)).runBudgetUsd).toBe(2.5);
    expect(await budgets.defaultRunBudget()).toBe(2.5);
    await setRunBudget(t.db, null, admin);
    expect((await getBudgetSettings(t.db)).runBudgetUsd).toBeNull();
    expect(await budgets.defaultRunBudget()).toBeNull();

    const audit = (await listAudit(t.db, { kind: "budget.updated" })).entries;
    expect(audit).toHaveLength(2);
    expect(audit.map((a) => a.detail)).toEqual([
      { scope: "run", before: 2.5, after: null },
      { scope: "run", before: null, after: 2.5 },
    ]);
    expect(audit[0]).toMatchObject({ actorId: admin.userId, actorName: admin.name, channel: "admin", subject: "default run ceiling" });
  });

  it.each([
    ["zero", 0, "budgetUsd: must be more than 0 (clear it to have no budget)"],
    ["a negative amount", -1, "budgetUsd: must be more than 0"],
    ["infinity", Infinity, "budgetUsd: must be a finite number"],
    ["not a number", Number.NaN, "budgetUsd: must be a finite number"],
    ["over a million", 1_000_001, "budgetUsd: is at most 1,000,000 USD"],
  ])("refuses %s, saving and auditing nothing", async (_label, value, message) => {
    const messages = await zodMessages(setRunBudget(t.db, value, admin));
    expect(messages.join("; ")).toContain(message);
    expect(await t.db.setting.count()).toBe(0);
    expect((await listAudit(t.db, { kind: "budget.updated" })).entries).toHaveLength(0);
  });

  it("takes exactly a million", async () => {
    expect(await setRunBudget(t.db, 1_000_000, admin)).toBe(1_000_000);
  });
});

describe("setTeamBudget", () => {
  it("sets and clears a team's monthly budget with an audit row each", async () => {
    const saved = await setTeamBudget(t.db, alpha, 300, admin);
    expect(saved).toMatchObject({ id: alpha, name: "alpha", budgetUsd: 300, spentThisMonthUsd: 0 });
    expect((await t.db.team.findUniqueOrThrow({ where: { id: alpha } })).budgetUsd).toBe(300);
    await setTeamBudget(t.db, alpha, null, admin);
    expect((await t.db.team.findUniqueOrThrow({ where: { id: alpha } })).budgetUsd).toBeNull();
    const audit = (await listAudit(t.db, { kind: "budget.updated" })).entries;
    expect(audit.map((a) => [a.subject, a.detail])).toEqual([
      ["team alpha", { scope: "team", teamId: alpha, before: 300, after: null }],
      ["team alpha", { scope: "team", teamId: alpha, before: null, after: 300 }],
    ]);
  });

  it("refuses a bad amount or an unknown team, changing nothing", async () => {
    expect((await zodMessages(setTeamBudget(t.db, alpha, -5, admin))).join()).toContain("budgetUsd: must be more than 0");
    await expect(setTeamBudget(t.db, "no-such-team", 5, admin)).rejects.toBeInstanceOf(TeamNotFoundError);
    expect((await zodMessages(setTeamBudget(t.db, " ", 5, admin))).join()).toContain("teamId: is required");
    expect((await t.db.team.findUniqueOrThrow({ where: { id: alpha } })).budgetUsd).toBeNull();
    expect((await listAudit(t.db, { kind: "budget.updated" })).entries).toHaveLength(0);
  });
});
