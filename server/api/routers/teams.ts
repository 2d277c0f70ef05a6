// teams.*: Settings › Teams (docs/people-and-teams.md#teams). Everyone sees the
// teams they belong to (admins every team); admins create, rename and archive
// teams; a team's own admins rename it and manage its members. The service
// checks the caller's role in the team (roleIn), so the gates here are the
// least role.
import {
  AddMemberInput,
  ById,
  CreateTeamInput,
  MemberInput,
  MemberRoleInput,
  RenameTeamInput,
  addTeamMember,
  createTeam,
  getTeam,
  listTeams,
  removeTeamMember,
  renameTeam,
  setTeamArchived,
  setTeamMemberRole,
} from "@/server/identity";
import { acting } from "../acting";
import { adminProcedure, router, viewerProcedure } from "../trpc";

const ok = { ok: true as const };

export const teamsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listTeams(ctx.db, ctx.actor)),
  get: viewerProcedure.input(ById).query(({ ctx, input }) => getTeam(ctx.db, ctx.actor, input.id)),
  create: adminProcedure.input(CreateTeamInput).mutation(({ ctx, input }) => createTeam(ctx.db, acting(ctx.actor), input.name)),
  rename: viewerProcedure.input(RenameTeamInput).mutation(async ({ ctx, input }) => {
    await renameTeam(ctx.db, acting(ctx.actor), input.id, input.name);
    return ok;
  }),
  archive: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await setTeamArchived(ctx.db, acting(ctx.actor), input.id, true);
    return ok;
  }),
  unarchive: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await setTeamArchived(ctx.db, acting(ctx.actor), input.id, false);
    return ok;
  }),
  addMember: viewerProcedure.input(AddMemberInput).mutation(async ({ ctx, input }) => {
    await addTeamMember(ctx.db, acting(ctx.actor), input);
    return ok;
  }),
  setMemberRole: viewerProcedure.input(MemberRoleInput).mutation(async ({ ctx, input }) => {
    await setTeamMemberRole(ctx.db, acting(ctx.actor), input);
    return ok;
  }),
  removeMember: viewerProcedure.input(MemberInput).mutation(async ({ ctx, input }) => {
    await removeTeamMember(ctx.db, acting(ctx.actor), input);
    return ok;
  }),
});
