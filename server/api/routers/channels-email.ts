// Settings › Channels › E-mail (admins): the SMTP server, and a test mail to
// the admin's own address. The password is a Rein secret's name, never a value.
import { EmailSettingsInput, readEmailSettings, saveEmailSettings, sendTestMail } from "@/server/channels";
// A ChannelError becomes its tRPC code (and its problems by field) in the shared domain-error middleware.
import { adminProcedure, router } from "../trpc";

export const emailRouter = router({
  /** The saved settings (null: never set up) and where a test mail would go. */
  get: adminProcedure.query(async ({ ctx }) => ({ settings: await readEmailSettings(ctx.db), testTo: ctx.actor.email })),
  save: adminProcedure.input(EmailSettingsInput).mutation(({ ctx, input }) => saveEmailSettings(ctx.db, ctx.actor, input)),
  sendTest: adminProcedure.mutation(({ ctx }) => sendTestMail({ db: ctx.db, keyring: ctx.keyring }, ctx.actor)),
});
