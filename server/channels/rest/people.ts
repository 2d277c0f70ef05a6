// REST v1 for people, invitations and teams
// (docs/people-and-teams.md#from-programs, docs/api.md): the same services,
// checks and audit as Settings › People and Teams. Team routes need only a
// login here; the service checks the caller's role in the team.
import { z } from "zod";
import {
  AddMemberInput,
  CreateInvitationInput,
  CreateTeamInput,
  CreateUserInput,
  MemberRoleInput,
  ROLES,
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
  type Actor,
} from "@/server/identity";
import { DomainError } from "@/server/errors";
import { defineRoute, type Route } from "./contract";
import { Instant, Ok, TeamRef } from "./schemas";

/** Who makes the change, with the channel for the audit log. */
const by = (ctx: { actor: Actor; channel: "cli" | "api" }): Acting => ({ actor: ctx.actor, channel: ctx.channel });

const ok = { ok: true };

const RoleName = z.enum(ROLES);

const Link = z.object({
  url: z.string().describe("Shown once; only its hash is stored"),
  expiresAt: Instant,
});

const User = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: RoleName.describe("Their own role: the least they have in every team"),
  status: z.enum(["active", "disabled"]),
  createdAt: Instant,
  lastSeenAt: Instant.nullable(),
  disabledAt: Instant.nullable(),
  teams: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      role: RoleName.describe("Their role in the team"),
      effectiveRole: RoleName.describe("The role they act with in it: the higher of their own and their team role"),
    }),
  ),
});

const Invitation = z.object({
  id: z.string(),
  email: z.string(),
  role: RoleName,
  team: TeamRef.nullable(),
  teamRole: RoleName.nullable(),
  createdAt: Instant,
  expiresAt: Instant,
  createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
  state: z.enum(["pending", "expired", "used", "revoked"]),
});

const TeamListItem = z.object({
  id: z.string(),
  name: z.string(),
  archivedAt: Instant.nullable(),
  memberCount: z.number().int(),
  myRole: RoleName.nullable().describe("Your role in the team; null for a team you are not in"),
  budgetUsd: z.number().nullable().describe("Spend cap per calendar month (UTC)"),
  spentThisMonthUsd: z.number(),
  runCount: z.number().int(),
  activeRunCount: z.number().int(),
  policyRules: z.number().int().describe("Rules of the policy in force that name this team"),
});

const Member = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: RoleName.describe("Their role in the team"),
  ownRole: RoleName.describe("Their own role"),
  effectiveRole: RoleName.describe("The role they act with in the team"),
  addedAt: Instant,
  disabled: z.boolean(),
});

const Team = z
  .object({
    id: z.string(),
    name: z.string(),
    archivedAt: Instant.nullable(),
    budgetUsd: z.number().nullable(),
    spentThisMonthUsd: z.number(),
    runCount: z.number().int(),
    myRole: RoleName.nullable(),
    canManage: z.boolean().describe("You may rename it and manage its members"),
    members: z.array(Member),
    recentRuns: z.array(z.object({ id: z.string(), goal: z.string(), status: z.string(), agentName: z.string(), createdAt: Instant })),
  })
  .meta({ id: "Team" });

const USER_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/users",
    minRole: "admin",
    summary: "People: roles, teams, status, last seen",
    response: z.object({ users: z.array(User) }),
    handle: async ({ db }) => ({ users: await listUsers(db) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/users",
    minRole: "admin",
    status: 201,
    summary: "Add a person with a password",
    body: CreateUserInput.extend({
      role: CreateUserInput.shape.role.describe("Their own role: the least they have in every team"),
      teamId: CreateUserInput.shape.teamId.describe("The team they join (default: the default team)"),
      teamRole: CreateUserInput.shape.teamRole.describe("Their role in that team (default viewer)"),
    }),
    response: User,
    responseDescription: "The person",
    errors: { 409: "The e-mail is taken" },
    async handle(ctx) {
      const { id } = await addUser(ctx.db, by(ctx), ctx.body);
      const user = (await listUsers(ctx.db)).find((u) => u.id === id);
      if (!user) throw new DomainError("NOT_FOUND", "The person was removed as they were added");
      return user;
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/users/{id}",
    names: { id: "user" },
    minRole: "admin",
    summary: "Change a person's role or name",
    description: "The last active admin cannot be demoted, nor can you remove your own admin role.",
    body: UpdateUserInput,
    response: Ok,
    errors: { 409: "The last active admin" },
    async handle(ctx) {
      const { body, params, db } = ctx;
      if (body.role === undefined && body.name === undefined) throw new DomainError("INVALID_INPUT", "Send role, name or both");
      // The role first: it is the change that can be refused, and a refusal must leave the name as it was.
      if (body.role !== undefined) await setUserRole(db, by(ctx), params.id, body.role);
      if (body.name !== undefined) await renameUser(db, by(ctx), params.id, body.name);
      return ok;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/users/{id}/disable",
    names: { id: "user" },
    minRole: "admin",
    summary: "Disable a person: their sessions, API tokens and sockets stop working at once",
    description: "Refused for yourself and for the last active admin.",
    response: Ok,
    errors: { 409: "The last active admin" },
    async handle(ctx) {
      await disableUser(ctx.db, by(ctx), ctx.params.id);
      return ok;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/users/{id}/enable",
    names: { id: "user" },
    minRole: "admin",
    summary: "Enable a disabled person",
    response: Ok,
    async handle(ctx) {
      await enableUser(ctx.db, by(ctx), ctx.params.id);
      return ok;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/users/{id}/reset-link",
    names: { id: "user" },
    minRole: "admin",
    summary: "A single-use password-reset link, valid 24 hours",
    description: "Using it sets the password and ends every session of that person. A newer link replaces the older one.",
    response: Link,
    errors: { 409: "The person is disabled: enable them first" },
    async handle(ctx) {
      const { url, expiresAt } = await createResetLink(ctx.db, by(ctx), ctx.params.id, ctx.linkBase);
      return { url, expiresAt };
    },
  }),
];

const INVITATION_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/invitations",
    minRole: "admin",
    summary: "Invitations and their state (pending, expired, used, revoked)",
    response: z.object({ invitations: z.array(Invitation) }),
    handle: async ({ db }) => ({ invitations: await listInvitations(db) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/invitations",
    minRole: "admin",
    status: 201,
    summary: "Invite a person: a single-use link valid 7 days",
    description: "A newer invitation for the same e-mail replaces the older one.",
    body: CreateInvitationInput,
    response: Link.extend({ id: z.string() }),
    errors: { 409: "A user with that e-mail exists" },
    handle: (ctx) => createInvitation(ctx.db, by(ctx), ctx.body, ctx.linkBase),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/invitations/{id}",
    minRole: "admin",
    summary: "Revoke an invitation or reset link that was not used",
    response: Ok,
    errors: { 409: "It was already used or revoked" },
    async handle(ctx) {
      await revokeInvitation(ctx.db, by(ctx), ctx.params.id);
      return ok;
    },
  }),
];

const TEAM_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/teams",
    minRole: "viewer",
    summary: "Teams: admins every team, others their own",
    response: z.object({ teams: z.array(TeamListItem) }),
    handle: async ({ db, actor }) => ({ teams: await listTeams(db, actor) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/teams",
    minRole: "admin",
    status: 201,
    summary: "Create a team",
    body: CreateTeamInput.extend({
      name: CreateTeamInput.shape.name.describe("1 to 64 letters, digits, spaces, - _ . ; unique in any case"),
    }),
    response: Team,
    responseDescription: "The team",
    errors: { 409: "There is already a team of that name" },
    async handle(ctx) {
      const { id } = await createTeam(ctx.db, by(ctx), ctx.body.name);
      return getTeam(ctx.db, ctx.actor, id);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/teams/{id}",
    names: { id: "team" },
    minRole: "viewer",
    summary: "A team with its members and recent runs (members and admins)",
    response: Team,
    handle: ({ db, actor, params }) => getTeam(db, actor, params.id),
  }),
  // name: admins and the team's admins; archived: admins.
  defineRoute({
    method: "PATCH",
    path: "/api/v1/teams/{id}",
    names: { id: "team" },
    minRole: "viewer",
    summary: "Rename a team (admins and the team's admins) or archive it (admins)",
    description: "An archived team takes no new members; its runs and spend stay.",
    body: UpdateTeamInput,
    response: Team,
    errors: { 409: "There is already a team of that name" },
    async handle(ctx) {
      const { body, params, actor, db } = ctx;
      if (body.name === undefined && body.archived === undefined) throw new DomainError("INVALID_INPUT", "Send name, archived or both");
      // Refused before anything changes: archiving is for admins, even when the name may be changed.
      if (body.archived !== undefined && actor.role !== "admin") {
        await getTeam(db, actor, params.id); // NOT_FOUND for a team the caller is not in
        throw new DomainError("FORBIDDEN", `Archiving teams needs the admin role; you are ${actor.role}`);
      }
      if (body.name !== undefined) await renameTeam(db, by(ctx), params.id, body.name);
      if (body.archived !== undefined) await setTeamArchived(db, by(ctx), params.id, body.archived);
      return getTeam(db, actor, params.id);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/teams/{id}/members",
    names: { id: "team" },
    minRole: "viewer",
    summary: "A team's members with their roles (members and admins)",
    response: z.object({ members: z.array(Member) }),
    handle: async ({ db, actor, params }) => ({ members: (await getTeam(db, actor, params.id)).members }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/teams/{id}/members",
    names: { id: "team" },
    minRole: "viewer",
    status: 201,
    summary: "Add an existing person to a team (admins and the team's admins)",
    body: AddMemberInput.omit({ teamId: true }),
    response: Member,
    responseDescription: "The member",
    errors: { 409: "Already a member, or the team is archived" },
    async handle(ctx) {
      const input = AddMemberInput.parse({ ...ctx.body, teamId: ctx.params.id });
      await addTeamMember(ctx.db, by(ctx), input);
      const member = (await getTeam(ctx.db, ctx.actor, ctx.params.id)).members.find((m) => m.email === input.email.trim().toLowerCase());
      if (!member) throw new DomainError("NOT_FOUND", "The member was removed as they were added");
      return member;
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/teams/{id}/members/{userId}",
    names: { id: "team", userId: "user" },
    minRole: "viewer",
    summary: "Change a member's role in the team (admins and the team's admins)",
    body: MemberRoleInput.pick({ role: true }),
    response: Ok,
    async handle(ctx) {
      const { body, params } = ctx;
      await setTeamMemberRole(ctx.db, by(ctx), MemberRoleInput.parse({ role: body.role, teamId: params.id, userId: params.userId }));
      return ok;
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/teams/{id}/members/{userId}",
    names: { id: "team", userId: "user" },
    minRole: "viewer",
    summary: "Remove a member from the team (admins and the team's admins)",
    response: Ok,
    async handle(ctx) {
      await removeTeamMember(ctx.db, by(ctx), { teamId: ctx.params.id, userId: ctx.params.userId });
      return ok;
    },
  }),
];

export const PEOPLE_ROUTES: Route[] = [...USER_ROUTES, ...INVITATION_ROUTES, ...TEAM_ROUTES];
