// REST v1 for people, invitations and teams
// (docs/people-and-teams.md#from-programs, docs/api.md): the same services,
// checks and audit as Settings › People and Teams. Team routes need only a
// login here; the service checks the caller's role in the team.
import {
  AddMemberInput,
  CreateInvitationInput,
  CreateTeamInput,
  CreateUserInput,
  MemberRoleInput,
  UpdateTeamInput,
  UpdateUserInput,
  addTeamMember,
  addUser,
  createInvitation,
  createResetLink,
  createTeam,
  disableUser,
  enableUser,
  getTeam,
  listInvitations,
  listTeams,
  listUsers,
  removeTeamMember,
  renameTeam,
  renameUser,
  revokeInvitation,
  setTeamArchived,
  setTeamMemberRole,
  setUserRole,
  type Acting,
} from "@/server/identity";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

/** Who makes the change; the CLI says it is the CLI, for the audit log's channel. */
const by = (ctx: RouteContext): Acting => ({ actor: ctx.actor, channel: ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api" });

const base = (ctx: RouteContext) => ctx.linkBase ?? "http://localhost:3000";
const ok = { ok: true };

const USER_ROUTES: Route[] = [
  { method: "GET", pattern: /^\/api\/v1\/users$/, minRole: "admin", handle: async (ctx) => ({ users: await listUsers(ctx.db) }) },
  {
    method: "POST",
    pattern: /^\/api\/v1\/users$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => addUser(ctx.db, by(ctx), CreateUserInput.parse(await readJson(ctx.req))),
  },
  {
    method: "PATCH",
    pattern: /^\/api\/v1\/users\/([^/]+)$/,
    minRole: "admin",
    async handle(ctx) {
      const body = UpdateUserInput.parse(await readJson(ctx.req));
      if (body.role === undefined && body.name === undefined) throw new DomainError("INVALID_INPUT", "Send role, name or both");
      // The role first: it is the change that can be refused, and a refusal must leave the name as it was.
      if (body.role !== undefined) await setUserRole(ctx.db, by(ctx), ctx.params[0], body.role);
      if (body.name !== undefined) await renameUser(ctx.db, by(ctx), ctx.params[0], body.name);
      return ok;
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/users\/([^/]+)\/disable$/,
    minRole: "admin",
    async handle(ctx) {
      await disableUser(ctx.db, by(ctx), ctx.params[0]);
      return ok;
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/users\/([^/]+)\/enable$/,
    minRole: "admin",
    async handle(ctx) {
      await enableUser(ctx.db, by(ctx), ctx.params[0]);
      return ok;
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/users\/([^/]+)\/reset-link$/,
    minRole: "admin",
    async handle(ctx) {
      const { url, expiresAt } = await createResetLink(ctx.db, by(ctx), ctx.params[0], base(ctx));
      return { url, expiresAt };
    },
  },
];

const INVITATION_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/invitations$/,
    minRole: "admin",
    handle: async (ctx) => ({ invitations: await listInvitations(ctx.db) }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/invitations$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => createInvitation(ctx.db, by(ctx), CreateInvitationInput.parse(await readJson(ctx.req)), base(ctx)),
  },
  {
    method: "DELETE",
    pattern: /^\/api\/v1\/invitations\/([^/]+)$/,
    minRole: "admin",
    async handle(ctx) {
      await revokeInvitation(ctx.db, by(ctx), ctx.params[0]);
      return ok;
    },
  },
];

const TEAM_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/teams$/,
    minRole: "viewer",
    handle: async (ctx) => ({ teams: await listTeams(ctx.db, ctx.actor) }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/teams$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => createTeam(ctx.db, by(ctx), CreateTeamInput.parse(await readJson(ctx.req)).name),
  },
  { method: "GET", pattern: /^\/api\/v1\/teams\/([^/]+)$/, minRole: "viewer", handle: (ctx) => getTeam(ctx.db, ctx.actor, ctx.params[0]) },
  {
    // name: admins and the team's admins; archived: admins.
    method: "PATCH",
    pattern: /^\/api\/v1\/teams\/([^/]+)$/,
    minRole: "viewer",
    async handle(ctx) {
      const body = UpdateTeamInput.parse(await readJson(ctx.req));
      if (body.name === undefined && body.archived === undefined) throw new DomainError("INVALID_INPUT", "Send name, archived or both");
      // Refused before anything changes: archiving is for admins, even when the name may be changed.
      if (body.archived !== undefined && ctx.actor.role !== "admin") {
        await getTeam(ctx.db, ctx.actor, ctx.params[0]); // NOT_FOUND for a team the caller is not in
        throw new DomainError("FORBIDDEN", `Archiving teams needs the admin role; you are ${ctx.actor.role}`);
      }
      if (body.name !== undefined) await renameTeam(ctx.db, by(ctx), ctx.params[0], body.name);
      if (body.archived !== undefined) await setTeamArchived(ctx.db, by(ctx), ctx.params[0], body.archived);
      return getTeam(ctx.db, ctx.actor, ctx.params[0]);
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/teams\/([^/]+)\/members$/,
    minRole: "viewer",
    handle: async (ctx) => ({ members: (await getTeam(ctx.db, ctx.actor, ctx.params[0])).members }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/teams\/([^/]+)\/members$/,
    minRole: "viewer",
    status: 201,
    async handle(ctx) {
      const body = (await readJson(ctx.req)) as Record<string, unknown>;
      await addTeamMember(ctx.db, by(ctx), AddMemberInput.parse({ ...body, teamId: ctx.params[0] }));
      return ok;
    },
  },
  {
    method: "PATCH",
    pattern: /^\/api\/v1\/teams\/([^/]+)\/members\/([^/]+)$/,
    minRole: "viewer",
    async handle(ctx) {
      const body = (await readJson(ctx.req)) as Record<string, unknown>;
      await setTeamMemberRole(ctx.db, by(ctx), MemberRoleInput.parse({ role: body?.role, teamId: ctx.params[0], userId: ctx.params[1] }));
      return ok;
    },
  },
  {
    method: "DELETE",
    pattern: /^\/api\/v1\/teams\/([^/]+)\/members\/([^/]+)$/,
    minRole: "viewer",
    async handle(ctx) {
      await removeTeamMember(ctx.db, by(ctx), { teamId: ctx.params[0], userId: ctx.params[1] });
      return ok;
    },
  },
];

export const PEOPLE_ROUTES: Route[] = [...USER_ROUTES, ...INVITATION_ROUTES, ...TEAM_ROUTES];
