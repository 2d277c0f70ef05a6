// REST v1 for reviewed changes (docs/changes.md): repositories (admins
// register and change them), change requests (operators start one and re-run
// its checks; approvers merge, i.e. approve through the HITL broker, and
// revert; reject as the tRPC router allows). The same services and role
// checks as the tRPC routers.
import { z } from "zod";
import {
  ListChangesInput,
  RepositoryInput,
  RepositoryPatch,
  StartChangeInput,
  createRepository,
  getRepository,
  listRepositories,
  setRepositoryArchived,
  updateRepository,
} from "@/server/improve";
import { defineRoute, type Route } from "./contract";
import { Instant } from "./schemas";

const CommentBody = z
  .object({ comment: z.string().trim().max(4000, "comment is at most 4,000 characters").optional().describe("Why, in words") })
  .strict();
const ReasonBody = z
  .object({ reason: z.string().trim().min(1, "say why").max(4000, "a reason is at most 4,000 characters").describe("Why, in words") })
  .strict();
const NewComment = z
  .object({ comment: z.string().trim().min(1, "write a comment").max(4000, "a comment is at most 4,000 characters") })
  .strict();
const ActivityEntry = z.object({
  id: z.string(),
  at: Instant,
  kind: z.enum(["opened", "proposed", "check", "decision", "comment", "state", "refused"]),
  who: z.string().describe("A person's name, the agent's, or Rein"),
  text: z.string().describe("What happened, in words"),
  comment: z.string().optional().describe("A person's own words: a comment, a decision's comment, a revert's reason"),
  ref: z.string().optional().describe("A check run's id, or the approve request's"),
  to: z.string().optional().describe("The state it led to"),
});
const CheckSide = z.object({ checkId: z.string(), state: z.string(), exitCode: z.number().int().nullable() });
const ArchiveBody = z.object({ archived: z.boolean({ error: "archived is true or false" }).describe("false restores it") }).strict();
/** A change to a repository: its source never changes, which the service says in words. */
const RepositoryChange = RepositoryPatch.extend({
  source: z
    .never({ error: "a repository's source cannot change; register a new repository" })
    .optional()
    .describe("Not accepted: a source never changes"),
});

/** The change request's states, as the service's filter takes them. */
const ChangeState = ListChangesInput.shape.state.unwrap().element;

const ListQuery = z.object({
  state: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(",").filter(Boolean) : undefined))
    .pipe(ListChangesInput.shape.state)
    .describe(`Comma-separated: ${ChangeState.options.join(", ")}`),
  repository: z.string().optional().describe("A repository id"),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const Repository = z
  .object({
    id: z.string(),
    name: z.string(),
    source: z.string().describe("An absolute path, or the git URL it was cloned from"),
    kind: z.enum(["path", "url"]),
    defaultBranch: z.string(),
    testCommand: z.string().describe("Runs in a sandbox over a clean checkout of the change, with no network"),
    testTimeoutSec: z.number().int(),
    protectedPaths: z.array(z.string()).describe("Globs a change may not touch"),
    evalDatasetId: z.string().nullable(),
    teamId: z.string().nullable().describe("null: every team sees it"),
    builtIn: z.boolean(),
    archived: z.boolean().describe("Archived ones take no new change requests"),
    createdById: z.string().nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: "Repository" });

const REPOSITORY_FIELDS =
  "name: lower-case letters, digits, dots, dashes and underscores; source: an absolute path, or an https://, ssh:// or file:// URL; defaultBranch (default main); testCommand: runs in a sandbox over a clean checkout of the change, with no network; testTimeoutSec: 5 to 3600 (default 600); protectedPaths: globs; evalDatasetId; teamId: null for every team.";

const AuthorRun = z
  .object({
    id: z.string(),
    status: z.string(),
    agentName: z.string(),
    model: z.string(),
    costUsd: z.number(),
    createdById: z.string().nullable(),
    launchedBy: z.string().nullable().describe("The name of the person who launched it"),
  })
  .nullable()
  .describe("The run whose agent wrote the change");

const changeFields = {
  id: z.string().describe("Also the id of the run that writes it"),
  title: z.string(),
  hypothesis: z.string().describe("The agent's: why the change fixes the problem and how it checked it"),
  state: ChangeState,
  stateReason: z.string().describe("Why it is in its state, in words (a refusal, a reviewer's comment); empty when nothing to say"),
  branch: z.string(),
  baseCommit: z.string(),
  headCommit: z.string().nullable(),
  mergeCommit: z.string().nullable(),
  revertCommit: z.string().nullable(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(["added", "modified", "deleted", "type_changed"]),
      insertions: z.number().int().nullable().describe("null for a binary file"),
      deletions: z.number().int().nullable(),
    }),
  ),
  diffStat: z
    .object({ files: z.number().int().optional(), insertions: z.number().int().optional(), deletions: z.number().int().optional() })
    .describe("Files changed, lines added and removed; empty until the agent proposes the change"),
  checks: z
    .object({
      tests: z
        .object({
          state: z.string(),
          exitCode: z.number().int().nullable(),
          durationMs: z.number(),
          checkId: z.string(),
          endedAt: z.string().describe("ISO 8601"),
        })
        .optional(),
    })
    .describe("The last result of each kind of check"),
  teamId: z.string().nullable().describe("The team whose approvers review it"),
  createdById: z.string().nullable(),
  createdAt: Instant,
  updatedAt: Instant,
};

const ChangeRequestSummary = z
  .object({
    ...changeFields,
    repository: z.object({ id: z.string(), name: z.string() }),
    authorRun: AuthorRun,
    review: z
      .object({ state: z.string(), byName: z.string().nullable(), at: Instant.nullable() })
      .nullable()
      .describe("Its approve request: PENDING, APPROVED, REJECTED, EXPIRED or CANCELED, and who decided"),
  })
  .meta({ id: "ChangeRequestSummary" });

const ChangeRequest = z
  .object({
    ...changeFields,
    repository: z.object({
      id: z.string(),
      name: z.string(),
      defaultBranch: z.string(),
      testCommand: z.string(),
      evalDatasetId: z.string().nullable(),
    }),
    authorRun: AuthorRun,
    filesByRisk: z.object({ high: z.array(z.string()), medium: z.array(z.string()), low: z.array(z.string()) }),
    checkRuns: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        state: z.string(),
        startedAt: Instant,
        endedAt: Instant.nullable(),
        exitCode: z.number().int().nullable(),
        durationMs: z.number(),
      }),
    ),
    activity: z.array(ActivityEntry).describe("The conversation, oldest first: proposals, checks, decisions, comments, merges, reverts"),
    activityLeftOut: z.number().int().describe("Older entries left out of a very long conversation"),
    fix: z
      .object({
        before: CheckSide,
        after: CheckSide.nullable(),
        verdict: z.enum(["shown", "not_shown", "pending", "unknown"]),
        words: z.string(),
      })
      .nullable()
      .describe("For a change that claims a fix: the tests on the base (before) against the tests on the change (after)"),
    approval: z
      .object({
        id: z.string(),
        state: z.string(),
        decidedById: z.string().nullable(),
        decidedAt: Instant.nullable(),
        requiredRole: z.string(),
        decidedByName: z.string().nullable(),
      })
      .nullable()
      .describe("The approve request the change's approvers decide"),
    friction: z
      .object({ id: z.string(), kind: z.string(), title: z.string(), occurrences: z.number().int(), runCount: z.number().int() })
      .nullable()
      .describe("The friction that motivated the change"),
    diff: z.object({ text: z.string(), truncated: z.boolean() }).nullable(),
    mergeBlockedBy: z.string().nullable().describe("Awaiting review: what still stands in the way of the merge"),
    evalGate: z.object({ declared: z.boolean(), note: z.string().nullable() }),
    you: z
      .object({
        launchedIt: z.boolean(),
        mayApprove: z.boolean(),
        mayReject: z.boolean(),
        mayRevert: z.boolean(),
        mayRerun: z.boolean(),
        mayComment: z.boolean(),
      })
      .describe("What you may do with it"),
  })
  .meta({ id: "ChangeRequest" });

export const REPOSITORY_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/repositories",
    minRole: "viewer",
    summary: "Repositories agents may propose changes to (yours and everyone's; admins: all)",
    query: z.object({ archived: z.string().optional().describe("true: archived ones too") }),
    response: z.object({ repositories: z.array(Repository) }),
    handle: async ({ query, actor, db }) => ({
      repositories: await listRepositories(db, actor, { includeArchived: query.archived === "true" }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/repositories",
    minRole: "admin",
    status: 201,
    summary: "Register a repository: a local path or a git URL the server can reach",
    description: `A URL is cloned bare into the data directory; a local path is used where it is (never the server's own running checkout). protectedPaths are globs a change may not touch; Rein's own folders are protected in Rein's own repository whatever the list says. ${REPOSITORY_FIELDS}`,
    body: RepositoryInput,
    response: Repository,
    responseDescription: "The repository",
    errors: { 409: "There is already a repository of that name" },
    handle: ({ body, actor, channel, improve }) => createRepository(improve.changes.registry, { actor, channel }, body),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/repositories/{id}",
    names: { id: "repository" },
    minRole: "viewer",
    summary: "One repository",
    response: Repository,
    handle: ({ params, actor, db }) => getRepository(db, actor, params.id),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/repositories/{id}",
    names: { id: "repository" },
    minRole: "admin",
    summary: "Change a repository: any field but its source",
    description: "Send only what changes.",
    body: RepositoryChange,
    response: Repository,
    responseDescription: "The repository",
    errors: { 409: "There is already a repository of that name" },
    handle: ({ body, params, actor, channel, improve }) => updateRepository(improve.changes.registry, { actor, channel }, params.id, body),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/repositories/{id}/archive",
    names: { id: "repository" },
    minRole: "admin",
    summary: "Archive (or restore) a repository: archived ones take no new change requests",
    body: ArchiveBody,
    response: Repository,
    responseDescription: "The repository",
    handle: ({ body, params, actor, channel, improve }) =>
      setRepositoryArchived(improve.changes.registry, { actor, channel }, params.id, body.archived),
  }),
];

export const CHANGE_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/change-requests",
    minRole: "viewer",
    summary: "Change requests you can see, newest first",
    query: ListQuery,
    response: z.object({ changeRequests: z.array(ChangeRequestSummary) }),
    handle: async ({ query, actor, improve }) => ({
      changeRequests: await improve.changes.list(actor, {
        state: query.state,
        repositoryId: query.repository || undefined,
        limit: query.limit,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests",
    minRole: "operator",
    status: 201,
    summary: "Start a change: an agent works on a worktree of the repository and proposes the change",
    description:
      "Launches the agent (default demo-fix) in a run whose workspace is a git worktree of a branch of its own. Its propose_change commits, runs the checks and asks an approver; nothing merges without that approval.",
    body: StartChangeInput,
    response: ChangeRequest,
    responseDescription: "The change request (draft), as GET returns it",
    errors: { 409: "The repository is archived" },
    handle: ({ body, actor, channel, improve }) => improve.changes.start(actor, body, channel),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/change-requests/{id}",
    minRole: "viewer",
    summary: "One change request: the diff, files by risk, checks, the author run, the approval and what you may do",
    response: ChangeRequest,
    handle: ({ params, actor, improve }) => improve.changes.get(actor, params.id),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/change-requests/{id}/checks",
    minRole: "viewer",
    summary: "The change's check runs with their logs (capped at 256 KiB each)",
    response: z.object({
      checks: z.array(
        z.object({
          id: z.string(),
          changeRequestId: z.string(),
          kind: z.string().describe("tests or eval"),
          state: z.string().describe("running, passed, failed, timed_out or error"),
          exitCode: z.number().int().nullable(),
          durationMs: z.number(),
          startedAt: Instant,
          endedAt: Instant.nullable(),
          log: z.string(),
        }),
      ),
    }),
    handle: async ({ params, actor, improve }) => ({ checks: await improve.changes.checkLogs(actor, params.id) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests/{id}/checks",
    minRole: "operator",
    summary: "Run the checks again (on the change's head)",
    response: ChangeRequest,
    responseDescription: "The change request after its checks",
    errors: { 409: "The change has nothing to check, or is not in a state whose checks run again" },
    handle: ({ params, actor, channel, improve }) => improve.changes.rerunChecks(actor, params.id, channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests/{id}/merge",
    minRole: "approver",
    summary: "Approve and merge: decides the change's approve request as you, then merges if its checks passed",
    description:
      "The person who launched the run that wrote the change cannot approve it (403). A target branch that moved is tested again first; a change that no longer applies is refused and goes back to checks_failed.",
    body: CommentBody,
    response: ChangeRequest,
    responseDescription: "The change request (merged, or why not in stateReason)",
    errors: { 409: "The change is not waiting for review, or its approval request has ended" },
    handle: ({ body, params, actor, channel, improve }) => improve.changes.approve(actor, params.id, body.comment, channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests/{id}/reject",
    minRole: "operator",
    summary: "Reject (approvers) or withdraw (the launcher) an open change request, with a comment",
    body: CommentBody,
    response: ChangeRequest,
    responseDescription: "The change request",
    errors: { 409: "The change request is closed, or its checks are running" },
    handle: ({ body, params, actor, channel, improve }) => improve.changes.reject(actor, params.id, body.comment, channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests/{id}/revert",
    minRole: "approver",
    summary: "Revert a merged change, with a reason: one more commit on the target restores the tree before the merge; audited",
    body: ReasonBody,
    response: ChangeRequest,
    responseDescription: "The change request (reverted)",
    errors: { 409: "The change is not merged, or what came after the merge touches the same lines" },
    handle: ({ body, params, actor, channel, improve }) => improve.changes.revert(actor, params.id, body.reason, channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/change-requests/{id}/comments",
    minRole: "operator",
    status: 201,
    summary: "Comment on a change request's conversation (operators of its team)",
    body: NewComment,
    response: ChangeRequest,
    responseDescription: "The change request with the comment in its activity",
    handle: ({ body, params, actor, channel, improve }) => improve.changes.comment(actor, params.id, body.comment, channel),
  }),
];
