// The Trace tab's reads through tRPC on demo runs with the real kernel and
// telemetry (traces.page, traces.changes): the pages of a run's trace hold
// exactly its spans, the changes after the last watermark are none and after
// 0 are all; and a person who may not see a run gets NOT_FOUND, whatever
// they send, and never another run's span through the ids they ask about.
// The same cases on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { listRunSpans } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const DATABASES = [
  { name: "SQLite", database: "sqlite" as const },
  { name: "PostgreSQL", database: "postgres" as const },
];

describe.each(DATABASES)("a run's trace a page at a time on $name", ({ database }) => {
  let tk: TestKernel;
  let other: Actor;
  let ownRun: string;
  let otherRun: string;

  beforeAll(async () => {
    tk = await createTestKernel({ telemetry: true, database });
    other = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, { email: "other@test.local", password: "test-password-1", role: "operator", teams: ["other"] }),
    ))!;
    ownRun = (await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator)).id;
    otherRun = (await createRun(tk.kernel, { goal: "Another team's fizzbuzz", agent: "demo-coder" }, other)).id;
    expect(await tk.settle(ownRun)).toBe("succeeded");
    expect(await tk.settle(otherRun)).toBe("succeeded");
    await tk.kernel.pool.whenIdle();
    await tk.telemetry!.settle();
  });
  afterAll(async () => {
    await tk?.cleanup();
  });

  const api = (actor: Actor) => callerFor(tk, actor);

  it("pages hold exactly the run's spans, once each, in start order", async () => {
    const whole = (await listRunSpans(tk.t.db, ownRun)).spans;
    expect(whole.length).toBeGreaterThan(5);
    const seen: Array<{ spanId: string; startTime: Date }> = [];
    let cursor: string | undefined;
    do {
      const page = await api(tk.actors.viewer).traces.page({ runId: ownRun, cursor, limit: 4 });
      expect(page.run).toEqual({ id: ownRun, status: "succeeded" });
      expect(page.total).toBe(whole.length);
      seen.push(...page.spans);
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(seen.map((s) => s.spanId).sort()).toEqual(whole.map((s) => s.spanId).sort());
    expect(new Set(seen.map((s) => s.spanId)).size).toBe(seen.length);
    const starts = seen.map((s) => s.startTime.getTime());
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("changes after the page's watermark are none; after 0, every span", async () => {
    const caller = api(tk.actors.operator);
    const first = await caller.traces.page({ runId: ownRun });
    const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: ownRun } });
    expect(first.watermark).toBe(run.tracedSeq);
    expect(first.watermark).toBeGreaterThan(0);
    expect(await caller.traces.changes({ runId: ownRun, since: first.watermark })).toEqual({
      reset: false,
      spans: [],
      total: first.total,
      watermark: first.watermark,
    });
    const all = await caller.traces.changes({ runId: ownRun, since: 0 });
    expect(all.reset === false && all.spans.map((s) => s.spanId).sort()).toEqual(first.spans.map((s) => s.spanId).sort());
  });

  it("refuses another team's run: NOT_FOUND for its pages and its changes, whatever is asked", async () => {
    const outsider = api(other);
    const spanIds = (await listRunSpans(tk.t.db, ownRun)).spans.map((s) => s.spanId);
    const page = await api(tk.actors.operator).traces.page({ runId: ownRun, limit: 2 });
    for (const call of [
      () => outsider.traces.page({ runId: ownRun }),
      () => outsider.traces.page({ runId: ownRun, cursor: page.next!, limit: 2000 }),
      () => outsider.traces.changes({ runId: ownRun, since: 0 }),
      () => outsider.traces.changes({ runId: ownRun, since: 0, open: spanIds.slice(0, 200) }),
      () => outsider.traces.page({ runId: "no-such-run" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    // Their own run answers; asking about the other run's span ids brings none of them.
    const own = await outsider.traces.changes({ runId: otherRun, since: 0, open: spanIds.slice(0, 200) });
    if (own.reset) throw new Error("unexpected reset");
    expect(own.spans.length).toBeGreaterThan(0);
    expect(own.spans.filter((s) => spanIds.includes(s.spanId))).toEqual([]);
    const theirPage = await outsider.traces.page({ runId: otherRun, cursor: page.next!, limit: 2000 });
    expect(theirPage.spans.filter((s) => spanIds.includes(s.spanId))).toEqual([]);
    // An admin sees both.
    expect((await api(tk.actors.admin).traces.page({ runId: otherRun })).spans.length).toBeGreaterThan(0);
  });

  it("answers bad input with BAD_REQUEST and the field", async () => {
    const caller = api(tk.actors.viewer);
    await expect(caller.traces.page({ runId: ownRun, cursor: "bm90IGEgY3Vyc29y" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("is not a cursor from an earlier page of this trace"),
    });
    await expect(caller.traces.page({ runId: ownRun, limit: 5000 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(caller.traces.changes({ runId: ownRun, since: -1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
