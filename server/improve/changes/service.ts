// Change requests to repositories (docs/changes.md). A person starts
// one by launching an agent on a repository: the run's workspace is a git
// worktree of a branch of its own, outside anything running. The agent's
// propose_change commits what it wrote; the repository's test command runs in
// a pod over a clean checkout of that commit; an approve request reaches the
// approvers of the run's team (never the person who launched it). Only an
// approval decided through the HITL broker merges, and only if every fact of
// mergeRefusal holds at that moment: a --no-ff merge commit written in the
// object database, never in a checkout. Revert is one more commit. Every move
// is a compare-and-set on the state and an audit row.
import crypto from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { DEFAULT_LADDER, createRequest, roleRefusal, type HitlBroker, type RequestChange, type TtlLadder } from "@/server/hitl";
import type { Actor, Role } from "@/server/identity";
import { ScenarioSchema } from "@/server/models";
import { createRun, event, type CreateRunInput, type Kernel } from "@/server/kernel";
import { ToolError, workspaceFor, type ToolDefinition } from "@/server/tools";
import { RepositoryError } from "../repos/errors";
import { GitError, gitText } from "../repos/git";
import { visibleRepository, type RegistryDeps, type RepositoryRow } from "../repos/registry";
import { runChecks, type CheckOptions, type CheckResult } from "../repos/checks";
import {
  advanceBranch,
  checkProtectedPaths,
  checkoutForChecks,
  commitTree,
  createWorktree,
  diffBetween,
  openWorktree,
  removeWorktree,
  repositoryGitDir,
  snapshotTree,
  type ChangedFile,
  type WorktreeDeps,
} from "../repos/worktrees";
import { MergeError, mergeNoFf, mergePreview, repoGit, revertMerge, type Signature } from "./git-merge";
import { ProtectedPathError } from "./protected";
import { branchMovedRefusal, deciderRefusal } from "./review";
import { changeActivity } from "./activity";
import { fixEvidence, reviewsOf } from "./evidence";
import { groupByRisk } from "./risk";
import { CHANGE_OPEN, canChangeGo, isChangeState, mergeRefusal, type ChangeState } from "./states";

/** The workflow of authoring runs in Runs, Traces and Costs. */
export const CHANGE_WORKFLOW = "change";
export const PROPOSE_CHANGE = "propose_change";
/** How long the approve request waits before the TTL ladder moves it on. */
const APPROVAL_TTL_SEC = 7 * 24 * 3600;
const MAX_VIEW_DIFF_BYTES = 512 * 1024;

export interface ChangeDeps extends WorktreeDeps {
  db: Db;
  kernel: Kernel;
  broker: HitlBroker;
  /** How checks run: the sandbox status, or unsandboxed in development only. */
  checks?: Pick<CheckOptions, "sandbox" | "allowUnsandboxed" | "limits">;
  onRequestCreated?: (change: RequestChange) => void;
  ladder?: TtlLadder;
  now?: () => Date;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export const StartChangeInput = z
  .object({
    repositoryId: z.string().trim().min(1, "name the repository"),
    goal: z.string().trim().min(1, "say what the change should do").max(20_000),
    agent: z.string().trim().min(1).max(100).default("demo-fix"),
    model: z.string().trim().min(1).max(200).optional(),
    teamId: z.string().trim().min(1).max(64).optional(),
    /** A scenario for the scripted model instead of the agent's model (replays, tests), as for any run. */
    scenario: ScenarioSchema.optional(),
  })
  .strict();
export type StartChangeInput = z.input<typeof StartChangeInput>;

export const ListChangesInput = z
  .object({
    state: z.array(z.enum(["draft", "checks_running", "checks_failed", "awaiting_review", "merged", "rejected", "reverted"])).optional(),
    repositoryId: z.string().min(1).max(64).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();
export type ListChangesInput = z.input<typeof ListChangesInput>;

const ProposeArgs = z
  .object({
    title: z.string().trim().min(3, "give the change a title of 3 characters or more").max(200, "a title is at most 200 characters"),
    hypothesis: z.string().trim().min(10, "say in a sentence or two why this change fixes the problem and how you checked it").max(4000),
    fixes: z.string().trim().min(3).max(1000).optional(),
  })
  .strict();

type Who = { id: string; name: string; channel: string };

const json = <T>(text: string | null | undefined, fallback: T): T => {
  try {
    return text ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
};

/** The node id of a change's approve requests names the change and its head: an approval of another head never counts. */
const approvalPrefix = (row: { id: string; headCommit: string | null }) => `change:${row.id}:${row.headCommit ?? "none"}:`;

const newChangeId = () => `c${Date.now().toString(36)}${crypto.randomBytes(9).toString("hex")}`.slice(0, 25);

/** The identity of commits Rein writes for a change: the agent's, on behalf of the run. */
const agentSignature = (agent: string): Signature => ({ name: `${agent} (Rein agent)`, email: "agent@rein.local" });
const personSignature = (who: Who): Signature => ({ name: who.name || "Rein", email: "review@rein.local" });
const identityEnv = (s: Signature) => ({
  GIT_AUTHOR_NAME: s.name,
  GIT_AUTHOR_EMAIL: s.email,
  GIT_COMMITTER_NAME: s.name,
  GIT_COMMITTER_EMAIL: s.email,
});

type ChangeRow = NonNullable<Awaited<ReturnType<Db["changeRequest"]["findUnique"]>>>;

export class ChangeRequests {
  /** Changes whose checks or merge run now: one at a time per change. */
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ChangeDeps) {}

  /** What the repository registry needs (the repositories router uses it). */
  get registry(): RegistryDeps {
    return { db: this.deps.db, dataDir: this.deps.dataDir, runningCheckout: this.deps.runningCheckout };
  }

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  /** The propose_change tool, for agents that write changes. */
  tool(): ToolDefinition<z.infer<typeof ProposeArgs>> {
    return {
      name: PROPOSE_CHANGE,
      description:
        "Opens (or updates) the change request for what you changed in this repository: commits every file you changed, refuses protected paths, runs the repository's " +
        "test command in a sandbox, and on success asks an approver to review it. Give a short title and your hypothesis: why this change fixes the problem and how you checked it. " +
        "Call it again after fixing failed checks. You cannot merge: a person does.",
      args: ProposeArgs,
      inputSchema: {
        type: "object",
        properties: {
          title: { type: "string", description: "What the change does, in a few words" },
          hypothesis: { type: "string", description: "Why it fixes the problem and how you checked it" },
          fixes: {
            type: "string",
            description:
              "When the change fixes a failure the tests show: what fails without it. Rein then runs the tests on the base too, so the reviewer sees them fail before and pass after",
          },
        },
        required: ["title", "hypothesis"],
        additionalProperties: false,
      },
      replayClass: "idempotent_with_key",
      idempotencyKey: (args) => JSON.stringify(args),
      persistence: "external",
      timeoutMs: 3_700_000,
      execute: (args, ctx) => this.propose(ctx.runId, args),
    };
  }

  // ---- starting ----

  /**
   * Launches the agent on a worktree of the repository; returns the change
   * request (draft). The friction that motivated it is Rein's to say (a
   * launcher naming one could read another team's friction on the page).
   */
  async start(actor: Actor, raw: StartChangeInput, channel: string, options: { frictionId?: string } = {}) {
    const input = StartChangeInput.parse(raw);
    const { db, kernel } = this.deps;
    const repo = await visibleRepository(db, actor, input.repositoryId);
    if (repo.archivedAt) throw new RepositoryError("CONFLICT", `${repo.name} is archived; unarchive it to propose changes to it`);
    // The repository's team reviews its changes: a launcher naming another team would pick approvers who cannot see it (docs/security.md#change-requests).
    if (repo.teamId && input.teamId && input.teamId !== repo.teamId) {
      const team = await db.team.findUnique({ where: { id: repo.teamId }, select: { name: true } });
      throw new RepositoryError(
        "INVALID_INPUT",
        `${repo.name} belongs to another team (${team?.name ?? repo.teamId}): its changes are made and reviewed there; start the change in that team or without naming one`,
      );
    }
    const id = newChangeId();
    const workspace = workspaceFor(this.deps.dataDir, id);
    const wt = await createWorktree(this.deps, repo, id, { dir: workspace.root });
    try {
      await db.changeRequest.create({
        data: {
          id,
          repositoryId: repo.id,
          title: input.goal.split("\n")[0].slice(0, 200),
          state: "draft",
          branch: wt.branch,
          baseCommit: wt.baseCommit,
          authorRunId: id,
          frictionId: options.frictionId ?? null,
          createdById: actor.userId,
        },
      });
      const runInput: CreateRunInput = {
        goal: `${input.goal}\n\nRepository: ${repo.name} (branch ${repo.defaultBranch}). Its tests: ${repo.testCommand}`,
        agent: input.agent,
        model: input.model,
        scenario: input.scenario,
        teamId: repo.teamId ?? input.teamId ?? undefined,
      };
      const run = await createRun(kernel, runInput, actor, { runId: id, workflow: CHANGE_WORKFLOW });
      await db.changeRequest.update({ where: { id }, data: { teamId: run.teamId ?? null } });
    } catch (err) {
      await db.changeRequest.deleteMany({ where: { id } });
      await removeWorktree(this.deps, repo, id, { dir: workspace.root, deleteBranch: true }).catch(() => undefined);
      throw err;
    }
    await recordAudit(db, {
      kind: "change.started",
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      runId: id,
      subject: `${repo.name}: ${input.goal.slice(0, 120)}`,
      detail: { changeId: id, repositoryId: repo.id, agent: input.agent },
    });
    return this.get(actor, id);
  }

  // ---- proposing and checking ----

  /** propose_change: commit, protected paths, checks, then the approve request. */
  async propose(runId: string, raw: unknown) {
    const args = ProposeArgs.parse(raw);
    const { db } = this.deps;
    const row = await db.changeRequest.findFirst({ where: { authorRunId: runId } });
    if (!row)
      throw new ToolError(
        "NO_CHANGE_REQUEST",
        "This run was not started on a repository, so it has no change request; a person starts one from Improvements → Changes → New change",
      );
    const state = row.state as ChangeState;
    if (state !== "draft" && state !== "checks_failed")
      throw new ToolError("CHANGE_CLOSED", `The change request is ${state.replace("_", " ")}; it takes no new commits`);
    const repo = await this.repositoryOf(row);
    const workspace = workspaceFor(this.deps.dataDir, row.id);
    const wt = await openWorktree(this.deps, repo, row.id, row.baseCommit, { dir: workspace.root });
    if (!wt) throw new ToolError("WORKTREE_GONE", "The change's worktree is gone; a person must start the change again");
    // Whatever the agent left running in its pod stops before the worktree is read: nothing writes in it meanwhile.
    await this.deps.kernel.deps.terminals?.release(runId);
    // The worktree is read once; that tree is committed, and what is checked and shown is that commit's diff
    // from the base, so a file written after the read is in neither (docs/security.md#change-requests).
    const tree = await snapshotTree(wt);
    const run = await db.run.findUnique({ where: { id: runId }, select: { agentName: true } });
    const { commit: head, parent } = await commitTree(
      wt,
      tree,
      `${args.title}\n\n${args.hypothesis}\n\nChange request ${row.id}, written by run ${runId}.`,
      identityEnv(agentSignature(run?.agentName ?? "agent")),
    );
    const diff = await diffBetween(wt.gitDir, row.baseCommit, head);
    if (diff.files.length === 0)
      throw new ToolError("NOTHING_CHANGED", "Nothing differs from the base commit yet: change the files first, then propose");
    try {
      await checkProtectedPaths(this.deps, repo, diff.files);
    } catch (err) {
      if (err instanceof ProtectedPathError) {
        await this.audit({ id: "system", name: "Rein", channel: "kernel" }, "change.refused", row, { paths: err.paths });
        throw new ToolError("PROTECTED_PATH", `${err.message}. Undo the change to ${err.paths.join(", ")} and propose again`);
      }
      throw err;
    }
    try {
      await advanceBranch(wt, head, parent);
    } catch (err) {
      if (err instanceof RepositoryError) throw new ToolError("CHANGE_MOVED", err.message);
      throw err;
    }
    const moved = await this.move(
      row,
      "checks_running",
      { id: "system", name: run?.agentName ?? "agent", channel: "kernel" },
      {
        title: args.title,
        hypothesis: args.hypothesis,
        headCommit: head,
        files: JSON.stringify(diff.files),
        diffStat: JSON.stringify(diff.stat),
        stateReason: "",
      },
    );
    if (!moved) throw new ToolError("CHANGE_MOVED", "The change request moved on meanwhile (someone closed it); nothing was proposed");
    // A change that claims a fix shows it: the same tests on the base first, where they should fail (docs/changes.md#before-and-after).
    const claimsFix = !!args.fixes || !!row.frictionId;
    const result = await this.exclusive(row.id, async () => {
      if (claimsFix) await this.checkBefore(moved);
      return this.check(moved, head);
    });
    const after = await db.changeRequest.findUniqueOrThrow({ where: { id: row.id } });
    return {
      changeRequest: row.id,
      state: after.state,
      files: diff.files.map((f) => `${f.status} ${f.path}`),
      checks: { state: result.state, exitCode: result.exitCode, durationMs: result.durationMs, log: result.log.slice(-4000) },
      next:
        after.state === "awaiting_review"
          ? "An approver has been asked to review and merge it; you are done."
          : after.stateReason || "Fix what failed and call propose_change again.",
    };
  }

  /** The test command over the base, recorded as the "before" check; its result never blocks the change. */
  private async checkBefore(row: ChangeRow): Promise<void> {
    const repo = await this.repositoryOf(row);
    const checkout = await checkoutForChecks(this.deps, repo, `${row.id}-before`, row.baseCommit);
    try {
      await runChecks(repo, checkout.path, { ...this.deps.checks, db: this.deps.db, changeRequestId: row.id, kind: "before" });
    } catch (err) {
      this.deps.log.error(`change ${row.id}: the tests could not run on the base`, err);
    } finally {
      await checkout.remove().catch((err) => this.deps.log.error(`change ${row.id}: removing the base's checkout failed`, err));
    }
  }

  /** The test command over a clean checkout of `commit`; moves checks_running → awaiting_review | checks_failed. */
  private async check(row: ChangeRow, commit: string, testedOn?: string): Promise<CheckResult> {
    const repo = await this.repositoryOf(row);
    const checkout = await checkoutForChecks(this.deps, repo, row.id, commit);
    let result: CheckResult;
    try {
      result = await runChecks(repo, checkout.path, { ...this.deps.checks, db: this.deps.db, changeRequestId: row.id });
    } catch (err) {
      await this.move(row, "checks_failed", SYSTEM, { stateReason: `The checks could not run: ${(err as Error).message}` });
      throw err;
    } finally {
      await checkout.remove().catch((err) => this.deps.log.error(`change ${row.id}: removing the checks' checkout failed`, err));
    }
    const fresh = await this.deps.db.changeRequest.findUniqueOrThrow({ where: { id: row.id } });
    if (result.state !== "passed") {
      const why =
        result.state === "timed_out"
          ? `The tests ran longer than ${repo.testTimeoutSec} s`
          : result.state === "error"
            ? "The tests could not run"
            : `The tests failed (exit ${result.exitCode})`;
      await this.move(fresh, "checks_failed", SYSTEM, { stateReason: why });
      return result;
    }
    // The commit tested descends from the change's base: merging it equals what was tested only while the target is still there.
    const moved = await this.move(fresh, "awaiting_review", SYSTEM, { stateReason: "", testedOn: testedOn ?? row.baseCommit });
    if (moved) await this.askApproval(moved);
    return result;
  }

  /** Runs the checks again (a person's re-run button): on the change's head, or on the merge with the target's new head. */
  async rerunChecks(actor: Actor, id: string, channel: string) {
    const row = await this.visible(actor, id);
    this.requireRole(actor, await this.reviewTeam(row), "operator", "Running a change's checks again");
    if (!row.headCommit) throw new RepositoryError("CONFLICT", "The agent has not proposed anything yet; there is nothing to check");
    if (row.state !== "checks_failed" && row.state !== "awaiting_review")
      throw new RepositoryError("CONFLICT", `A change request that is ${row.state.replace("_", " ")} has no checks to run again`);
    await this.exclusive(id, async () => {
      const fresh = await this.deps.db.changeRequest.findUniqueOrThrow({ where: { id } });
      const moved = await this.move(fresh, "checks_running", { id: actor.userId, name: actor.name, channel }, { stateReason: "" });
      if (!moved) throw new RepositoryError("CONFLICT", "The change request moved on meanwhile; look again");
      await this.check(moved, moved.headCommit!).catch((err) => this.deps.log.error(`change ${id}: the checks failed to run`, err));
    });
    return this.get(actor, id);
  }

  private async askApproval(row: ChangeRow): Promise<void> {
    const { db } = this.deps;
    const run = row.authorRunId
      ? await db.run.findUnique({ where: { id: row.authorRunId }, select: { id: true, teamId: true, createdById: true, agentName: true } })
      : null;
    if (!run) return;
    const repo = await this.repositoryOf(row);
    const files = json<ChangedFile[]>(row.files, []);
    // One request per passing check of a head: a new proposal, or checks run again, ask again (the earlier request is withdrawn).
    const checkId = json<{ tests?: { checkId?: string } }>(row.checks, {}).tests?.checkId ?? "none";
    const { row: request, created } = await createRequest(
      db,
      {
        runId: run.id,
        nodeId: `${approvalPrefix(row)}${checkId}`,
        checkpointId: "",
        slot: "change",
        kind: "approve",
        title: `Merge "${row.title}" into ${repo.name}?`,
        detail: `${run.agentName} changed ${files.length} file(s) of ${repo.name} (${files
          .map((f) => f.path)
          .slice(0, 8)
          .join(", ")}); its checks passed. ${row.hypothesis}`.slice(0, 4000),
        payload: {
          tool: "merge_change",
          args: { changeRequestId: row.id, repository: repo.name, branch: row.branch, head: row.headCommit },
          rule: "every change to a repository is reviewed",
          notByRequester: true,
        },
        requiredRole: "approver",
        teamId: repo.teamId ?? run.teamId,
        requestedById: run.createdById,
        ttlSec: APPROVAL_TTL_SEC,
      },
      this.deps.ladder ?? DEFAULT_LADDER,
      this.now(),
    );
    await db.changeRequest.update({ where: { id: row.id }, data: { approvalRequestId: request.id } });
    if (row.approvalRequestId && row.approvalRequestId !== request.id)
      await this.deps.broker
        .cancel(row.approvalRequestId, "The change was checked again; a new request asks for its approval")
        .catch(() => false);
    if (created) this.deps.onRequestCreated?.({ requestId: request.id, runId: run.id, state: request.state, teamId: request.teamId });
  }

  // ---- deciding ----

  /**
   * Approve & merge from the change's page, the API or the CLI: the approval
   * is decided through the broker (role, team, not the launcher), and the
   * merge follows from it, as from the Inbox.
   */
  async approve(actor: Actor, id: string, comment: string | undefined, channel: "inbox" | "api" | "cli") {
    const row = await this.visible(actor, id);
    this.requireRole(actor, await this.reviewTeam(row), "approver", "Approving a change");
    if (row.state !== "awaiting_review" || !row.approvalRequestId)
      throw new RepositoryError("CONFLICT", mergeRefusal(await this.facts(row)) ?? "This change request is not waiting for review");
    const request = await this.deps.db.humanRequest.findUnique({ where: { id: row.approvalRequestId }, select: { state: true } });
    if (request?.state === "APPROVED") {
      // Approved already (the merge waits on something else): try again, nothing more to decide.
      await this.merge(id);
      return this.get(actor, id);
    }
    if (request && ["EXPIRED", "CANCELED", "REJECTED"].includes(request.state)) {
      throw new RepositoryError(
        "CONFLICT",
        `Its approval request is ${request.state.toLowerCase()}; run the checks again to ask for an approval anew`,
      );
    }
    await this.deps.broker.decide(
      row.approvalRequestId,
      { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles },
      { decision: "approve", comment },
      channel,
    );
    await this.merge(id);
    return this.get(actor, id);
  }

  /** A decision on a change's approve request (from wherever it was made): approved merges, rejected closes. */
  async onRequestChange(change: RequestChange): Promise<void> {
    if (change.state !== "APPROVED" && change.state !== "REJECTED") return;
    const request = await this.deps.db.humanRequest.findUnique({
      where: { id: change.requestId },
      select: { slot: true, decidedById: true, decision: true },
    });
    if (request?.slot !== "change") return;
    const row = await this.deps.db.changeRequest.findFirst({ where: { approvalRequestId: change.requestId } });
    if (!row) return;
    if (change.state === "APPROVED") {
      await this.merge(row.id);
      return;
    }
    // Like an approval, a rejection counts only from an approver of the repository's team as it is now.
    const refusal = await deciderRefusal(this.deps.db, request.decidedById, await this.repositoryOf(row), "rejected");
    if (refusal) {
      await this.audit(SYSTEM, "change.reject_refused", row, { reason: refusal });
      await this.deps.db.changeRequest.update({ where: { id: row.id }, data: { stateReason: refusal } });
      return;
    }
    const who = request.decidedById
      ? await this.deps.db.user.findUnique({ where: { id: request.decidedById }, select: { id: true, name: true } })
      : null;
    const comment = json<{ comment?: string }>(request.decision, {}).comment;
    await this.close(
      row,
      { id: who?.id ?? "system", name: who?.name ?? "Rein", channel: "inbox" },
      comment ? `Rejected: ${comment}` : "Rejected by a reviewer",
    );
  }

  /** Merges if, and only if, every fact holds now; otherwise records why not. Safe to call twice. */
  merge(id: string): Promise<void> {
    return this.exclusive(id, () => this.mergeLocked(id, false));
  }

  private async mergeLocked(id: string, retested: boolean): Promise<void> {
    {
      const row = await this.deps.db.changeRequest.findUnique({ where: { id } });
      if (!row || row.state !== "awaiting_review") return;
      const repo = await this.repositoryOf(row);
      const gitDir = await repositoryGitDir(this.deps, repo);
      const facts = await this.facts(row);
      const head = await this.targetHead(repo);
      facts.appliesOnTarget = head === row.testedOn;
      const decider = facts.approval?.decidedById
        ? await this.deps.db.user.findUnique({ where: { id: facts.approval.decidedById }, select: { id: true, name: true } })
        : null;
      const who: Who = { id: decider?.id ?? "system", name: decider?.name ?? "Rein", channel: "kernel" };
      const blocked =
        (await branchMovedRefusal(row, gitDir)) ??
        (facts.approval?.state === "APPROVED" ? await deciderRefusal(this.deps.db, facts.approval.decidedById, repo, "approved") : null);
      const refusal = blocked ?? mergeRefusal(facts);
      if (refusal && (facts.appliesOnTarget || blocked)) {
        await this.audit(who, "change.merge_refused", row, { reason: refusal });
        await this.deps.db.changeRequest.update({ where: { id }, data: { stateReason: refusal } });
        return;
      }
      if (!facts.appliesOnTarget) {
        // Only the moved target stands in the way: test the change on the new base first (shown, not guessed).
        if (mergeRefusal({ ...facts, appliesOnTarget: true })) return;
        if (retested) {
          await this.deps.db.changeRequest.update({
            where: { id },
            data: {
              stateReason: `${repo.defaultBranch} moved again while the checks ran; approve again to test and merge on the newest base`,
            },
          });
          return;
        }
        await this.retestOnNewBase(row, gitDir, repo, who);
        return;
      }
      try {
        const message = `Merge change request ${row.id}: ${row.title}\n\n${row.hypothesis}\n\nApproved by ${who.name}.`;
        const merged = await mergeNoFf(
          gitDir,
          repo.defaultBranch,
          row.headCommit!,
          message,
          personSignature(who),
          row.testedOn ?? undefined,
        );
        const done = await this.move(row, "merged", who, { mergeCommit: merged.commit, stateReason: "" });
        if (!done) throw new RepositoryError("CONFLICT", "The change request moved on while it was merged");
        await this.cleanUp(done, repo);
      } catch (err) {
        if (!(err instanceof MergeError)) throw err;
        await this.audit(who, "change.merge_refused", row, { reason: err.message });
        if (err.code === "CONFLICT")
          await this.move(row, "checks_running", who, {}).then(
            (r) => r && this.move(r, "checks_failed", SYSTEM, { stateReason: err.message }),
          );
        else await this.deps.db.changeRequest.update({ where: { id }, data: { stateReason: err.message } });
      }
    }
  }

  /** The target moved: the merge result is checked; passing, it merges (the approval stands); failing or conflicting, it waits for a new proposal. */
  private async retestOnNewBase(row: ChangeRow, gitDir: string, repo: RepositoryRow, who: Who): Promise<void> {
    const running = await this.move(row, "checks_running", who, {
      stateReason: `${repo.defaultBranch} moved since the checks ran; they run again on the new base`,
    });
    if (!running) return;
    let preview: { head: string; tree: string };
    try {
      preview = await mergePreview(gitDir, repo.defaultBranch, row.headCommit!);
    } catch (err) {
      const message = err instanceof MergeError ? err.message : `The merge could not be computed: ${(err as Error).message}`;
      await this.move(running, "checks_failed", SYSTEM, { stateReason: message });
      await this.audit(who, "change.merge_refused", row, { reason: message });
      return;
    }
    // The merge as it would be, as a commit nothing points to, checked out clean for the tests.
    const trial = (
      await repoGit(gitDir, ["commit-tree", preview.tree, "-p", preview.head, "-p", row.headCommit!, "-m", `trial merge of ${row.id}`], {
        author: personSignature(who),
      })
    ).trim();
    const result = await this.checkWithin(running, trial, preview.head);
    const after = await this.deps.db.changeRequest.findUniqueOrThrow({ where: { id: row.id } });
    // The facts are read again; the target moving once more during these checks stops here.
    if (result?.state === "passed" && after.state === "awaiting_review") await this.mergeLocked(row.id, true);
  }

  /** check(), without opening a second approve request for the same head. */
  private async checkWithin(row: ChangeRow, commit: string, testedOn: string): Promise<CheckResult | null> {
    const repo = await this.repositoryOf(row);
    const checkout = await checkoutForChecks(this.deps, repo, row.id, commit);
    try {
      const result = await runChecks(repo, checkout.path, { ...this.deps.checks, db: this.deps.db, changeRequestId: row.id });
      const fresh = await this.deps.db.changeRequest.findUniqueOrThrow({ where: { id: row.id } });
      if (result.state === "passed") await this.move(fresh, "awaiting_review", SYSTEM, { stateReason: "", testedOn });
      else
        await this.move(fresh, "checks_failed", SYSTEM, {
          stateReason: `On the new base of ${repo.defaultBranch} the tests ${result.state === "timed_out" ? "ran out of time" : "failed"}`,
        });
      return result;
    } catch (err) {
      await this.move(row, "checks_failed", SYSTEM, { stateReason: `The checks could not run: ${(err as Error).message}` });
      return null;
    } finally {
      await checkout.remove().catch(() => undefined);
    }
  }

  /** Reject with a comment: an approver of the team, or the person who launched it (withdrawing it). */
  async reject(actor: Actor, id: string, comment: string | undefined, channel: string) {
    const row = await this.visible(actor, id);
    if (row.createdById !== actor.userId) this.requireRole(actor, await this.reviewTeam(row), "approver", "Rejecting a change request");
    if (!CHANGE_OPEN.includes(row.state as ChangeState))
      throw new RepositoryError("CONFLICT", `A change request that is ${row.state.replace("_", " ")} cannot be rejected`);
    if (row.state === "checks_running") throw new RepositoryError("CONFLICT", "Its checks are running; reject it when they end");
    const reason = comment?.trim() ? `Rejected by ${actor.name}: ${comment.trim().slice(0, 2000)}` : `Rejected by ${actor.name}`;
    const closed = await this.close(row, { id: actor.userId, name: actor.name, channel }, reason);
    if (!closed) throw new RepositoryError("CONFLICT", "The change request moved on meanwhile; look again");
    return this.get(actor, id);
  }

  private async close(row: ChangeRow, who: Who, reason: string): Promise<ChangeRow | null> {
    const closed = await this.move(row, "rejected", who, { stateReason: reason });
    if (!closed) return null;
    if (row.approvalRequestId) await this.deps.broker.cancel(row.approvalRequestId, "The change request was closed").catch(() => false);
    await this.cleanUp(closed, await this.repositoryOf(row));
    return closed;
  }

  /** Revert: a commit on the target undoing the merge; audited. An approver of the team. */
  async revert(actor: Actor, id: string, reason: string, channel: string) {
    const why = reason.trim().slice(0, 2000);
    if (!why)
      throw new RepositoryError("INVALID_INPUT", "Say why it is reverted: the reason is kept with the change and in the revert commit", [
        { field: "reason", message: "Required" },
      ]);
    const row = await this.visible(actor, id);
    this.requireRole(actor, await this.reviewTeam(row), "approver", "Reverting a change");
    if (row.state !== "merged" || !row.mergeCommit)
      throw new RepositoryError("CONFLICT", `Only a merged change can be reverted; this one is ${row.state.replace("_", " ")}`);
    await this.exclusive(id, async () => {
      const repo = await this.repositoryOf(row);
      const gitDir = await repositoryGitDir(this.deps, repo);
      const who: Who = { id: actor.userId, name: actor.name, channel };
      let reverted;
      try {
        reverted = await revertMerge(
          gitDir,
          repo.defaultBranch,
          row.mergeCommit!,
          `Revert change request ${row.id}: ${row.title}\n\nThis reverts merge commit ${row.mergeCommit}.\nReverted by ${actor.name}: ${why}`,
          personSignature(who),
        );
      } catch (err) {
        if (err instanceof MergeError)
          throw new RepositoryError(
            "CONFLICT",
            err.code === "CONFLICT"
              ? `What came after the merge touches the same lines, so it cannot be undone automatically: ${err.conflicts.join(", ")}`
              : err.message,
          );
        throw err;
      }
      const done = await this.move(row, "reverted", who, {
        revertCommit: reverted.commit,
        stateReason: `Reverted by ${actor.name}: ${why}`,
      });
      if (!done) throw new RepositoryError("CONFLICT", "The change request moved on meanwhile; look again");
    });
    return this.get(actor, id);
  }

  /** A comment on the change's conversation, as on a pull request: anyone of its team who may act on runs. */
  async comment(actor: Actor, id: string, text: string, channel: string) {
    const words = text.trim();
    if (!words) throw new RepositoryError("INVALID_INPUT", "Write a comment first", [{ field: "comment", message: "Required" }]);
    const row = await this.visible(actor, id);
    this.requireRole(actor, await this.reviewTeam(row), "operator", "Commenting on a change");
    await this.audit({ id: actor.userId, name: actor.name, channel }, "change.comment", row, { comment: words.slice(0, 4000) });
    return this.get(actor, id);
  }

  // ---- reading ----

  async list(actor: Actor, raw: ListChangesInput = {}) {
    const input = ListChangesInput.parse(raw);
    const rows = await this.deps.db.changeRequest.findMany({
      where: {
        ...(input.state?.length ? { state: { in: input.state } } : {}),
        ...(input.repositoryId ? { repositoryId: input.repositoryId } : {}),
        ...this.visibleWhere(actor),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: input.limit,
      include: { repository: { select: { name: true } } },
    });
    const runs = await this.runsOf(rows.map((r) => r.authorRunId).filter((x): x is string => !!x));
    const reviews = await reviewsOf(
      this.deps.db,
      rows.map((r) => r.approvalRequestId).filter((x): x is string => !!x),
    );
    return rows.map((r) => ({
      ...this.summary(r),
      repository: { id: r.repositoryId, name: r.repository.name },
      authorRun: r.authorRunId ? (runs.get(r.authorRunId) ?? null) : null,
      review: (r.approvalRequestId && reviews.get(r.approvalRequestId)) || null,
    }));
  }

  /** Everything the change's page shows. */
  async get(actor: Actor, id: string) {
    const row = await this.visible(actor, id);
    const repo = await this.repositoryOf(row);
    const runs = await this.runsOf(row.authorRunId ? [row.authorRunId] : []);
    const checks = await this.deps.db.changeCheck.findMany({
      where: { changeRequestId: id },
      orderBy: { startedAt: "desc" },
      take: 20,
      select: { id: true, kind: true, state: true, startedAt: true, endedAt: true, exitCode: true, durationMs: true },
    });
    const request = row.approvalRequestId
      ? await this.deps.db.humanRequest.findUnique({
          where: { id: row.approvalRequestId },
          select: { id: true, state: true, decidedById: true, decidedAt: true, requiredRole: true },
        })
      : null;
    const decider = request?.decidedById
      ? await this.deps.db.user.findUnique({ where: { id: request.decidedById }, select: { name: true } })
      : null;
    const approval = request ? { ...request, decidedByName: decider?.name ?? (request.decidedById === "system" ? "Rein" : null) } : null;
    const friction = row.frictionId
      ? await this.deps.db.friction
          .findUnique({ where: { id: row.frictionId }, select: { id: true, kind: true, title: true, occurrences: true, runCount: true } })
          .catch(() => null)
      : null;
    const files = json<ChangedFile[]>(row.files, []);
    const facts = await this.facts(row);
    const activity = await changeActivity(this.deps.db, row);
    const author = runs.get(row.authorRunId ?? "") ?? null;
    const team = { teamId: repo.teamId ?? row.teamId };
    return {
      ...this.summary(row),
      repository: {
        id: repo.id,
        name: repo.name,
        defaultBranch: repo.defaultBranch,
        testCommand: repo.testCommand,
        evalDatasetId: repo.evalDatasetId,
      },
      authorRun: author,
      filesByRisk: groupByRisk(files.map((f) => f.path)),
      checkRuns: checks,
      activity: activity.entries,
      activityLeftOut: activity.leftOut,
      fix: fixEvidence(checks),
      approval,
      friction,
      diff: await this.diffText(row, repo),
      mergeBlockedBy: row.state === "awaiting_review" ? mergeRefusal({ ...facts, appliesOnTarget: true }) : null,
      /** The eval gate is not built: a repository naming a dataset is told so, never shown a result that did not happen. */
      evalGate: repo.evalDatasetId
        ? {
            declared: true,
            note: "This repository names an eval dataset, but Rein does not run experiments for changes yet: only its tests and the approval gate this change.",
          }
        : { declared: false, note: null },
      you: {
        launchedIt: author?.createdById === actor.userId,
        mayApprove: row.state === "awaiting_review" && !this.refusal(actor, team, "approver") && author?.createdById !== actor.userId,
        mayReject:
          CHANGE_OPEN.includes(row.state as ChangeState) &&
          row.state !== "checks_running" &&
          (row.createdById === actor.userId || !this.refusal(actor, team, "approver")),
        mayRevert: row.state === "merged" && !this.refusal(actor, team, "approver"),
        mayComment: !this.refusal(actor, team, "operator"),
        mayRerun:
          (row.state === "checks_failed" || row.state === "awaiting_review") && !!row.headCommit && !this.refusal(actor, team, "operator"),
      },
    };
  }

  /** Every check run of the change with its log, newest first (at most 20, each log capped). */
  async checkLogs(actor: Actor, id: string) {
    await this.visible(actor, id);
    return this.deps.db.changeCheck.findMany({ where: { changeRequestId: id }, orderBy: { startedAt: "desc" }, take: 20 });
  }

  /** One check's log. */
  async checkLog(actor: Actor, id: string, checkId: string) {
    await this.visible(actor, id);
    const check = await this.deps.db.changeCheck.findFirst({ where: { id: checkId, changeRequestId: id } });
    if (!check) throw new RepositoryError("NOT_FOUND", `The change request ${id} has no check ${checkId}`);
    return check;
  }

  // ---- start-up and clean-up ----

  /** The authoring run ended: a change already closed has its worktree removed now. */
  async runEnded(runId: string): Promise<void> {
    const row = await this.deps.db.changeRequest.findFirst({ where: { authorRunId: runId } });
    if (!row || CHANGE_OPEN.includes(row.state as ChangeState)) return;
    await this.cleanUp(row, await this.repositoryOf(row));
  }

  /** After a restart: checks that were running when the server stopped are failed with that reason (a re-run starts them again). */
  async recover(): Promise<number> {
    const stuck = await this.deps.db.changeRequest.findMany({ where: { state: "checks_running" } });
    let n = 0;
    for (const row of stuck) {
      if (await this.move(row, "checks_failed", SYSTEM, { stateReason: "The server stopped while the checks ran; run them again" })) n++;
    }
    await this.deps.db.changeCheck.updateMany({
      where: { state: "running" },
      data: { state: "error", endedAt: this.now(), log: "[the server stopped while the checks ran]" },
    });
    return n;
  }

  /** Waits for checks and merges under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.busy.size) await Promise.allSettled([...this.busy.values()]);
  }

  private async cleanUp(row: ChangeRow, repo: RepositoryRow) {
    // The authoring worktree goes once the change is closed; the branch stays for the record (and a revert).
    const run = row.authorRunId ? await this.deps.db.run.findUnique({ where: { id: row.authorRunId }, select: { status: true } }) : null;
    if (run && !["succeeded", "failed", "canceled"].includes(run.status)) return;
    await removeWorktree(this.deps, repo, row.id, { dir: workspaceFor(this.deps.dataDir, row.id).root }).catch((err) =>
      this.deps.log.error(`change ${row.id}: removing its worktree failed`, err),
    );
  }

  // ---- helpers ----

  private async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    while (this.busy.has(id)) await this.busy.get(id)!.catch(() => undefined);
    const p = fn();
    this.busy.set(id, p);
    try {
      return await p;
    } finally {
      if (this.busy.get(id) === p) this.busy.delete(id);
    }
  }

  /** A compare-and-set of the state, audited; null when the row had moved on (or the move is not in the table). */
  private async move(row: ChangeRow, to: ChangeState, who: Who, data: Partial<ChangeRow> = {}): Promise<ChangeRow | null> {
    const from = row.state as ChangeState;
    if (!isChangeState(from) || !canChangeGo(from, to)) return null;
    const res = await this.deps.db.changeRequest.updateMany({ where: { id: row.id, state: from }, data: { ...data, state: to } });
    if (res.count !== 1) return null;
    await this.audit(who, `change.${to}`, row, { from, to, ...(data.stateReason ? { reason: data.stateReason } : {}) });
    const next = await this.deps.db.changeRequest.findUniqueOrThrow({ where: { id: row.id } });
    if (row.authorRunId) {
      await this.deps.kernel.store
        .appendEvents(row.authorRunId, [
          event(
            "change.state",
            { changeId: row.id, from, to, title: next.title, ...(data.stateReason ? { reason: data.stateReason } : {}) },
            { actor: who.id === "system" ? "system" : who.id },
          ),
        ])
        .catch((err) => this.deps.log.error(`change ${row.id}: its timeline event could not be written`, err));
    }
    return next;
  }

  private audit(
    who: Who,
    kind: string,
    row: Pick<ChangeRow, "id" | "title" | "repositoryId" | "authorRunId">,
    detail: { from?: string; to?: string } & Record<string, unknown>,
  ) {
    const { from, to, ...rest } = detail;
    return recordAudit(this.deps.db, {
      kind,
      actorId: who.id,
      actorName: who.name,
      channel: who.channel,
      runId: row.authorRunId ?? undefined,
      subject: row.title.slice(0, 200),
      fromState: from,
      toState: to,
      detail: { changeId: row.id, repositoryId: row.repositoryId, ...rest },
    });
  }

  private async facts(row: ChangeRow) {
    const { db } = this.deps;
    const approval = row.approvalRequestId
      ? await db.humanRequest.findUnique({
          where: { id: row.approvalRequestId },
          select: { state: true, decidedById: true, slot: true, nodeId: true },
        })
      : null;
    const run = row.authorRunId ? await db.run.findUnique({ where: { id: row.authorRunId }, select: { createdById: true } }) : null;
    const tests = json<{ tests?: { state?: string } }>(row.checks, {}).tests;
    // Only the request this change opened, for the head that was checked, counts.
    const forThisHead = approval && approval.slot === "change" && approval.nodeId.startsWith(approvalPrefix(row));
    return {
      state: row.state as ChangeState,
      checksPassed: tests?.state === "passed",
      evalPassed: null,
      approval: forThisHead ? { state: approval.state, decidedById: approval.decidedById } : null,
      authorLaunchedById: run?.createdById ?? row.createdById ?? "",
      appliesOnTarget: true,
    };
  }

  /** Who reviews a change: the repository's team as it is now (a repository without one: the run's). */
  private async reviewTeam(row: ChangeRow): Promise<{ teamId: string | null }> {
    return { teamId: (await this.repositoryOf(row)).teamId ?? row.teamId };
  }

  private async targetHead(repo: RepositoryRow): Promise<string> {
    const gitDir = await repositoryGitDir(this.deps, repo);
    return gitText(["rev-parse", "--verify", "--quiet", `refs/heads/${repo.defaultBranch}^{commit}`], { gitDir });
  }

  private async diffText(row: ChangeRow, repo: RepositoryRow): Promise<{ text: string; truncated: boolean } | null> {
    if (!row.headCommit) return null;
    try {
      const gitDir = await repositoryGitDir(this.deps, repo);
      const out = await repoGit(gitDir, [
        "diff-tree",
        "-r",
        "-p",
        "--no-renames",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        row.baseCommit,
        row.headCommit,
      ]);
      return { text: out.slice(0, MAX_VIEW_DIFF_BYTES), truncated: out.length > MAX_VIEW_DIFF_BYTES };
    } catch (err) {
      if (err instanceof MergeError || err instanceof GitError) return null;
      throw err;
    }
  }

  private summary(r: ChangeRow) {
    return {
      id: r.id,
      title: r.title,
      hypothesis: r.hypothesis,
      state: r.state as ChangeState,
      stateReason: r.stateReason,
      branch: r.branch,
      baseCommit: r.baseCommit,
      headCommit: r.headCommit,
      mergeCommit: r.mergeCommit,
      revertCommit: r.revertCommit,
      files: json<ChangedFile[]>(r.files, []),
      diffStat: json<{ files: number; insertions: number; deletions: number }>(r.diffStat, { files: 0, insertions: 0, deletions: 0 }),
      checks: json<{ tests?: { state: string; exitCode: number | null; durationMs: number; checkId: string; endedAt: string } }>(
        r.checks,
        {},
      ),
      teamId: r.teamId,
      createdById: r.createdById,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  }

  private async runsOf(ids: string[]) {
    if (!ids.length)
      return new Map<
        string,
        {
          id: string;
          status: string;
          agentName: string;
          model: string;
          costUsd: number;
          createdById: string | null;
          launchedBy: string | null;
        }
      >();
    const rows = await this.deps.db.run.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        status: true,
        agentName: true,
        model: true,
        costUsd: true,
        createdById: true,
        createdBy: { select: { name: true } },
      },
    });
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          status: r.status,
          agentName: r.agentName,
          model: r.model,
          costUsd: r.costUsd,
          createdById: r.createdById,
          launchedBy: r.createdBy?.name ?? null,
        },
      ]),
    );
  }

  private async repositoryOf(row: Pick<ChangeRow, "repositoryId">): Promise<RepositoryRow> {
    return this.deps.db.repository.findUniqueOrThrow({ where: { id: row.repositoryId } });
  }

  /** The changes a person may see: of repositories they see, and of their teams' runs or launched by them. */
  private visibleWhere(actor: Actor) {
    if (actor.role === "admin") return {};
    // A team's repository: its team sees its changes, whatever team a change was once made in.
    return {
      repository: { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] },
      OR: [{ teamId: { in: actor.teamIds } }, { createdById: actor.userId }, { repository: { teamId: { in: actor.teamIds } } }],
    };
  }

  private async visible(actor: Actor, id: string): Promise<ChangeRow> {
    const row = await this.deps.db.changeRequest.findFirst({ where: { id, ...this.visibleWhere(actor) } });
    if (!row) throw new RepositoryError("NOT_FOUND", `There is no change request ${id}`);
    return row;
  }

  private refusal(actor: Actor, row: Pick<ChangeRow, "teamId">, role: Role, doing = "This"): string | null {
    if (actor.role === "admin") return null;
    return roleRefusal(
      { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles },
      row.teamId,
      role,
      doing,
    );
  }

  private requireRole(actor: Actor, row: Pick<ChangeRow, "teamId">, role: Role, doing: string) {
    const refusal = this.refusal(actor, row, role, doing);
    if (refusal) throw new RepositoryError("FORBIDDEN", refusal);
  }
}

const SYSTEM: Who = { id: "system", name: "Rein", channel: "kernel" };
