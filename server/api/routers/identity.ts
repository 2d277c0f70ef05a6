import { z } from "zod";
import { MailPreferenceInput, mailPreference, setMailPreference } from "@/server/channels";
import { createApiToken, describeActor, listApiTokens, revokeApiToken } from "@/server/identity";
import { DomainError } from "@/server/errors";
import { router, viewerProcedure } from "../trpc";

const CreateTokenInput = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

export const identityRouter = router({
  /** Who is calling, the teams they are in (admins: every team) with their role in each, and the team New run offers first. */
  me: viewerProcedure.query(({ ctx }) => describeActor(ctx.db, ctx.actor)),
  tokens: viewerProcedure.query(({ ctx }) => listApiTokens(ctx.db, ctx.actor.userId)),
  /**
   * Only a person logged in makes tokens: a token that could make another
   * would outlive its own expiry and revocation (docs/security.md#api-tokens).
   */
  createToken: viewerProcedure.input(CreateTokenInput).mutation(({ ctx, input }) => {
    if (ctx.actor.via !== "session") {
      throw new DomainError(
        "FORBIDDEN",
        "API tokens are made by a person logged in to Rein (Settings › API tokens) or with the CLI on the server, not with another token",
      );
    }
    return createApiToken(ctx.db, { userId: ctx.actor.userId, ...input });
  }),
  revokeToken: viewerProcedure.input(z.object({ id: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    if (!(await revokeApiToken(ctx.db, ctx.actor.userId, input.id))) {
      throw new DomainError("NOT_FOUND", "No such active token");
    }
    return { ok: true as const };
  }),
  /** Which human requests reach me by mail; only my own. */
  mailPreference: viewerProcedure.query(({ ctx }) => mailPreference(ctx.db, ctx.actor)),
  setMailPreference: viewerProcedure.input(MailPreferenceInput).mutation(({ ctx, input }) => setMailPreference(ctx.db, ctx.actor, input)),
});
