// slack.*: Settings › Channels › Slack (docs/channels.md#slack), for admins: the
// settings (secrets by name only), a connection test, and who is who between
// Slack and Rein. The services check the role, validate and audit.
import { z } from "zod";
import {
  listSlackUsers,
  saveSlackSettings,
  slackSettingsView,
  setSlackMapping,
  syncSlackUsers,
  testSlackConnection,
} from "@/server/channels";
import { adminProcedure, router } from "../trpc";

const SettingsInput = z.record(z.string(), z.unknown());
const MappingInput = z.object({ slackUserId: z.string().max(64), userId: z.string().max(64).nullable() });

export const slackRouter = router({
  /** The settings, and whether the secrets they name exist. */
  settings: adminProcedure.query(({ ctx }) => slackSettingsView(ctx.db)),
  saveSettings: adminProcedure.input(SettingsInput).mutation(({ ctx, input }) => saveSlackSettings(ctx.db, ctx.actor, input)),
  /** Calls Slack's auth.test with the stored bot token; the answer says what went wrong, if anything. */
  testConnection: adminProcedure.mutation(({ ctx }) => testSlackConnection({ db: ctx.db, keyring: ctx.keyring }, ctx.actor)),
  users: adminProcedure.query(({ ctx }) => listSlackUsers(ctx.db, ctx.actor)),
  setMapping: adminProcedure.input(MappingInput).mutation(({ ctx, input }) => setSlackMapping(ctx.db, ctx.actor, input)),
  /** Reads the workspace's members and maps them to Rein users by e-mail, leaving admins' mappings alone. */
  sync: adminProcedure.mutation(({ ctx }) => syncSlackUsers({ db: ctx.db, keyring: ctx.keyring }, ctx.actor)),
});
