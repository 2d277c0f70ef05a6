// Budgets before each model call (docs/runs.md#limits): the run's ceiling, the
// default ceiling for runs and the team's monthly budget each apply on their
// own, in every combination; a run over one stops before the call, with the
// reason. The call cap needs a cost ceiling to be raised.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { SETTING_RUN_BUDGET } from "@/server/limits";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

let tk: TestKernel;
let teamId: string;

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true });
  // Expensive enough that a demo-coder run costs a few dollars over its six model calls.
  await tk.t.db.modelPrice.create({ data: { model: "scripted/demo-coder", inputPerMTok: 1000, outputPerMTok: 1000 } });
  await tk.telemetry!.telemetry.loadPrices();
  teamId = tk.actors.operator.teamIds[0];
}, 60_000);
afterAll(async () => {
  await tk.cleanup();
});

const TIGHT = 0.5;
const LOOSE = 10_000;

async function runWith(opts: { run: number | null; defaultRun: number | null; team: number | null }) {
  await tk.t.db.setting.deleteMany();
  if (opts.defaultRun !== null) await tk.t.db.setting.create({ data: { key: SETTING_RUN_BUDGET, value: JSON.stringify(opts.defaultRun) } });
  // A team's budget is for the month: start each case from an empty month for the team.
  await tk.t.db.costRollup.deleteMany();
  await tk.t.db.team.update({ where: { id: teamId }, data: { budgetUsd: opts.team } });
  const run = await createRun(
    tk.kernel,
    { goal: "Write fizzbuzz", agent: "demo-coder", ...(opts.run !== null ? { budgetUsd: opts.run } : {}) },
    tk.actors.operator,
  );
  const status = await tk.settle(run.id);
  await tk.telemetry!.sink.flush();
  const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
  const calls = await tk.t.db.span.findMany({
    where: { runId: run.id, kind: "chat" },
    orderBy: { startTime: "asc" },
    select: { costUsd: true },
  });
  return { status, row, calls };
}

const CASES = [null, TIGHT, LOOSE].flatMap((run) =>
  [null, TIGHT, LOOSE].flatMap((defaultRun) => [null, TIGHT, LOOSE].map((team) => ({ run, defaultRun, team }))),
);

describe("budgets before each model call", () => {
  it.each(CASES)(
    "run $run, default $defaultRun, team $team",
    async (opts) => {
      const { status, row, calls } = await runWith(opts);
      const runLimit = Math.min(opts.run ?? Infinity, opts.defaultRun ?? Infinity);
      const teamLimit = opts.team ?? Infinity;
      const tight = runLimit === TIGHT || teamLimit === TIGHT;
      if (!tight) {
        expect(status).toBe("succeeded");
        return;
      }
      expect(status).toBe("failed");
      expect(row.errorCode).toBe(runLimit === TIGHT ? "RUN_BUDGET_EXCEEDED" : "TEAM_BUDGET_EXCEEDED");
      expect(row.errorMessage).toMatch(
        runLimit === TIGHT
          ? /The run has spent \$[\d.]+ of its \$0\.50 budget/
          : /Team .* has spent \$[\d.]+ of its \$0\.50 budget for \d{4}-\d{2}/,
      );
      // Every call that was made started below the limit: the stop came before a call, never after it.
      let before = 0;
      for (const c of calls) {
        expect(before).toBeLessThan(Math.min(runLimit, teamLimit));
        before += c.costUsd;
      }
      expect(calls.length).toBeLessThan(6);
    },
    30_000,
  );

  it("raising the call cap above 50 needs a cost ceiling", async () => {
    await expect(createRun(tk.kernel, { goal: "g", agent: "demo-coder", maxSteps: 80 }, tk.actors.operator)).rejects.toThrow(
      /needs a cost ceiling: set budgetUsd too/,
    );
    const ok = await createRun(tk.kernel, { goal: "g", agent: "demo-coder", maxSteps: 80, budgetUsd: 5000 }, tk.actors.operator);
    expect(ok.id).toBeTruthy();
    await tk.settle(ok.id);
  });

  it("the call cap stops the run before the call past it", async () => {
    await tk.t.db.setting.deleteMany();
    await tk.t.db.team.update({ where: { id: teamId }, data: { budgetUsd: null } });
    const run = await createRun(tk.kernel, { goal: "g", agent: "demo-coder", maxSteps: 2 }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("failed");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row).toMatchObject({ errorCode: "STEP_LIMIT", stepCount: 2 });
    expect(row.errorMessage).toBe("The run reached its limit of 2 model calls");
  });
});
