// invitations.*: inviting people (admins) and the public invite and reset pages
// (docs/people-and-teams.md#invitations-and-reset-links). inspect and accept
// need no login: the link's token is the authority, it works once, and guessing
// is throttled per address.
import {
  AcceptLinkInput,
  ById,
  CreateInvitationInput,
  LinkToken,
  acceptLink,
  createInvitation,
  inspectLink,
  listInvitations,
  revokeInvitation,
} from "@/server/identity";
import { z } from "zod";
import { acting } from "../acting";
import { adminProcedure, publicProcedure, router } from "../trpc";

export const invitationsRouter = router({
  list: adminProcedure.query(({ ctx }) => listInvitations(ctx.db)),
  /** A single-use link valid 7 days; the URL is shown once. */
  create: adminProcedure
    .input(CreateInvitationInput)
    .mutation(({ ctx, input }) => createInvitation(ctx.db, acting(ctx.actor), input, ctx.linkBase)),
  revoke: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await revokeInvitation(ctx.db, acting(ctx.actor), input.id);
    return { ok: true as const };
  }),
  inspect: publicProcedure
    .input(z.object({ token: LinkToken }))
    .query(({ ctx, input }) => inspectLink(ctx.db, input.token, { address: ctx.clientAddress, throttle: ctx.linkThrottle })),
  accept: publicProcedure
    .input(AcceptLinkInput)
    .mutation(({ ctx, input }) => acceptLink(ctx.db, input, { address: ctx.clientAddress, throttle: ctx.linkThrottle })),
});
