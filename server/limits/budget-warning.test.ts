// A budget past 80% tells the channels once (issue 19): one budget.warning
// outbox message per run, and one per team and month, however often the
// budgets are checked; none below 80% or once the budget is spent (that
// stop is reported as budget.exceeded with the run's failure). A team gateway
// key's calls (docs/gateway.md#team-keys) share the team's one warning a month.
import { afterEach, beforeEach, expect, it } from "vitest";
import { createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { Budgets } from "./budgets";

let t: TestDb;
let budgets: Budgets;
let userId: string;
const NOW = new Date("2026-11-27T12:00:00Z");

beforeEach(async () => {
  t = await createTestDb();
  budgets = new Budgets({ db: t.db, flush: async () => {}, now: () => NOW });
  userId = await createUser(t.db, { email: "ops@rein.test", password: "password-123", role: "operator" });
});
afterEach(async () => t.cleanup());

async function runSpending(usd: number, opts: { budgetUsd?: number; teamId?: string } = {}) {
  const run = await t.db.run.create({
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
  await t.db.span.create({
    data: {
      spanId: `s-${run.id}`,
      traceId: run.id,
      runId: run.id,
      kind: "chat",
      name: "chat",
      startTime: NOW,
      costUsd: usd,
      workflowId: "demo-coder",
      attributes: "{}",
    },
  });
  return run.id;
}

const warnings = () => t.db.outboxMessage.findMany({ where: { type: "budget.warning" } });

it("a run past 80% of its own budget is reported once", async () => {
  const below = await runSpending(0.7, { budgetUsd: 1 });
  await budgets.beforeModelCall(below);
  expect(await warnings()).toHaveLength(0);
  const past = await runSpending(0.85, { budgetUsd: 1 });
  await budgets.beforeModelCall(past);
  await budgets.beforeModelCall(past);
  const [w] = await warnings();
  expect(await warnings()).toHaveLength(1);
  expect(w.runId).toBe(past);
  expect(JSON.parse(w.data)).toMatchObject({ runId: past, scope: "run", spentUsd: 0.85, budgetUsd: 1 });
  const spent = await runSpending(1.2, { budgetUsd: 1 });
  expect((await budgets.beforeModelCall(spent)).ok).toBe(false);
  expect(await warnings()).toHaveLength(1);
});

it("a team past 80% of its month's budget is reported once that month", async () => {
  const team = await t.db.team.create({ data: { name: "red", budgetUsd: 10 } });
  await t.db.costRollup.create({ data: { day: "2026-11-02", teamId: team.id, workflowId: "w", model: "m", costUsd: 8.5 } });
  await t.db.costRollup.create({ data: { day: "2026-10-30", teamId: team.id, workflowId: "w", model: "m", costUsd: 100 } });
  const a = await runSpending(0.01, { teamId: team.id });
  const b = await runSpending(0.01, { teamId: team.id });
  expect((await budgets.beforeModelCall(a)).ok).toBe(true);
  expect((await budgets.beforeModelCall(b)).ok).toBe(true);
  const all = await warnings();
  expect(all).toHaveLength(1);
  expect(JSON.parse(all[0].data)).toMatchObject({
    scope: "team",
    teamId: team.id,
    team: "red",
    month: "2026-11",
    spentUsd: 8.5,
    budgetUsd: 10,
  });
});

it("a team past 80% through a gateway key's calls is reported once that month, shared with its runs", async () => {
  const team = await t.db.team.create({ data: { name: "blue", budgetUsd: 10 } });
  const other = await t.db.team.create({ data: { name: "green", budgetUsd: 10 } });
  await t.db.costRollup.create({ data: { day: "2026-11-03", teamId: team.id, workflowId: "gateway-key:k1", model: "m", costUsd: 7.9 } });
  await t.db.costRollup.create({ data: { day: "2026-11-03", teamId: other.id, workflowId: "w", model: "m", costUsd: 9 } });
  // Below 80%: nothing.
  expect((await budgets.beforeTeamCall(team.id, 0.01, { gatewayKeyId: "k1" })).ok).toBe(true);
  expect(await warnings()).toHaveLength(0);
  await t.db.costRollup.create({ data: { day: "2026-11-04", teamId: team.id, workflowId: "gateway-key:k1", model: "m", costUsd: 0.2 } });
  expect((await budgets.beforeTeamCall(team.id, 0.01, { gatewayKeyId: "k1" })).ok).toBe(true);
  expect((await budgets.beforeTeamCall(team.id, 0.01, { gatewayKeyId: "k2" })).ok).toBe(true);
  // A run of the team checked later the same month finds it told already.
  await budgets.beforeModelCall(await runSpending(0.01, { teamId: team.id }));
  const all = await warnings();
  expect(all).toHaveLength(1);
  // It belongs to no run: it names the team and the key instead (no link to a run page).
  expect(all[0].runId).toBeNull();
  const data = JSON.parse(all[0].data);
  expect(data).toEqual({
    gatewayKeyId: "k1",
    scope: "team",
    teamId: team.id,
    team: "blue",
    month: "2026-11",
    spentUsd: 8.1,
    budgetUsd: 10,
    share: 0.8,
  });
  // Another team is its own warning; a spent budget is a refusal, not a warning.
  expect((await budgets.beforeTeamCall(other.id, 0.01, { gatewayKeyId: "k3" })).ok).toBe(true);
  expect(await warnings()).toHaveLength(2);
  await t.db.costRollup.create({ data: { day: "2026-11-05", teamId: other.id, workflowId: "w", model: "m", costUsd: 2 } });
  await t.db.outboxMessage.deleteMany({ where: { type: "budget.warning" } });
  expect((await budgets.beforeTeamCall(other.id, 0.01, { gatewayKeyId: "k3" })).ok).toBe(false);
  expect(await warnings()).toHaveLength(0);
});

it("a run that crossed first leaves nothing more for the key's calls to report", async () => {
  const team = await t.db.team.create({ data: { name: "amber", budgetUsd: 10 } });
  await t.db.costRollup.create({ data: { day: "2026-11-02", teamId: team.id, workflowId: "w", model: "m", costUsd: 9 } });
  const run = await runSpending(0.01, { teamId: team.id });
  await budgets.beforeModelCall(run);
  await budgets.beforeTeamCall(team.id, 0.01, { gatewayKeyId: "k1" });
  const all = await warnings();
  expect(all).toHaveLength(1);
  expect(all[0].runId).toBe(run);
});
