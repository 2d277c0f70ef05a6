// Attack suite: a change's reviewers are its repository's team, not whichever
// team its launcher names. A person in alpha and beta cannot start a change on
// alpha's repository in beta (so that beta's approvers, who cannot see the
// repository, are the ones asked); and a change whose approval was asked of
// another team (a row written before this held, or a repository moved to
// another team since) merges only on the approval of an approver of the
// repository's team as it is at the moment of merging.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { DEMO_TEST_COMMAND, Improve, seedDemoRepository, type ChangeRequests, type RepositoryView } from "@/server/improve";
import { probeSandbox } from "@/server/compute";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let improve: Improve;
let changes: ChangeRequests;
let demo: RepositoryView;
let alphaRepo: { id: string };
/** Operates in both teams: launches the changes. */
let both: Actor;
let alphaApprover: Actor;
let betaApprover: Actor;
const sandbox = probeSandbox();

const git = (args: string[]) => execFileSync("git", [`--git-dir=${demo.source}`, ...args], { encoding: "utf8" }).trim();

const scenario = {
  turns: [
    { toolCalls: [{ tool: "edit_file", args: { path: "src/price.mjs", oldString: "Math.floor(", newString: "Math.round(" } }] },
    {
      toolCalls: [
        {
          tool: "propose_change",
          args: { title: "Round discounts", hypothesis: "Math.round rounds to the nearest cent as the test expects." },
        },
      ],
    },
    { text: "done" },
  ],
};

async function person(role: "approver" | "operator", teams: string[], name: string): Promise<Actor> {
  const id = await createUser(tk.t.db, { email: `ct-${name}@test.local`, password: "test-password-1", role, teams });
  return (await loadActor(tk.t.db, id))!;
}

const decider = (a: Actor) => ({ id: a.userId, name: a.name, role: a.role, teamIds: a.teamIds, teamRoles: a.teamRoles });

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  demo = await seedDemoRepository(tk.t.db, tk.t.dir);
  improve = new Improve({
    db: tk.t.db,
    kernel: tk.kernel,
    log: SILENT_LOG,
    changes: { broker: tk.hitl!.broker, dataDir: tk.t.dir, checks: { allowUnsandboxed: !sandbox.ok } },
  });
  await improve.start({ sweepMs: 60_000 });
  changes = improve.changes!;
  both = await person("approver", ["alpha", "beta"], "both");
  alphaApprover = await person("approver", ["alpha"], "alpha-approver");
  betaApprover = await person("approver", ["beta"], "beta-approver");
  const alphaId = alphaApprover.teamIds[0];
  alphaRepo = await callerFor(tk, tk.actors.admin, { improve }).repositories.create({
    name: "alpha-repo",
    source: demo.source,
    testCommand: DEMO_TEST_COMMAND,
    teamId: alphaId,
  });
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

const betaId = () => betaApprover.teamIds[0];
const alphaId = () => alphaApprover.teamIds[0];

describe("a change's team is its repository's", () => {
  it("naming another team when starting a change on a team's repository is refused, and nothing is made", async () => {
    const before = {
      changes: await tk.t.db.changeRequest.count(),
      runs: await tk.t.db.run.count(),
      branches: git(["for-each-ref", "refs/heads/rein/"]),
    };
    const caller = callerFor(tk, both, { improve });
    const err = await trpcError(caller.changes.start({ repositoryId: alphaRepo.id, goal: "Fix the failing test", teamId: betaId() }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toMatch(/alpha-repo belongs to another team/);
    expect(await tk.t.db.changeRequest.count()).toBe(before.changes);
    expect(await tk.t.db.run.count()).toBe(before.runs);
    expect(git(["for-each-ref", "refs/heads/rein/"])).toBe(before.branches);
  });

  it("started without a team or in the repository's own, the change and its approval are the repository's team's", async () => {
    for (const teamId of [undefined, alphaId()]) {
      const change = await changes.start(
        both,
        { repositoryId: alphaRepo.id, goal: "Fix the failing test", agent: "demo-fix", scenario, ...(teamId ? { teamId } : {}) },
        "api",
      );
      await tk.settle(change.id);
      await changes.idle();
      const got = await changes.get(tk.actors.admin, change.id);
      expect(got.state).toBe("awaiting_review");
      expect(got.teamId).toBe(alphaId());
      expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: got.approval!.id } })).teamId).toBe(alphaId());
      await changes.reject(tk.actors.admin, change.id, "done looking", "api");
    }
  }, 60_000);

  it("an approval asked of another team does not merge: the approver must be one of the repository's team when it merges", async () => {
    const before = git(["rev-parse", "main"]);
    const change = await changes.start(
      both,
      { repositoryId: alphaRepo.id, goal: "Fix the failing test", agent: "demo-fix", scenario },
      "api",
    );
    await tk.settle(change.id);
    await changes.idle();
    let got = await changes.get(tk.actors.admin, change.id);
    expect(got.state).toBe("awaiting_review");
    // As a change started before this held would be: the run, the change and its request all in beta.
    await tk.t.db.run.update({ where: { id: change.id }, data: { teamId: betaId() } });
    await tk.t.db.changeRequest.update({ where: { id: change.id }, data: { teamId: betaId() } });
    await tk.t.db.humanRequest.update({ where: { id: got.approval!.id }, data: { teamId: betaId() } });
    // Beta's approver, who cannot see alpha's repository, approves it in the Inbox.
    const decided = await tk.hitl!.broker.decide(got.approval!.id, decider(betaApprover), { decision: "approve" }, "inbox");
    await improve.onRequestChange({ requestId: decided.id, runId: change.id, state: decided.state, teamId: decided.teamId });
    got = await changes.get(tk.actors.admin, change.id);
    expect(got.state).toBe("awaiting_review");
    expect(got.stateReason).toMatch(/not an approver in the team of alpha-repo/);
    expect(git(["rev-parse", "main"])).toBe(before);
    // The repository's team sees it, asks its own approvers again, and one of them merges it.
    await changes.rerunChecks(alphaApprover, change.id, "api");
    got = await changes.get(alphaApprover, change.id);
    expect(got.state).toBe("awaiting_review");
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: got.approval!.id } })).teamId).toBe(alphaId());
    await changes.approve(alphaApprover, change.id, undefined, "api");
    expect((await changes.get(tk.actors.admin, change.id)).state).toBe("merged");
    git(["update-ref", "refs/heads/main", before]);
  }, 60_000);

  it("a rejection asked of another team does not close the change", async () => {
    const change = await changes.start(
      both,
      { repositoryId: alphaRepo.id, goal: "Fix the failing test", agent: "demo-fix", scenario },
      "api",
    );
    await tk.settle(change.id);
    await changes.idle();
    let got = await changes.get(tk.actors.admin, change.id);
    expect(got.state).toBe("awaiting_review");
    await tk.t.db.run.update({ where: { id: change.id }, data: { teamId: betaId() } });
    await tk.t.db.changeRequest.update({ where: { id: change.id }, data: { teamId: betaId() } });
    await tk.t.db.humanRequest.update({ where: { id: got.approval!.id }, data: { teamId: betaId() } });
    const decided = await tk.hitl!.broker.decide(got.approval!.id, decider(betaApprover), { decision: "reject" }, "inbox");
    await improve.onRequestChange({ requestId: decided.id, runId: change.id, state: decided.state, teamId: decided.teamId });
    got = await changes.get(tk.actors.admin, change.id);
    expect(got.state).toBe("awaiting_review");
    expect(got.stateReason).toMatch(/not an approver in the team of alpha-repo/);
    await changes.reject(alphaApprover, change.id, "done looking", "api");
  }, 60_000);

  it("a repository moved to another team since: its old team's approver no longer merges", async () => {
    const before = git(["rev-parse", "main"]);
    const change = await changes.start(
      both,
      { repositoryId: alphaRepo.id, goal: "Fix the failing test", agent: "demo-fix", scenario },
      "api",
    );
    await tk.settle(change.id);
    await changes.idle();
    let got = await changes.get(tk.actors.admin, change.id);
    expect(got.state).toBe("awaiting_review");
    await tk.t.db.repository.update({ where: { id: alphaRepo.id }, data: { teamId: betaId() } });
    try {
      const decided = await tk.hitl!.broker.decide(got.approval!.id, decider(alphaApprover), { decision: "approve" }, "inbox");
      await improve.onRequestChange({ requestId: decided.id, runId: change.id, state: decided.state, teamId: decided.teamId });
      got = await changes.get(tk.actors.admin, change.id);
      expect(got.state).toBe("awaiting_review");
      expect(got.stateReason).toMatch(/cannot see alpha-repo|not an approver in the team of alpha-repo/);
      expect(git(["rev-parse", "main"])).toBe(before);
    } finally {
      await tk.t.db.repository.update({ where: { id: alphaRepo.id }, data: { teamId: alphaId() } });
    }
  }, 60_000);
});
