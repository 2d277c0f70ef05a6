// Searching spans across runs (the Traces page,
// docs/traces-and-costs.md#traces--spans-searching-spans-across-runs) on demo
// runs through the real kernel and telemetry: each filter narrows to exactly
// the spans it names, a user sees only the spans of runs they may open, cursor
// paging returns every span once, and bad input gets a clear error. The same
// cases on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { callerFor } from "@/test/helpers/services";
import { dbDialect } from "@/server/db";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { resolveSpanSearch, searchSpans, spanFacets, type SpanSearch } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

const DATABASES = [
  { name: "SQLite", database: "sqlite" as const },
  { name: "PostgreSQL", database: "postgres" as const },
];

describe.each(DATABASES)("on $name", ({ database }) => {
  let tk: TestKernel;
  let other: Actor;
  let ownRun: string;
  let otherRun: string;
  let failingRun: string;
  let defaultTeam: string;
  let otherTeam: string;

  type Stored = Awaited<ReturnType<typeof allSpans>>[number];
  const allSpans = () =>
    tk.t.db.span.findMany({
      select: {
        spanId: true,
        runId: true,
        kind: true,
        name: true,
        startTime: true,
        endTime: true,
        status: true,
        teamId: true,
        workflowId: true,
        model: true,
        tool: true,
        costUsd: true,
      },
    });
  let spans: Stored[];

  const durationOf = (s: Stored) => (s.endTime ? s.endTime.getTime() - s.startTime.getTime() : null);
  /** Newest first, as the search orders them. */
  const newestFirst = (a: { startTime: Date; spanId: string }, b: { startTime: Date; spanId: string }) =>
    b.startTime.getTime() - a.startTime.getTime() || (a.spanId < b.spanId ? 1 : a.spanId > b.spanId ? -1 : 0);
  const ids = (xs: Array<{ startTime: Date; spanId: string }>) => [...xs].sort(newestFirst).map((s) => s.spanId);

  async function everything(actor: Pick<Actor, "role" | "teamIds" | "userId">, filter: SpanSearch = {}) {
    const found = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await searchSpans(tk.t.db, actor, { ...filter, cursor, limit: MAX_PAGE });
      found.push(...res.spans);
      if (!res.nextCursor) return found;
      cursor = res.nextCursor;
    }
    throw new Error("more than 100 pages");
  }
  const MAX_PAGE = 200;

  async function settled(actor: Actor, input: Parameters<typeof createRun>[1], expected = "succeeded") {
    const run = await createRun(tk.kernel, input, actor);
    expect(await tk.settle(run.id)).toBe(expected);
    return run.id;
  }

  beforeAll(async () => {
    tk = await createTestKernel({ telemetry: true, database });
    expect(dbDialect(tk.t.db)).toBe(database);
    await tk.t.db.modelPrice.create({ data: { model: "scripted/demo-coder", inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 } });
    await tk.telemetry!.telemetry.loadPrices();
    other = (await loadActor(
      tk.t.db,
      await createUser(tk.t.db, { email: "other@test.local", password: "test-password-1", role: "operator", teams: ["other"] }),
    ))!;
    ownRun = await settled(tk.actors.operator, { goal: "Write fizzbuzz", agent: "demo-coder" });
    otherRun = await settled(other, { goal: "Another team's fizzbuzz", agent: "demo-coder" });
    failingRun = await settled(tk.actors.operator, {
      goal: "Read a file that is not there",
      agent: "demo-team",
      scenario: [
        { text: "Reading.", toolCalls: [{ tool: "read_file", args: { path: "no-such-file.txt" } }] },
        { text: "It is not there." },
      ],
    });
    await tk.kernel.pool.whenIdle();
    await tk.telemetry!.settle();
    spans = await allSpans();
    defaultTeam = tk.actors.operator.teamIds[0];
    otherTeam = other.teamIds[0];
  });

  afterAll(async () => {
    await tk?.cleanup();
  });

  describe("searchSpans", () => {
    it("finds every span of every run for an admin, newest first, with the run's goal", async () => {
      expect(spans.length).toBeGreaterThan(10);
      const found = await everything(tk.actors.admin);
      expect(found.map((s) => s.spanId)).toEqual(ids(spans));
      const tool = found.find((s) => s.runId === ownRun && s.tool === "shell")!;
      expect(tool).toMatchObject({ kind: "execute_tool", runGoal: "Write fizzbuzz", workflowId: "demo-coder", teamId: defaultTeam });
      expect(tool.durationMs).toBe(tool.endTime!.getTime() - tool.startTime.getTime());
    });

    it("narrows by each filter to exactly the spans it names", async () => {
      const durations = [...new Set(spans.map(durationOf).filter((d): d is number => d !== null))].sort((a, b) => a - b);
      const mid = durations[Math.floor(durations.length / 2)];
      const costs = spans
        .map((s) => s.costUsd)
        .filter((c) => c > 0)
        .sort((a, b) => a - b);
      const cost = costs[Math.floor(costs.length / 2)];
      const cases: Array<[string, SpanSearch, (s: Stored) => boolean]> = [
        ["kind", { kind: "chat" }, (s) => s.kind === "chat"],
        ["model", { model: "scripted/demo-coder" }, (s) => s.model === "scripted/demo-coder"],
        ["tool", { tool: "shell" }, (s) => s.tool === "shell"],
        ["tool read_file", { tool: "read_file" }, (s) => s.tool === "read_file"],
        ["team", { teamId: otherTeam }, (s) => s.teamId === otherTeam],
        ["workflow", { workflowId: "demo-team" }, (s) => s.workflowId === "demo-team"],
        ["status error", { status: "error" }, (s) => s.status === "error"],
        ["status ok", { status: "ok" }, (s) => s.status === "ok" && s.endTime !== null],
        ["minimum duration", { minDurationMs: mid }, (s) => durationOf(s)! >= mid],
        ["maximum duration", { maxDurationMs: mid }, (s) => durationOf(s)! <= mid],
        ["minimum cost", { minCostUsd: cost }, (s) => s.costUsd >= cost],
        ["name text, any case", { q: "SHELL" }, (s) => s.name.toLowerCase().includes("shell")],
        [
          "kind and team together",
          { kind: "execute_tool", teamId: defaultTeam },
          (s) => s.kind === "execute_tool" && s.teamId === defaultTeam,
        ],
      ];
      for (const [what, filter, keep] of cases) {
        const expected = spans.filter(keep);
        expect(expected.length, `${what}: the demo runs have such spans`).toBeGreaterThan(0);
        expect(expected.length, `${what}: and others`).toBeLessThan(spans.length);
        expect(
          (await everything(tk.actors.admin, filter)).map((s) => s.spanId),
          what,
        ).toEqual(ids(expected));
      }
    });

    it("treats % and _ in the text as themselves", async () => {
      expect(await everything(tk.actors.admin, { q: "%" })).toEqual([]);
      expect(await everything(tk.actors.admin, { q: "_" })).toHaveLength(spans.filter((s) => s.name.includes("_")).length);
    });

    it("searches only the time range: spans after `to` or before `from` are left out", async () => {
      const sorted = [...spans].sort(newestFirst);
      const pivot = sorted[Math.floor(sorted.length / 2)].startTime;
      const before = await everything(tk.actors.admin, { to: pivot });
      expect(before.map((s) => s.spanId)).toEqual(ids(spans.filter((s) => s.startTime <= pivot)));
      const after = await everything(tk.actors.admin, { from: new Date(pivot.getTime() + 1) });
      expect(after.map((s) => s.spanId)).toEqual(ids(spans.filter((s) => s.startTime > pivot)));
      // The default range is the last 7 days: a week ago nothing had started.
      const weekAgo = new Date(Date.now() - 7 * 86_400_000);
      expect(await searchSpans(tk.t.db, tk.actors.admin, {}, weekAgo)).toMatchObject({ spans: [], nextCursor: null });
    });

    it("shows a user only the spans of runs of their teams and runs they launched", async () => {
      const ofRun = (runId: string) => ids(spans.filter((s) => s.runId === runId));
      // The other team's operator: their own run only, whatever they filter by.
      expect((await everything(other)).map((s) => s.spanId)).toEqual(ofRun(otherRun));
      expect(await everything(other, { teamId: defaultTeam })).toEqual([]);
      expect((await everything(other, { tool: "shell" })).every((s) => s.runId === otherRun)).toBe(true);
      // A viewer of the default team: both runs of that team, not the other team's.
      const viewer = await everything(tk.actors.viewer);
      expect(viewer.map((s) => s.spanId)).toEqual(ids(spans.filter((s) => s.runId !== otherRun)));
      expect(viewer.some((s) => s.runId === failingRun)).toBe(true);
      // Someone in no team who launched nothing sees nothing.
      expect(await everything({ role: "operator", teamIds: [], userId: "nobody" })).toEqual([]);
      // Launching a run is enough to see it, whatever its team.
      expect((await everything({ role: "viewer", teamIds: [], userId: other.userId })).map((s) => s.spanId)).toEqual(ofRun(otherRun));
    });

    it("finds a span still open by the time it has taken so far", async () => {
      const now = new Date();
      const open = { ...spans.find((s) => s.runId === ownRun && s.kind === "execute_tool")! };
      await tk.t.db.span.create({
        data: {
          ...open,
          spanId: "open-span-0001",
          traceId: "t",
          name: "execute_tool slow_tool",
          tool: "slow_tool",
          startTime: new Date(now.getTime() - 5_000),
          endTime: null,
          status: "unset",
          attributes: "{}",
        },
      });
      try {
        const found = (filter: SpanSearch) => searchSpans(tk.t.db, tk.actors.admin, filter, now).then((r) => r.spans.map((s) => s.spanId));
        expect(await found({ status: "open" })).toEqual(["open-span-0001"]);
        expect(await found({ status: "open", minDurationMs: 4_999 })).toEqual(["open-span-0001"]);
        expect(await found({ status: "open", minDurationMs: 5_001 })).toEqual([]);
        expect(await found({ tool: "slow_tool", maxDurationMs: 5_000 })).toEqual(["open-span-0001"]);
        expect(await found({ tool: "slow_tool", maxDurationMs: 4_999 })).toEqual([]);
        expect((await searchSpans(tk.t.db, tk.actors.admin, { status: "open" }, now)).spans[0]).toMatchObject({
          durationMs: null,
          endTime: null,
        });
      } finally {
        await tk.t.db.span.delete({ where: { runId_spanId: { runId: open.runId, spanId: "open-span-0001" } } });
      }
    });

    it("pages with a cursor: every span once, in order, whatever the page size", async () => {
      for (const limit of [1, 3, 7]) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 1000; page++) {
          const res = await searchSpans(tk.t.db, tk.actors.admin, { limit, cursor });
          expect(res.spans.length).toBeLessThanOrEqual(limit);
          seen.push(...res.spans.map((s) => s.spanId));
          if (!res.nextCursor) break;
          expect(res.spans).toHaveLength(limit);
          cursor = res.nextCursor;
        }
        expect(seen, `pages of ${limit}`).toEqual(ids(spans));
      }
      const first = await searchSpans(tk.t.db, tk.actors.admin, { limit: 2 });
      const second = await searchSpans(tk.t.db, tk.actors.admin, { limit: 2, cursor: first.nextCursor! });
      expect(second.spans.map((s) => s.spanId)).toEqual(ids(spans).slice(2, 4));
    });
  });

  function zodMessage(fn: () => unknown): string {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ZodError);
      return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    }
    throw new Error("expected a validation error");
  }

  describe("bad searches", () => {
    const NOW = new Date("2026-03-15T12:00:00Z");

    it("defaults to the last 7 days up to now, 50 at a time", () => {
      expect(resolveSpanSearch({}, NOW)).toMatchObject({ from: new Date("2026-03-08T12:00:00Z"), to: NOW, limit: 50, cursor: null });
      expect(resolveSpanSearch({ to: "2026-03-01T00:00:00Z" }, NOW)).toMatchObject({ from: new Date("2026-02-22T00:00:00Z") });
    });

    it.each([
      [
        "from after to",
        { from: "2026-03-10T00:00:00Z", to: "2026-03-01T00:00:00Z" },
        "from: must not be after to (2026-03-10T00:00:00.000Z is after 2026-03-01T00:00:00.000Z)",
      ],
      ["a range over 31 days", { from: "2026-01-01T00:00:00Z", to: "2026-03-01T00:00:00Z" }, "from: the range is at most 31 days"],
      ["a date that is not ISO", { from: "yesterday" }, 'from: must be an ISO date-time such as 2025-03-01T12:00:00Z (got "yesterday")'],
      ["a negative duration", { minDurationMs: -5 }, "minDurationMs: must not be negative"],
      ["a negative maximum duration", { maxDurationMs: -1 }, "maxDurationMs: must not be negative"],
      [
        "a minimum duration above the maximum",
        { minDurationMs: 500, maxDurationMs: 100 },
        "minDurationMs: must not be more than maxDurationMs (500 > 100)",
      ],
      ["a negative cost", { minCostUsd: -0.01 }, "minCostUsd: must not be negative"],
      ["an unknown kind", { kind: "tool" }, "kind: must be one of run, invoke_agent, chat, execute_tool, human_request, tier"],
      ["an unknown status", { status: "failed" }, "status: must be one of ok, error, unset, open"],
      ["a page over 200", { limit: 500 }, "limit: must be at most 200"],
      ["a cursor not from a page", { cursor: "bm90IGEgY3Vyc29y" }, "cursor: is not a cursor from an earlier page of this search"],
      ["an unknown parameter", { duration: 5 }, "duration"],
      ["backward paging", { direction: "backward" }, "direction: only forward paging is supported"],
    ])("refuses %s", (_what, query, message) => {
      expect(zodMessage(() => resolveSpanSearch(query as never, NOW))).toContain(message);
    });

    it("comes back through tRPC as BAD_REQUEST with the field named; the page's own input passes", async () => {
      const api = callerFor(tk, tk.actors.viewer);
      const err = (await api.traces.search({ minDurationMs: -1 }).catch((e: unknown) => e)) as { code: string; message: string };
      expect(err).toMatchObject({ code: "BAD_REQUEST" });
      expect(err.message).toContain("must not be negative");
      // What the Traces page's infinite query sends (tRPC adds the paging direction).
      const page = await api.traces.search({ tool: "shell", direction: "forward", limit: 5 });
      expect(page.spans.length).toBeGreaterThan(0);
      expect(page.spans.every((s) => s.tool === "shell")).toBe(true);
      const facets = await api.traces
        .facets({ from: "2026-03-10T00:00:00Z", to: "2026-03-01T00:00:00Z" })
        .catch((e: unknown) => e as { code: string });
      expect(facets).toMatchObject({ code: "BAD_REQUEST" });
    });
  });

  describe("spanFacets", () => {
    it("offers the models, tools, workflows and teams seen in the range, from the rollups", async () => {
      const facets = await spanFacets(tk.t.db, tk.actors.admin);
      expect(facets.models).toEqual(["scripted/demo-coder", "scripted/run-scenario"].filter((m) => spans.some((s) => s.model === m)));
      expect(facets.tools).toEqual([...new Set(spans.map((s) => s.tool).filter((t): t is string => !!t))].sort());
      expect(facets.workflows).toEqual(["demo-coder", "demo-team"]);
      expect(facets.teams.map((t) => t.name)).toEqual(["default", "other"]);
      expect(facets.teams.find((t) => t.name === "other")!.id).toBe(otherTeam);
    });

    it("offers others only their teams; nothing outside the range", async () => {
      expect((await spanFacets(tk.t.db, other)).teams).toEqual([{ id: otherTeam, name: "other" }]);
      expect((await spanFacets(tk.t.db, tk.actors.viewer)).teams).toEqual([{ id: defaultTeam, name: "default" }]);
      const lastYear = await spanFacets(tk.t.db, tk.actors.admin, { from: "2025-01-01T00:00:00Z", to: "2025-01-08T00:00:00Z" });
      expect(lastYear).toMatchObject({ models: [], tools: [], workflows: [], teams: [] });
    });
  });
});
