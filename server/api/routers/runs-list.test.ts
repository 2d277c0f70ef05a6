// runs.list sorting, date range and tags, runs.setTags and runs.cancelMany
// through createCaller on a real SQLite database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let tk: TestKernel;
let other: Actor;
const caller = (actor: Actor) => callerFor(tk, actor);

/** A run row written directly (no worker picks it up), in the operator's team unless told. */
async function row(data: {
  goal: string;
  costUsd?: number;
  status?: string;
  createdAt?: Date;
  createdById?: string;
  teamId?: string;
  tags?: string[];
}) {
  const { tags, ...rest } = data;
  const run = await tk.t.db.run.create({
    data: {
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/demo-coder",
      createdById: tk.users.operator,
      teamId: tk.actors.operator.teamIds[0],
      ...rest,
      ...(tags ? { tags: { create: tags.map((tag) => ({ tag })) } } : {}),
    },
    select: { id: true },
  });
  return run.id;
}

/** Every page of the list with `limit` per page, concatenated. */
async function allPages(actor: Actor, input: Record<string, unknown>, limit = 2) {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await caller(actor).runs.list({ ...input, limit, cursor });
    ids.push(...page.runs.map((r) => r.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error("the list never ended");
}

beforeAll(async () => {
  tk = await createTestKernel();
  const otherId = await createUser(tk.t.db, {
    email: "list-other@test.local",
    password: "test-password-1",
    role: "operator",
    teams: ["list-other"],
  });
  other = (await loadActor(tk.t.db, otherId))!;
});
afterAll(async () => tk?.cleanup());

describe("runs.list sorting", () => {
  it("pages through equal costs in one stable order, cheapest first or dearest first", async () => {
    const costs = [0.5, 0.01, 0.5, 2, 0.5, 0];
    const ids = await Promise.all(costs.map((costUsd, i) => row({ goal: `sort-cost ${i}`, costUsd })));
    const expected = ids
      .map((id, i) => ({ id, cost: costs[i] }))
      .sort((a, b) => a.cost - b.cost || (a.id < b.id ? -1 : 1))
      .map((r) => r.id);
    expect(await allPages(tk.actors.operator, { q: "sort-cost", sort: "cost", dir: "asc" })).toEqual(expected);
    expect(await allPages(tk.actors.operator, { q: "sort-cost", sort: "cost", dir: "desc" })).toEqual([...expected].reverse());
  });

  it("sorts by who created the run, across pages", async () => {
    const a = await row({ goal: "sort-creator a", createdById: tk.users.viewer });
    const b = await row({ goal: "sort-creator b", createdById: tk.users.admin });
    const c = await row({ goal: "sort-creator c", createdById: tk.users.operator });
    const emails = new Map([
      [a, tk.actors.viewer.email],
      [b, tk.actors.admin.email],
      [c, tk.actors.operator.email],
    ]);
    const ids = await allPages(tk.actors.admin, { q: "sort-creator", sort: "creator", dir: "asc" }, 1);
    expect(ids.map((id) => emails.get(id))).toEqual([...emails.values()].sort());
  });

  it("refuses a column it cannot sort by", async () => {
    expect((await trpcError(caller(tk.actors.operator).runs.list({ sort: "secret" as "cost" }))).code).toBe("BAD_REQUEST");
  });
});

describe("runs.list date range", () => {
  it("keeps runs created within from..to, both ends included", async () => {
    const day = (d: number) => new Date(Date.UTC(2026, 0, d, 12));
    const [early, mid, late] = await Promise.all([3, 5, 7].map((d) => row({ goal: `range run ${d}`, createdAt: day(d) })));
    const list = (input: { from?: string; to?: string }) =>
      caller(tk.actors.operator)
        .runs.list({ q: "range run", ...input })
        .then((p) => p.runs.map((r) => r.id));
    expect(await list({ from: day(5).toISOString() })).toEqual([late, mid]);
    expect(await list({ to: day(5).toISOString() })).toEqual([mid, early]);
    expect(await list({ from: day(4).toISOString(), to: day(6).toISOString() })).toEqual([mid]);
  });

  it("refuses a range that ends before it starts, and a value that is no date", async () => {
    const err = await trpcError(caller(tk.actors.operator).runs.list({ from: "2026-01-07T00:00:00Z", to: "2026-01-03T00:00:00Z" }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toMatch(/start of the date range is after its end/);
    expect((await trpcError(caller(tk.actors.operator).runs.list({ from: "yesterday" }))).code).toBe("BAD_REQUEST");
  });
});

describe("tags", () => {
  it("are set at launch (lowercased, without repeats) and found by the list's tag filter", async () => {
    const run = await caller(tk.actors.operator).runs.create({
      goal: "tagged at launch",
      agent: "demo-coder",
      scenario: [{ text: "done" }],
      tags: ["Nightly", "bug", "nightly"],
    });
    expect(run.tags).toEqual(["bug", "nightly"]);
    await row({ goal: "tagged at launch, other tag", tags: ["eval"] });
    const found = await caller(tk.actors.operator).runs.list({ tag: "nightly" });
    expect(found.runs.map((r) => r.id)).toEqual([run.id]);
    await tk.settle(run.id);
  });

  it("are replaced from the run page, and a bad tag changes nothing", async () => {
    const id = await row({ goal: "retag me", tags: ["old"] });
    expect(await caller(tk.actors.operator).runs.setTags({ id, tags: ["new", "ci:main"] })).toEqual(["ci:main", "new"]);
    expect((await caller(tk.actors.viewer).runs.get({ id })).tags).toEqual(["ci:main", "new"]);
    const err = await trpcError(caller(tk.actors.operator).runs.setTags({ id, tags: ["ok", "no spaces"] }));
    expect(err.code).toBe("BAD_REQUEST");
    expect((await caller(tk.actors.viewer).runs.get({ id })).tags).toEqual(["ci:main", "new"]);
    expect(await caller(tk.actors.operator).runs.setTags({ id, tags: [] })).toEqual([]);
  });

  it("refuse a bad tag at launch before anything is written", async () => {
    const before = await tk.t.db.run.count();
    const err = await trpcError(caller(tk.actors.operator).runs.create({ goal: "bad tag", agent: "demo-coder", tags: ["x".repeat(33)] }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(await tk.t.db.run.count()).toBe(before);
  });
});

describe("runs.cancelMany", () => {
  it("cancels the active runs and says what happened to each of the others", async () => {
    const a = await row({ goal: "bulk a", status: "queued" });
    const b = await row({ goal: "bulk b", status: "paused" });
    const done = await row({ goal: "bulk done", status: "succeeded" });
    const foreign = await row({ goal: "bulk foreign", status: "queued", createdById: other.userId, teamId: other.teamIds[0] });
    const out = await caller(tk.actors.operator).runs.cancelMany({ ids: [a, b, done, foreign, "no-such-run"] });
    expect(Object.fromEntries(out.map((o) => [o.id, o.outcome]))).toEqual({
      [a]: "canceled",
      [b]: "canceled",
      [done]: "ended",
      [foreign]: "not_found",
      "no-such-run": "not_found",
    });
    const statuses = await tk.t.db.run.findMany({ where: { id: { in: [a, b, done, foreign] } }, select: { id: true, status: true } });
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({
      [a]: "canceled",
      [b]: "canceled",
      [done]: "succeeded",
      [foreign]: "queued",
    });
  });

  it("needs at least one id and at most 100", async () => {
    expect((await trpcError(caller(tk.actors.operator).runs.cancelMany({ ids: [] }))).code).toBe("BAD_REQUEST");
    const ids = Array.from({ length: 101 }, (_, i) => `run-${i}`);
    expect((await trpcError(caller(tk.actors.operator).runs.cancelMany({ ids }))).code).toBe("BAD_REQUEST");
  });
});
