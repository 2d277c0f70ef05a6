// Attack suite, issue class 15: a person's role differs by team. Someone who
// is an approver in one team and a viewer in another can launch runs, steer
// them and decide their requests only in the first; naming another team's id,
// a team they are not in or an archived team is refused; and the terminal,
// desktop and controls judge them by the run's team, not their best team.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { actorInTeam, createUser, ensureTeam, gateRefusal, loadActor, roleIn, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";
import { waitFor } from "../helpers/wait";

let tk: TestKernel;
let split: Actor; // own role viewer; approver in alpha, viewer in beta
let alpha: string;
let beta: string;
let gamma: string;
let archived: string;

const caller = (actor: Actor) => callerFor(tk, actor);

async function requestOf(runId: string) {
  return waitFor(() => tk.t.db.humanRequest.findFirst({ where: { runId, state: "PENDING" } }), "the approval request");
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const db = tk.t.db;
  [alpha, beta, gamma, archived] = await Promise.all(["alpha", "beta", "gamma", "old-team"].map((n) => ensureTeam(db, n)));
  await db.team.update({ where: { id: archived }, data: { archivedAt: new Date() } });
  const id = await createUser(db, { email: "split@rein.test", password: "password-123", role: "viewer", teams: [] });
  await db.teamMember.createMany({
    data: [
      { teamId: alpha, userId: id, role: "approver" },
      { teamId: beta, userId: id, role: "viewer" },
      { teamId: archived, userId: id, role: "operator" },
    ],
  });
  split = (await loadActor(db, id))!;
  // The admin is in no team of these but may launch in any.
  await db.teamMember.createMany({ data: [alpha, beta].map((teamId) => ({ teamId, userId: tk.actors.admin.userId, role: "viewer" })) });
  tk.actors.admin = (await loadActor(db, tk.actors.admin.userId))!;
});

afterAll(async () => tk?.cleanup());

describe("roles per team", () => {
  it("are what loadActor reports, and the gates use the best of them except for admin", () => {
    expect(roleIn(split, alpha)).toBe("approver");
    expect(roleIn(split, beta)).toBe("viewer");
    expect(roleIn(split, gamma)).toBeNull();
    expect(roleIn(split, null)).toBe("viewer");
    expect(gateRefusal(split, "operator")).toBeNull();
    expect(gateRefusal(split, "admin")).toMatch(/needs the admin role; you are viewer/);
    expect(actorInTeam(split, beta).role).toBe("viewer");
    expect(actorInTeam(split, gamma).role).toBe("viewer");
  });

  it("a team admin is not an admin of Rein", async () => {
    const db = tk.t.db;
    const id = await createUser(db, { email: "team-admin@rein.test", password: "password-123", role: "viewer", teams: [] });
    await db.teamMember.create({ data: { teamId: alpha, userId: id, role: "admin" } });
    const teamAdmin = (await loadActor(db, id))!;
    expect(roleIn(teamAdmin, alpha)).toBe("admin");
    for (const call of [caller(teamAdmin).users.list(), caller(teamAdmin).policy.active(), caller(teamAdmin).secrets.list()]) {
      expect((await trpcError(call)).code).toBe("FORBIDDEN");
    }
  });
});

describe("launching a run", () => {
  it("works in a team where the person is operator or more, and is remembered", async () => {
    const run = await caller(split).runs.create({ goal: "Write a haiku", agent: "demo-coder", teamId: alpha });
    expect(run.teamId).toBe(alpha);
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: split.userId } })).lastTeamId).toBe(alpha);
    const again = await caller(split).runs.create({ goal: "Another haiku", agent: "demo-coder" });
    expect(again.teamId).toBe(alpha);
  });

  it("is refused in a team where the person is a viewer", async () => {
    const err = await trpcError(caller(split).runs.create({ goal: "x", agent: "demo-coder", teamId: beta }));
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toMatch(/needs the operator role; you are viewer in this team/);
  });

  it("is refused in a team the person is not in, by id, as if it did not exist", async () => {
    const err = await trpcError(caller(split).runs.create({ goal: "x", agent: "demo-coder", teamId: gamma }));
    expect(err.code).toBe("NOT_FOUND");
    expect(err.message).not.toMatch(/gamma/);
    const made = await tk.t.db.run.count({ where: { teamId: gamma } });
    expect(made).toBe(0);
  });

  it("is refused in an archived team, even for an operator of it", async () => {
    const err = await trpcError(caller(split).runs.create({ goal: "x", agent: "demo-coder", teamId: archived }));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toMatch(/archived/);
  });
});

describe("steering and deciding", () => {
  let alphaRun: string;
  let betaRun: string;

  beforeAll(async () => {
    alphaRun = (await createRun(tk.kernel, { goal: "Deploy alpha", agent: "demo-deploy", teamId: alpha }, tk.actors.admin)).id;
    betaRun = (await createRun(tk.kernel, { goal: "Deploy beta", agent: "demo-deploy", teamId: beta }, tk.actors.admin)).id;
    await Promise.all([requestOf(alphaRun), requestOf(betaRun)]);
  });

  it("the Inbox badge counts only what the person may decide", async () => {
    expect(await caller(split).humanRequests.openCount()).toBe(1);
  });

  it("an approver in alpha decides alpha's request but not beta's, which they only watch", async () => {
    const betaRequest = await requestOf(betaRun);
    const refused = await trpcError(caller(split).humanRequests.decide({ id: betaRequest.id, decision: "approve" }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.message).toMatch(/needs the approver role; you are viewer in this run's team/);
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: betaRequest.id } })).state).toBe("PENDING");
    const linkRefused = await trpcError(caller(split).humanRequests.createLink({ id: betaRequest.id }));
    expect(linkRefused.code).toBe("FORBIDDEN");

    const alphaRequest = await requestOf(alphaRun);
    const decided = await caller(split).humanRequests.decide({ id: alphaRequest.id, decision: "approve" });
    expect(decided.state).toBe("APPROVED");
  });

  it("a viewer of beta cannot pause, cancel or edit the files of beta's run", async () => {
    for (const call of [
      caller(split).runs.pause({ id: betaRun }),
      caller(split).runs.cancel({ id: betaRun }),
      caller(split).files.save({ runId: betaRun, path: "x.txt", content: "x" }),
    ]) {
      const err = await trpcError(call);
      expect(err.code).toBe("FORBIDDEN");
    }
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: betaRun } })).status).not.toBe("canceled");
  });
});
