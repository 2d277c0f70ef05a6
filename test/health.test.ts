// The Costs page's health dashboards through the real kernel, telemetry and
// human requests (docs/traces-and-costs.md#costs): costs.health's tool success
// rates agree with the execute_tool spans, its latency rows count every model
// and tool call, a decided request's answer time is decidedAt - createdAt, and
// the burn-down of a team's budget sums to the month's CostRollup.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainError } from "@/server/errors";
import { callerFor } from "@/test/helpers/services";
import { createRun } from "@/server/kernel";
import type { Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
const ANSWER_DELAY_MS = 90_000;

function caller(actor: Actor) {
  return callerFor(tk, actor);
}

async function flushed() {
  await tk.kernel.pool.whenIdle();
  await tk.telemetry!.settle();
}

async function settled(input: Parameters<typeof createRun>[1], expected: string) {
  const run = await createRun(tk.kernel, input, tk.actors.operator);
  expect(await tk.settle(run.id)).toBe(expected);
  return run.id;
}

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true, hitl: true });
  await caller(tk.actors.admin).prices.set({ model: "scripted/demo-coder", inputPerMTok: 100, outputPerMTok: 400 });
  await settled({ goal: "Write fizzbuzz", agent: "demo-coder" }, "succeeded");
  // Two tool calls that fail (no such file) and one that works.
  await settled(
    {
      goal: "Read what is not there",
      agent: "demo-coder",
      scenario: [
        {
          text: "Reading",
          toolCalls: [
            { tool: "read_file", args: { path: "missing-1.txt" } },
            { tool: "read_file", args: { path: "missing-2.txt" } },
          ],
        },
        { text: "Listing", toolCalls: [{ tool: "list_files", args: {} }] },
        { text: "Done" },
      ],
    },
    "succeeded",
  );
  // A request a person answers 90 s after it was asked (on the test clock).
  const deploy = await createRun(tk.kernel, { goal: "Ship it", agent: "demo-deploy" }, tk.actors.operator);
  const request = await waitFor(
    async () => (await tk.t.db.humanRequest.findFirst({ where: { runId: deploy.id, state: "PENDING" } })) ?? null,
    "the deploy run to ask a person",
  );
  tk.hitl!.clock.advance(ANSWER_DELAY_MS);
  const approver = tk.actors.approver;
  await tk.hitl!.broker.decide(
    request.id,
    { id: approver.userId, name: approver.name, role: approver.role },
    { decision: "approve" },
    "inbox",
  );
  expect(await tk.settle(deploy.id)).toBe("succeeded");
  await flushed();
});

afterAll(async () => {
  await tk?.cleanup();
});

describe("costs.health agrees with what the runs did", () => {
  it("tool calls and errors per tool equal the execute_tool spans", async () => {
    const health = await caller(tk.actors.admin).costs.health({});
    const spans = await tk.t.db.span.findMany({ where: { kind: "execute_tool" }, select: { tool: true, status: true } });
    expect(spans.length).toBeGreaterThan(3);
    const expected = new Map<string, { calls: number; errors: number }>();
    for (const s of spans) {
      const t = expected.get(s.tool!) ?? { calls: 0, errors: 0 };
      t.calls += 1;
      if (s.status === "error") t.errors += 1;
      expected.set(s.tool!, t);
    }
    expect(new Map(health.tools.map((t) => [t.tool, { calls: t.calls, errors: t.errors }]))).toEqual(expected);
    const read = health.tools.find((t) => t.tool === "read_file")!;
    expect(read.errors).toBeGreaterThanOrEqual(2);
    expect(read.successRate).toBeCloseTo((read.calls - read.errors) / read.calls, 10);
    expect(health.scope).toEqual({ tools: "all", teams: "all" });
  });

  it("latency rows count every model call and tool call, with p50 <= p95 <= p99 as powers of two", async () => {
    const health = await caller(tk.actors.admin).costs.health({});
    const chat = await tk.t.db.span.groupBy({ by: ["model"], where: { kind: "chat" }, _count: { _all: true } });
    for (const m of chat) {
      expect(health.latency.find((r) => r.kind === "chat" && r.name === m.model)?.count, `chat ${m.model}`).toBe(m._count._all);
    }
    const tools = await tk.t.db.span.groupBy({ by: ["tool"], where: { kind: "execute_tool" }, _count: { _all: true } });
    for (const t of tools) {
      expect(health.latency.find((r) => r.kind === "execute_tool" && r.name === t.tool)?.count, `tool ${t.tool}`).toBe(t._count._all);
    }
    for (const r of health.latency) {
      expect(r.p50Ms).toBeLessThanOrEqual(r.p95Ms);
      expect(r.p95Ms).toBeLessThanOrEqual(r.p99Ms);
      expect(Number.isInteger(Math.log2(r.p99Ms))).toBe(true);
    }
    // The slowest tool call of a tool is within its p99 bucket's upper bound.
    const spans = await tk.t.db.span.findMany({
      where: { kind: "execute_tool", tool: "shell" },
      select: { startTime: true, endTime: true },
    });
    const slowest = Math.max(...spans.map((s) => s.endTime!.getTime() - s.startTime.getTime()));
    expect(slowest).toBeLessThan(health.latency.find((r) => r.name === "shell")!.p99Ms);
  });

  it("a decided request's answer time is decidedAt - createdAt; the share answered counts it", async () => {
    const health = await caller(tk.actors.admin).costs.health({});
    const rows = await tk.t.db.humanRequest.findMany();
    expect(rows).toHaveLength(1);
    const answerMs = rows[0].decidedAt!.getTime() - rows[0].createdAt.getTime();
    expect(answerMs).toBeGreaterThanOrEqual(ANSWER_DELAY_MS);
    expect(health.humanRequests).toMatchObject({
      total: 1,
      answered: 1,
      expired: 0,
      open: 0,
      shareAnswered: 1,
      medianAnswerMs: answerMs,
      p95AnswerMs: answerMs,
      kinds: ["approve"],
    });
    const today = rows[0].createdAt.toISOString().slice(0, 10);
    expect(health.humanRequests.byDay.find((d) => d.day === today)).toEqual({ day: today, total: 1, counts: { approve: 1 } });
    expect(health.humanRequests.byDay.reduce((n, d) => n + d.total, 0)).toBe(1);
    expect(health.humanRequests.perRun).toBeCloseTo(1 / 3, 10);
  });

  it("a team's burn-down ends at its spend this month, the sum of the month's CostRollup", async () => {
    const admin = caller(tk.actors.admin);
    const teamId = tk.actors.operator.teamIds[0];
    expect((await admin.costs.health({})).burnDown.teams).toEqual([]); // no team has a budget yet
    await admin.budgets.setTeam({ teamId, budgetUsd: 500 });

    const { burnDown } = await admin.costs.health({});
    const month = new Date().toISOString().slice(0, 7);
    expect(burnDown.month).toBe(month);
    const team = burnDown.teams.find((t) => t.teamId === teamId)!;
    const rollup = await tk.t.db.costRollup.aggregate({ where: { teamId, day: { startsWith: month } }, _sum: { costUsd: true } });
    expect(rollup._sum.costUsd).toBeGreaterThan(0);
    expect(team.spentUsd).toBeCloseTo(rollup._sum.costUsd!, 8);
    expect(team.budgetUsd).toBe(500);
    const drawn = team.days.filter((d) => d.cumulativeUsd !== null);
    expect(drawn.at(-1)!.cumulativeUsd).toBeCloseTo(rollup._sum.costUsd!, 8);
    // Cumulative: never goes down; one point per day of the month.
    for (let i = 1; i < drawn.length; i++) expect(drawn[i].cumulativeUsd!).toBeGreaterThanOrEqual(drawn[i - 1].cumulativeUsd!);
    expect(team.days[0].day).toBe(`${month}-01`);
    // The figure Settings › Budgets shows is the same.
    const settings = await admin.budgets.get();
    expect(settings.teams.find((t) => t.id === teamId)!.spentThisMonthUsd).toBeCloseTo(team.spentUsd, 8);
  });

  it("a viewer of the team sees the same requests and budgets; one of another team sees none, but the same tools", async () => {
    const admin = await caller(tk.actors.admin).costs.health({});
    const viewer = await caller(tk.actors.viewer).costs.health({});
    expect(viewer.scope).toEqual({ tools: "all", teams: "teams" });
    expect(viewer.humanRequests.total).toBe(1);
    expect(viewer.burnDown.teams.map((t) => t.teamId)).toEqual(admin.burnDown.teams.map((t) => t.teamId));

    const { createUser, loadActor } = await import("@/server/identity");
    const outsider = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, { email: "outsider@test.local", password: "test-password-1", role: "viewer", teams: ["elsewhere"] }),
    ))!;
    const theirs = await caller(outsider).costs.health({});
    expect(theirs.humanRequests.total).toBe(0);
    expect(theirs.humanRequests.shareAnswered).toBeNull();
    expect(theirs.burnDown.teams).toEqual([]);
    expect(theirs.tools).toEqual(admin.tools);
    expect(theirs.latency).toEqual(admin.latency);
  });

  it("refuses a bad range with a clear message", async () => {
    const issues = async (input: unknown) => {
      try {
        await caller(tk.actors.admin).costs.health(input as never);
      } catch (err) {
        expect(err).toBeInstanceOf(TRPCError);
        expect((err as TRPCError).code).toBe("BAD_REQUEST");
        return ((err as TRPCError).cause as DomainError).issues!.map((i) => `${i.path}: ${i.message}`).join("; ");
      }
      throw new Error("expected the call to fail");
    };
    expect(await issues({ from: "2026-02-30" })).toMatch(/^from: must be an ISO date/);
    expect(await issues({ from: "2026-03-10", to: "2026-03-01" })).toBe("from: must not be after to (2026-03-10 is after 2026-03-01)");
    expect(await issues({ groupBy: "team" })).toMatch(/groupBy/); // summary's, not health's
  });
});
