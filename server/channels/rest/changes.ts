// REST v1 for reviewed changes (docs/changes.md): repositories (admins
// register and change them), change requests (operators start one and re-run
// its checks; approvers merge, i.e. approve through the HITL broker, and
// revert; reject as the tRPC router allows). The same services and role
// checks as the tRPC routers.
import { z } from "zod";
import {
  ListChangesInput,
  StartChangeInput,
  createRepository,
  getRepository,
  listRepositories,
  setRepositoryArchived,
  updateRepository,
  type ChangeRequests,
} from "@/server/improve";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const repoPath = (rest = "") => new RegExp(`^/api/v1/repositories/([^/]+)${rest}$`);
const changePath = (rest = "") => new RegExp(`^/api/v1/change-requests/([^/]+)${rest}$`);

const CommentBody = z.object({ comment: z.string().trim().max(4000, "comment is at most 4,000 characters").optional() }).strict();
const ArchiveBody = z.object({ archived: z.boolean({ error: "archived is true or false" }) }).strict();

function changesOf(ctx: RouteContext): ChangeRequests {
  const changes = ctx.improve?.changes;
  if (!changes) throw new DomainError("UNAVAILABLE", "Change requests are not available on this server");
  return changes;
}

const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");
const who = (ctx: RouteContext) => ({ actor: ctx.actor, channel: channelOf(ctx) });

const listQuery = (url: URL) => {
  const state = url.searchParams
    .getAll("state")
    .flatMap((s) => s.split(","))
    .filter(Boolean);
  const limit = url.searchParams.get("limit");
  return ListChangesInput.parse({
    ...(state.length ? { state } : {}),
    ...(url.searchParams.get("repository") ? { repositoryId: url.searchParams.get("repository") } : {}),
    ...(limit ? { limit: Number(limit) } : {}),
  });
};

export const REPOSITORY_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/repositories$/,
    minRole: "viewer",
    handle: async (ctx) => ({
      repositories: await listRepositories(ctx.db, ctx.actor, { includeArchived: ctx.url.searchParams.get("archived") === "true" }),
    }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/repositories$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => createRepository(changesOf(ctx).registry, who(ctx), await readJson(ctx.req)),
  },
  { method: "GET", pattern: repoPath(), minRole: "viewer", handle: (ctx) => getRepository(ctx.db, ctx.actor, ctx.params[0]) },
  {
    method: "PATCH",
    pattern: repoPath(),
    minRole: "admin",
    handle: async (ctx) => updateRepository(changesOf(ctx).registry, who(ctx), ctx.params[0], await readJson(ctx.req)),
  },
  {
    method: "POST",
    pattern: repoPath("/archive"),
    minRole: "admin",
    async handle(ctx) {
      const { archived } = ArchiveBody.parse(await readJson(ctx.req));
      return setRepositoryArchived(changesOf(ctx).registry, who(ctx), ctx.params[0], archived);
    },
  },
];

export const CHANGE_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/change-requests$/,
    minRole: "viewer",
    handle: async (ctx) => ({ changeRequests: await changesOf(ctx).list(ctx.actor, listQuery(ctx.url)) }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/change-requests$/,
    minRole: "operator",
    status: 201,
    async handle(ctx) {
      const input = StartChangeInput.parse(await readJson(ctx.req));
      return changesOf(ctx).start(ctx.actor, input, channelOf(ctx));
    },
  },
  { method: "GET", pattern: changePath(), minRole: "viewer", handle: (ctx) => changesOf(ctx).get(ctx.actor, ctx.params[0]) },
  {
    method: "GET",
    pattern: changePath("/checks"),
    minRole: "viewer",
    handle: async (ctx) => ({ checks: await changesOf(ctx).checkLogs(ctx.actor, ctx.params[0]) }),
  },
  {
    method: "POST",
    pattern: changePath("/checks"),
    minRole: "operator",
    handle: (ctx) => changesOf(ctx).rerunChecks(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
  {
    method: "POST",
    pattern: changePath("/merge"),
    minRole: "approver",
    async handle(ctx) {
      const { comment } = CommentBody.parse(await readJson(ctx.req));
      return changesOf(ctx).approve(ctx.actor, ctx.params[0], comment, channelOf(ctx));
    },
  },
  {
    method: "POST",
    pattern: changePath("/reject"),
    minRole: "operator",
    async handle(ctx) {
      const { comment } = CommentBody.parse(await readJson(ctx.req));
      return changesOf(ctx).reject(ctx.actor, ctx.params[0], comment, channelOf(ctx));
    },
  },
  {
    method: "POST",
    pattern: changePath("/revert"),
    minRole: "approver",
    handle: (ctx) => changesOf(ctx).revert(ctx.actor, ctx.params[0], channelOf(ctx)),
  },
];
