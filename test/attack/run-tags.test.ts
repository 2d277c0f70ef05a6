// Attack suite: tags and bulk cancel on the Runs list. Tagging or cancelling
// another team's run, a viewer doing either in their own team, a person who
// is only a viewer in the run's team, and oversized or malformed tags are all
// refused, and the run is left as it was.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createUser, ensureTeam, loadActor, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let outsider: Actor; // operator of another team
let split: Actor; // operator in "tags-alpha", viewer in the default team
let ownRun: string;

const caller = (actor: Actor) => callerFor(tk, actor);
const tagsOf = async (id: string) =>
  (await tk.t.db.runTag.findMany({ where: { runId: id }, select: { tag: true }, orderBy: { tag: "asc" } })).map((t) => t.tag);
const statusOf = async (id: string) => (await tk.t.db.run.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;

beforeAll(async () => {
  tk = await createTestKernel();
  const db = tk.t.db;
  const outsiderId = await createUser(db, {
    email: "tags-outsider@rein.test",
    password: "password-123",
    role: "operator",
    teams: ["tags-elsewhere"],
  });
  outsider = (await loadActor(db, outsiderId))!;
  const alpha = await ensureTeam(db, "tags-alpha");
  const splitId = await createUser(db, { email: "tags-split@rein.test", password: "password-123", role: "viewer", teams: [] });
  await db.teamMember.createMany({
    data: [
      { teamId: alpha, userId: splitId, role: "operator" },
      { teamId: tk.actors.viewer.teamIds[0], userId: splitId, role: "viewer" },
    ],
  });
  split = (await loadActor(db, splitId))!;
  ownRun = (
    await db.run.create({
      data: {
        goal: "Tag target",
        agentName: "demo-coder",
        agentVersion: 1,
        model: "scripted/demo-coder",
        status: "queued",
        createdById: tk.users.operator,
        teamId: tk.actors.operator.teamIds[0],
        tags: { create: [{ tag: "keep" }] },
      },
      select: { id: true },
    })
  ).id;
});
afterAll(async () => tk?.cleanup());

describe("tagging a run", () => {
  it("of another team is NOT_FOUND and changes nothing", async () => {
    const err = await trpcError(caller(outsider).runs.setTags({ id: ownRun, tags: ["pwned"] }));
    expect(err.code).toBe("NOT_FOUND");
    expect(await tagsOf(ownRun)).toEqual(["keep"]);
  });

  it("as a viewer, or as a viewer in the run's team who operates elsewhere, is FORBIDDEN", async () => {
    expect((await trpcError(caller(tk.actors.viewer).runs.setTags({ id: ownRun, tags: ["pwned"] }))).code).toBe("FORBIDDEN");
    const err = await trpcError(caller(split).runs.setTags({ id: ownRun, tags: ["pwned"] }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toMatch(/Tagging a run needs the operator role/);
    expect(await tagsOf(ownRun)).toEqual(["keep"]);
  });

  it("with oversized, malformed or too many tags is BAD_REQUEST and changes nothing", async () => {
    const bad: string[][] = [
      ["x".repeat(33)],
      ["has space"],
      ["<script>"],
      ["semi;colon"],
      ["../etc"],
      [""],
      ["ünïcode"],
      Array.from({ length: 11 }, (_, i) => `t${i}`),
    ];
    for (const tags of bad) {
      expect((await trpcError(caller(tk.actors.operator).runs.setTags({ id: ownRun, tags }))).code, JSON.stringify(tags)).toBe(
        "BAD_REQUEST",
      );
    }
    // A string where a list belongs, and a list of numbers.
    expect((await trpcError(caller(tk.actors.operator).runs.setTags({ id: ownRun, tags: "a,b" as unknown as string[] }))).code).toBe(
      "BAD_REQUEST",
    );
    expect((await trpcError(caller(tk.actors.operator).runs.setTags({ id: ownRun, tags: [1, 2] as unknown as string[] }))).code).toBe(
      "BAD_REQUEST",
    );
    expect(await tagsOf(ownRun)).toEqual(["keep"]);
  });

  it("at launch with a bad tag is refused before a run is written", async () => {
    const before = await tk.t.db.run.count();
    const err = await trpcError(
      caller(tk.actors.operator).runs.create({ goal: "x", agent: "demo-coder", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
    );
    expect(err.code).toBe("BAD_REQUEST");
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("a tag filter with a malformed tag is refused, not turned into a wider query", async () => {
    expect((await trpcError(caller(tk.actors.operator).runs.list({ tag: "%" }))).code).toBe("BAD_REQUEST");
    const list = await caller(outsider).runs.list({ tag: "keep" });
    expect(list.runs.map((r) => r.id)).not.toContain(ownRun);
  });
});

describe("cancelling several runs", () => {
  it("never cancels another team's run or one where the person is only a viewer", async () => {
    const out = await caller(outsider).runs.cancelMany({ ids: [ownRun] });
    expect(out).toEqual([{ id: ownRun, outcome: "not_found", message: `Run ${ownRun} was not found` }]);
    const mixed = await caller(split).runs.cancelMany({ ids: [ownRun] });
    expect(mixed[0].outcome).toBe("forbidden");
    expect(await statusOf(ownRun)).toBe("queued");
  });

  it("is refused outright for a viewer, and for more than 100 ids", async () => {
    expect((await trpcError(caller(tk.actors.viewer).runs.cancelMany({ ids: [ownRun] }))).code).toBe("FORBIDDEN");
    expect((await trpcError(caller(tk.actors.operator).runs.cancelMany({ ids: Array.from({ length: 101 }, () => ownRun) }))).code).toBe(
      "BAD_REQUEST",
    );
    expect(await statusOf(ownRun)).toBe("queued");
  });
});
