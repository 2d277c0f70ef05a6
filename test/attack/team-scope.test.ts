// Attack suite, issue class 9: team visibility holds for signed links and
// for the Inbox badge. An approver of another team who is sent a link to a
// run's request sees nothing of the run and cannot decide (the link stays
// unused); the badge counts only requests the person may see, and the Traces
// list shows only runs they may open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createResumeLink } from "@/server/hitl";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";
import { waitFor } from "../helpers/wait";

let tk: TestKernel;
let outsider: Actor;
let requestId: string;

const caller = (actor: Actor) => callerFor(tk, actor);

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const id = await createUser(tk.t.db, { email: "approver@other.team", password: "password-123", role: "approver", teams: ["other-team"] });
  outsider = (await loadActor(tk.t.db, id))!;
  const run = await createRun(tk.kernel, { goal: "Deploy", agent: "demo-deploy" }, tk.actors.operator);
  const request = await waitFor(
    () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, state: "PENDING" } }),
    "the approval request",
  );
  requestId = request.id;
});

afterAll(async () => tk?.cleanup());

describe("a signed link opened by an approver of another team", () => {
  it("shows nothing of the run, and deciding through it is refused without using it up", async () => {
    const approver = tk.actors.approver;
    const link = await createResumeLink(
      tk.hitl!.links,
      requestId,
      { id: approver.userId, name: approver.name, role: approver.role },
      { channel: "inbox" },
    );
    const token = new URL(link.url, "http://rein.test").searchParams.get("t")!;

    const opened = await trpcError(caller(outsider).humanRequests.openLink({ token }));
    expect(opened.code).toBe("FORBIDDEN");
    expect(opened.message).toMatch(/team you are not in/);
    expect(JSON.stringify(opened)).not.toMatch(/deploy\.sh/);

    const decided = await trpcError(caller(outsider).humanRequests.decideWithLink({ token, decision: "approve" }));
    expect(decided.code).toBe("FORBIDDEN");
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("PENDING");

    // The link still works for an approver of the run's team.
    const insider = tk.actors.approver;
    const view = await caller(insider).humanRequests.openLink({ token });
    expect(view.request.id).toBe(requestId);
  });
});

describe("the Inbox badge", () => {
  it("counts only requests of runs the person may see", async () => {
    expect(await caller(outsider).humanRequests.openCount()).toBe(0);
    expect(await caller(tk.actors.approver).humanRequests.openCount()).toBe(1);
    expect(await caller(tk.actors.admin).humanRequests.openCount()).toBe(1);
  });
});

describe("the Traces list", () => {
  it("never shows another team's runs, whatever the filter names", async () => {
    const run = await tk.t.db.run.findFirstOrThrow({ where: { goal: "Deploy" }, select: { id: true, teamId: true, createdById: true } });
    const asOutsider = caller(outsider).traces;
    for (const filter of [
      {},
      { teamId: run.teamId! },
      { userId: run.createdById },
      { q: "Deploy" },
      { agent: "demo-deploy" },
      { sort: "cost" as const },
    ]) {
      expect((await asOutsider.list(filter)).traces, JSON.stringify(filter)).toEqual([]);
    }
    expect((await caller(tk.actors.approver).traces.list({})).traces.map((t) => t.runId)).toContain(run.id);
  });
});

describe("searching runs (the command palette and the Runs page)", () => {
  it("finds a run by its goal or whole id only for people who may see it", async () => {
    const [run] = (await caller(tk.actors.admin).runs.list({ q: "Deploy" })).runs;
    expect(run).toBeDefined();
    expect((await caller(tk.actors.approver).runs.list({ q: run.id })).runs.map((r) => r.id)).toEqual([run.id]);
    expect((await caller(tk.actors.approver).runs.list({ q: "Deploy" })).runs.map((r) => r.id)).toContain(run.id);
    expect((await caller(outsider).runs.list({ q: run.id })).runs).toEqual([]);
    expect((await caller(outsider).runs.list({ q: "Deploy" })).runs).toEqual([]);
  });
});
