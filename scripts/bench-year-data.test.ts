// The year's data generator on both databases: the figures the Costs page reads (rollups) and the
// runs' totals are the spans' own, the sizes asked for are written, and the people and run the
// benchmark acts with exist and see what it expects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadActor } from "@/server/identity";
import { listRuns } from "@/server/kernel";
import { TEST_DATABASES } from "@/test/helpers/databases";
import type { TestDb } from "@/test/helpers/db";
import { generateYear, type YearPeople } from "./bench-year-data";

const SIZE = { runs: 300, events: 12_000, spans: 3_000, teams: 5, requests: 30, audit: 1_500 };

describe.each(TEST_DATABASES)("the year's data on $name", (database) => {
  let t: TestDb;
  let people: YearPeople;

  beforeAll(async () => {
    t = await database.open();
    people = await generateYear(t.url, SIZE, Date.parse("2027-01-01T00:00:00Z"), () => {});
  });
  afterAll(() => t?.cleanup());

  it("writes the sizes asked for, within a rounding", async () => {
    const { db } = t;
    expect(await db.run.count()).toBe(SIZE.runs);
    expect(await db.team.count()).toBe(SIZE.teams);
    expect(Math.abs((await db.runEvent.count()) - SIZE.events)).toBeLessThan(SIZE.events * 0.15);
    expect(Math.abs((await db.span.count()) - SIZE.spans)).toBeLessThan(SIZE.spans * 0.1);
    expect(await db.humanRequest.count()).toBe(SIZE.requests);
    expect(await db.humanRequest.count({ where: { state: "PENDING" } })).toBeGreaterThan(0);
    expect(Math.abs((await db.auditEntry.count()) - SIZE.audit)).toBeLessThan(SIZE.audit * 0.2);
  });

  it("keeps the cost rollups equal to the model calls' spans", async () => {
    const { db } = t;
    const spans = await db.span.aggregate({ where: { kind: "chat" }, _count: { _all: true }, _sum: { costUsd: true, inputTokens: true } });
    const rollups = await db.costRollup.aggregate({ _sum: { calls: true, costUsd: true, inputTokens: true } });
    expect(rollups._sum.calls).toBe(spans._count._all);
    expect(rollups._sum.inputTokens).toBe(spans._sum.inputTokens);
    expect(rollups._sum.costUsd).toBeCloseTo(spans._sum.costUsd!, 6);
    const ended = await db.span.count({ where: { kind: { in: ["chat", "execute_tool"] }, endTime: { not: null } } });
    expect((await db.spanRollup.aggregate({ _sum: { count: true } }))._sum.count).toBe(ended);
  });

  it("gives each run the totals of its spans and events", async () => {
    const { db } = t;
    const run = await db.run.findUniqueOrThrow({ where: { id: people.sampleRunId } });
    const chats = await db.span.aggregate({ where: { runId: run.id, kind: "chat" }, _count: { _all: true }, _sum: { costUsd: true } });
    expect(run.stepCount).toBe(chats._count._all);
    expect(run.costUsd).toBeCloseTo(chats._sum.costUsd ?? 0, 9);
    expect(run.lastSeq).toBe(await db.runEvent.count({ where: { runId: run.id } }));
  });

  it("puts the member in two teams, and the sample run in one of them", async () => {
    const member = (await loadActor(t.db, people.memberId))!;
    expect([...member.teamIds].sort()).toEqual([...people.memberTeams].sort());
    const seen = await listRuns(t.db, { limit: 200 }, member);
    expect(seen.runs.length).toBeGreaterThan(0);
    expect(seen.runs.every((r) => people.memberTeams.includes(r.teamId!))).toBe(true);
    const sample = await t.db.run.findUniqueOrThrow({ where: { id: people.sampleRunId } });
    expect(people.memberTeams).toContain(sample.teamId);
  });
});
