import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createApiToken, listApiTokens, revokeApiToken, roleIn } from "@/server/identity";
import { router, viewerProcedure } from "../trpc";

const CreateTokenInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

export const identityRouter = router({
  /** Who I am: my own role, and my effective role in each of my teams (what every page shows). */
  me: viewerProcedure.query(async ({ ctx }) => {
    const { userId, email, name, role, teamIds } = ctx.actor;
    const [teams, user] = await Promise.all([
      ctx.db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true, archivedAt: true }, orderBy: { name: "asc" } }),
      ctx.db.user.findUnique({ where: { id: userId }, select: { lastTeamId: true } }),
    ]);
    return {
      userId,
      email,
      name,
      role,
      teamIds,
      teams: teams.map((t) => ({ id: t.id, name: t.name, role: roleIn(ctx.actor, t.id) ?? role, archived: t.archivedAt !== null })),
      lastTeamId: user?.lastTeamId ?? null,
    };
  }),
  tokens: viewerProcedure.query(({ ctx }) => listApiTokens(ctx.db, ctx.actor.userId)),
  createToken: viewerProcedure
    .input(CreateTokenInput)
    .mutation(({ ctx, input }) => createApiToken(ctx.db, { userId: ctx.actor.userId, ...input })),
  revokeToken: viewerProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    if (!(await revokeApiToken(ctx.db, ctx.actor.userId, input.id))) {
      throw new TRPCError({ code: "NOT_FOUND", message: "No such active token" });
    }
    return { ok: true as const };
  }),
});
