// Reviewed changes end to end (issue 17) on a real SQLite database, the
// default kernel, real terminal pods and git: demo-fix fixes the failing test
// of demo-service in a worktree, its checks pass in the sandbox, an approver
// approves in the Inbox, the merge commit is on main, and revert undoes it.
// Then: the author cannot approve, a moved target is tested again, a
// conflicting base is refused, protected paths are refused.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import type { Actor } from "@/server/identity";
import { DEMO_FIX_GOAL } from "@/server/models";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { makeTempDir } from "@/test/helpers/db";
import { rejection } from "@/test/helpers/rejects";
import { waitFor } from "@/test/helpers/wait";
import { HumanRequestError } from "@/server/hitl";
import { ToolError } from "@/server/tools";
import { Improve, RepositoryError, seedDemoRepository, type ChangeRequests, type RepositoryView } from "../index";

let tk: TestKernel;
let pods: PodPool;
let podsDir: string;
let improve: Improve;
let changes: ChangeRequests;
let demo: RepositoryView;
const sandbox = probeSandbox();

const IDENTITY = {
  GIT_AUTHOR_NAME: "T",
  GIT_AUTHOR_EMAIL: "t@test.local",
  GIT_COMMITTER_NAME: "T",
  GIT_COMMITTER_EMAIL: "t@test.local",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};
const git = (gitDir: string, args: string[], input?: string) =>
  execFileSync("git", [`--git-dir=${gitDir}`, ...args], { env: { ...process.env, ...IDENTITY }, encoding: "utf8", input }).trim();
const show = (ref: string, file: string) => git(demo.source, ["show", `${ref}:${file}`]);

/**
 * The running checkout as it is: every file git tracks in it, byte for byte,
 * with its mode, and where its HEAD and branches point. A cycle must leave
 * it exactly so.
 */
function hashRunningCheckout(): string {
  const cwd = process.cwd();
  const h = crypto.createHash("sha256");
  const files = execFileSync("git", ["ls-files", "-z"], { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter(Boolean)
    .sort();
  for (const f of files) {
    const p = path.join(cwd, f);
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    h.update(`${f}\0${st?.mode ?? "gone"}\0`);
    if (st?.isFile()) h.update(fs.readFileSync(p));
    else if (st?.isSymbolicLink()) h.update(fs.readlinkSync(p));
  }
  h.update(execFileSync("git", ["for-each-ref", "--format=%(refname) %(objectname)"], { cwd, encoding: "utf8" }));
  h.update(execFileSync("git", ["rev-parse", "HEAD"], { cwd, encoding: "utf8" }));
  return h.digest("hex");
}

/** A commit on main made by someone else (the target moving), writing one file. */
function commitOnMain(file: string, content: string, message: string): string {
  const blob = git(demo.source, ["hash-object", "-w", "--stdin"], content);
  const head = git(demo.source, ["rev-parse", "main"]);
  const index = path.join(makeTempDir("rein-idx-"), "index");
  const env = { ...process.env, ...IDENTITY, GIT_INDEX_FILE: index };
  execFileSync("git", [`--git-dir=${demo.source}`, "read-tree", head], { env });
  execFileSync("git", [`--git-dir=${demo.source}`, "update-index", "--add", "--cacheinfo", `100644,${blob},${file}`], { env });
  const tree = execFileSync("git", [`--git-dir=${demo.source}`, "write-tree"], { env, encoding: "utf8" }).trim();
  const commit = git(demo.source, ["commit-tree", tree, "-p", head, "-m", message]);
  git(demo.source, ["update-ref", "refs/heads/main", commit, head]);
  return commit;
}

/** Starts a change as `who` with a scenario of edits; waits for the run to end. */
async function startChange(who: Actor, goal = DEMO_FIX_GOAL) {
  const change = await changes.start(who, { repositoryId: demo.id, goal, agent: "demo-fix" }, "admin");
  const ended = await tk.settle(change.id);
  if (ended !== "succeeded") {
    const events = await tk.kernel.store.listEvents(change.id, 0, 1000);
    throw new Error(
      `the demo run ${ended}: ${events
        .filter((e) => e.type === "tool.result" || e.type === "run.state" || e.type === "model.turn")
        .map((e) => JSON.stringify(e.payload).slice(0, 400))
        .join("\n")}`,
    );
  }
  await changes.idle();
  return changes.get(who, change.id);
}

beforeAll(async () => {
  podsDir = makeTempDir("rein-test-changes-pods-");
  pods = new PodPool({ dataDir: podsDir, size: 0, limits: { ...DEFAULT_LIMITS, wallTimeSec: 300 }, sandbox, allowUnsandboxed: true });
  await pods.start();
  tk = await createTestKernel({ terminals: pods, hitl: true });
  demo = await seedDemoRepository(tk.t.db, tk.t.dir);
  improve = new Improve({
    db: tk.t.db,
    kernel: tk.kernel,
    log: SILENT_LOG,
    changes: { broker: tk.hitl!.broker, dataDir: tk.t.dir, checks: { allowUnsandboxed: !sandbox.ok } },
  });
  await improve.start({ sweepMs: 60_000 });
  changes = improve.changes!;
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
  await pods?.stop();
  fs.rmSync(podsDir, { recursive: true, force: true });
});

describe("the demo: demo-fix -> checks -> approval in the Inbox -> merge -> revert", () => {
  let id: string;
  let before: string;
  let runningHash: string;

  beforeAll(async () => {
    before = git(demo.source, ["rev-parse", "main"]);
    runningHash = hashRunningCheckout();
    const change = await startChange(tk.actors.operator);
    id = change.id;
  }, 120_000);

  it("the agent worked in a worktree of its own; the change waits for review with its diff, test log and hypothesis", async () => {
    const change = await changes.get(tk.actors.admin, id);
    expect(change.state).toBe("awaiting_review");
    expect(change.title).toBe("Round discounts to the nearest cent");
    expect(change.hypothesis).toMatch(/Math.round/);
    expect(change.files).toEqual([{ path: "src/price.mjs", status: "modified", insertions: 1, deletions: 1 }]);
    expect(change.filesByRisk.medium).toEqual(["src/price.mjs"]);
    expect(change.diff?.text).toContain("+  return Math.round(");
    expect(change.authorRun).toMatchObject({ id, agentName: "demo-fix", model: "scripted/demo-fix" });
    expect(change.checks.tests?.state).toBe("passed");
    const log = await changes.checkLog(tk.actors.admin, id, change.checkRuns[0].id);
    expect(log.log).toMatch(/pass 3/);
    // The branch holds the agent's commit; main has not moved.
    expect(show(change.headCommit!, "src/price.mjs")).toContain("Math.round(");
    expect(git(demo.source, ["rev-parse", "main"])).toBe(before);
    // The run's timeline tells the story.
    const events = (await tk.kernel.store.listEvents(id, 0, 1000))
      .filter((e) => e.type === "change.state")
      .map((e) => (e.payload as { to: string }).to);
    expect(events).toEqual(["checks_running", "awaiting_review"]);
  });

  it("opened an approve request in the Inbox that outlives the run, which the launcher cannot decide", async () => {
    const change = await changes.get(tk.actors.admin, id);
    expect(change.approval?.state).toBe("PENDING");
    const request = await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: change.approval!.id } });
    expect(request).toMatchObject({ slot: "change", kind: "approve", requiredRole: "approver", requestedById: tk.users.operator });
    const launcher: Actor = {
      ...tk.actors.operator,
      role: "approver",
      teamRoles: Object.fromEntries(tk.actors.operator.teamIds.map((t) => [t, "approver" as const])),
    };
    expect((await rejection(changes.approve(launcher, id, undefined, "inbox"), HumanRequestError)).message).toMatch(/You launched the run/);
    expect((await changes.get(tk.actors.admin, id)).state).toBe("awaiting_review");
    expect((await changes.get(tk.actors.operator, id)).you).toMatchObject({ launchedIt: true, mayApprove: false });
  });

  it("an approver approves in the Inbox: a --no-ff merge commit lands on main; the running tree is untouched", async () => {
    const change = await changes.get(tk.actors.admin, id);
    const decided = await tk.hitl!.broker.decide(
      change.approval!.id,
      {
        id: tk.users.approver,
        name: "approver",
        role: "approver",
        teamIds: tk.actors.approver.teamIds,
        teamRoles: tk.actors.approver.teamRoles,
      },
      { decision: "approve" },
      "inbox",
    );
    await improve.onRequestChange({ requestId: decided.id, runId: id, state: decided.state, teamId: decided.teamId });
    const merged = await changes.get(tk.actors.admin, id);
    expect(merged.state).toBe("merged");
    const main = git(demo.source, ["rev-parse", "main"]);
    expect(main).toBe(merged.mergeCommit);
    expect(git(demo.source, ["rev-list", "--parents", "-n", "1", main]).split(" ")).toEqual([main, before, merged.headCommit]);
    expect(show("main", "src/price.mjs")).toContain("Math.round(");
    // The worktree went once the change closed; the branch stays for the record.
    expect(fs.existsSync(path.join(tk.t.dir, "workspaces", id))).toBe(false);
    expect(git(demo.source, ["rev-parse", merged.branch])).toBe(merged.headCommit);
    expect(hashRunningCheckout()).toBe(runningHash);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "change." } }, orderBy: { at: "asc" } });
    expect(audit.map((a) => a.kind)).toEqual(
      expect.arrayContaining(["change.started", "change.checks_running", "change.awaiting_review", "change.merged"]),
    );
    expect(audit.find((a) => a.kind === "change.merged")?.actorId).toBe(tk.users.approver);
  });

  it("revert needs a reason; it makes a commit that restores the previous tree, and is audited", async () => {
    expect(await rejection(changes.revert(tk.actors.approver, id, "  ", "admin"), RepositoryError)).toMatchObject({
      code: "INVALID_INPUT",
    });
    expect((await changes.get(tk.actors.admin, id)).state).toBe("merged");
    const reverted = await changes.revert(tk.actors.approver, id, "Breaks the invoice totals", "admin");
    expect(reverted.state).toBe("reverted");
    expect(reverted.stateReason).toBe("Reverted by approver: Breaks the invoice totals");
    expect(git(demo.source, ["log", "-1", "--format=%B", "main"])).toContain("Reverted by approver: Breaks the invoice totals");
    const main = git(demo.source, ["rev-parse", "main"]);
    expect(main).toBe(reverted.revertCommit);
    expect(git(demo.source, ["rev-parse", "main^{tree}"])).toBe(git(demo.source, ["rev-parse", `${before}^{tree}`]));
    expect(show("main", "src/price.mjs")).toContain("Math.floor(");
    expect(await tk.t.db.auditEntry.count({ where: { kind: "change.reverted", actorId: tk.users.approver } })).toBe(1);
    expect((await rejection(changes.revert(tk.actors.approver, id, "again", "admin"), RepositoryError)).message).toMatch(
      /Only a merged change/,
    );
  });

  it("reads like a pull request: the tests fail before and pass after, and its conversation tells who did what, in order", async () => {
    await changes.comment(tk.actors.operator, id, "Thanks, the invoice test is green again", "web");
    expect(await rejection(changes.comment(tk.actors.viewer, id, "a viewer's word", "web"), RepositoryError)).toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await rejection(changes.comment(tk.actors.operator, id, " ", "web"), RepositoryError)).toMatchObject({ code: "INVALID_INPUT" });
    const change = await changes.get(tk.actors.admin, id);
    // demo-fix claims a fix: the same tests ran on the base, and failed there.
    expect(change.fix).toMatchObject({ verdict: "shown", before: { state: "failed" }, after: { state: "passed" } });
    expect(change.checkRuns.map((c) => c.kind).sort()).toEqual(["before", "tests"]);
    const story = change.activity.map((a) => `${a.who} ${a.text}${a.comment ? `: ${a.comment}` : ""}`);
    expect(story).toEqual([
      "operator started the change with the agent demo-fix",
      "demo-fix proposed a commit",
      "Rein ran the tests on the base (before the change): failed (exit 1)",
      "Rein ran the tests: passed",
      "Rein asked for a review",
      "approver approved",
      "approver merged it",
      "approver reverted it: Breaks the invoice totals",
      "operator commented: Thanks, the invoice test is green again",
    ]);
    // The list shows each change's review decision.
    const listed = (await changes.list(tk.actors.admin)).find((c) => c.id === id);
    expect(listed?.review).toMatchObject({ state: "APPROVED", byName: "approver" });
  });
});

describe("asking again", () => {
  it("checks run again while it waits ask anew and withdraw the earlier request; an expired request says how to ask again", async () => {
    const change = await startChange(tk.actors.operator);
    const first = change.approval!.id;
    const again = await changes.rerunChecks(tk.actors.operator, change.id, "admin");
    expect(again.state).toBe("awaiting_review");
    expect(again.approval!.id).not.toBe(first);
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: first } })).state).toBe("CANCELED");
    await tk.t.db.humanRequest.update({ where: { id: again.approval!.id }, data: { state: "EXPIRED" } });
    expect((await rejection(changes.approve(tk.actors.approver, change.id, undefined, "api"), RepositoryError)).message).toMatch(
      /expired; run the checks again/,
    );
    const rejected = await changes.reject(tk.actors.approver, change.id, "not now", "admin");
    expect(rejected).toMatchObject({ state: "rejected", stateReason: "Rejected by approver: not now" });
    expect(fs.existsSync(path.join(tk.t.dir, "workspaces", change.id))).toBe(false);
  }, 120_000);
});

describe("the target moves while the change waits", () => {
  it("a change on a moved target is tested on the new base, then merges with the approval it had", async () => {
    const change = await startChange(tk.actors.operator);
    expect(change.state).toBe("awaiting_review");
    const moved = commitOnMain("NOTES.md", "Someone else's note\n", "A note");
    await changes.approve(tk.actors.approver, change.id, "looks right", "api");
    const merged = await changes.get(tk.actors.admin, change.id);
    expect(merged.state).toBe("merged");
    expect(git(demo.source, ["rev-list", "--parents", "-n", "1", "main"]).split(" ").slice(1)).toEqual([moved, merged.headCommit]);
    // The tests ran on the change, then on the merge with the moved target (and once on the base, before the change).
    expect(merged.checkRuns.filter((c) => c.kind === "tests")).toHaveLength(2);
    expect(show("main", "NOTES.md")).toBe("Someone else's note");
    await changes.revert(tk.actors.approver, change.id, "Only to test the revert", "admin");
  }, 120_000);

  it("a change that no longer applies is refused, named, and nothing moves", async () => {
    const change = await startChange(tk.actors.operator);
    expect(change.state).toBe("awaiting_review");
    const price = show("main", "src/price.mjs").replace("return Math.floor(", "return Math.trunc(");
    const moved = commitOnMain("src/price.mjs", `${price}\n`, "Someone else changed the same line");
    await changes.approve(tk.actors.approver, change.id, undefined, "api");
    const refused = await changes.get(tk.actors.admin, change.id);
    expect(refused.state).toBe("checks_failed");
    expect(refused.stateReason).toMatch(/no longer applies.*src\/price\.mjs/);
    expect(git(demo.source, ["rev-parse", "main"])).toBe(moved);
    // Closed by the launcher (withdrawn).
    const rejected = await changes.reject(tk.actors.operator, change.id, "superseded", "admin");
    expect(rejected.state).toBe("rejected");
    expect(rejected.stateReason).toMatch(/superseded/);
  }, 120_000);
});

describe("refusals", () => {
  it("a change touching a protected path is refused with the path named, and stays a draft the agent can fix", async () => {
    const scenario = {
      turns: [
        { toolCalls: [{ tool: "write_file", args: { path: ".ci/run", content: "echo pwned\n" } }] },
        {
          toolCalls: [
            { tool: "propose_change", args: { title: "Touch CI", hypothesis: "Trying to change the CI script of the repository." } },
          ],
        },
        { text: "done" },
      ],
    };
    const change = await changes.start(
      tk.actors.operator,
      { repositoryId: demo.id, goal: "Change the CI script", agent: "demo-fix", scenario },
      "admin",
    );
    await tk.settle(change.id);
    await changes.idle();
    const result = (await tk.kernel.store.listEvents(change.id, 0, 1000)).find(
      (e) => e.type === "tool.result" && (e.payload as { tool?: string }).tool === "propose_change",
    );
    expect(JSON.stringify(result?.payload)).toMatch(/PROTECTED_PATH[\s\S]*\.ci\/run/);
    const row = await changes.get(tk.actors.admin, change.id);
    expect(row.state).toBe("draft");
    expect(row.headCommit).toBeNull();
    expect(await tk.t.db.auditEntry.count({ where: { kind: "change.refused" } })).toBe(1);
    // Nothing of it reached the repository.
    expect(() => git(demo.source, ["rev-parse", "--verify", "--quiet", `${row.branch}:.ci/run`])).toThrow();
  }, 120_000);

  it("a person of another team sees nothing of a change and cannot decide it", async () => {
    const list = await changes.list(tk.actors.admin);
    expect(list.length).toBeGreaterThan(0);
    const outsider: Actor = {
      ...tk.actors.approver,
      userId: "someone-else",
      teamIds: ["another-team"],
      teamRoles: { "another-team": "approver" },
    };
    expect(await changes.list(outsider)).toEqual([]);
    expect((await rejection(changes.get(outsider, list[0].id), RepositoryError)).message).toMatch(/no change request/);
    expect((await rejection(changes.approve(outsider, list[0].id, undefined, "api"), RepositoryError)).message).toMatch(
      /no change request/,
    );
  });

  it("propose_change outside a change's run says how to start one", async () => {
    expect(
      (await rejection(changes.propose("not-a-change-run", { title: "x y z", hypothesis: "no change request here" }), ToolError)).message,
    ).toMatch(/not started on a repository/);
  });
});
