// Settings › Channels › Slack: whether Slack is on, which Rein secrets hold the
// bot token and the signing secret (by name: the values stay in the secret
// store), and the channel each team's requests go to.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { parseChannelInput, requireChannelAdmin } from "../errors";

export const SLACK_SETTING = "channels.slack";

const SecretName = z
  .string()
  .trim()
  .min(1, "name a Rein secret")
  .max(128)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "a secret's name: letters, digits, _ . -");
const ChannelId = z
  .string()
  .trim()
  .regex(/^[CGD][A-Z0-9]{2,30}$/, "a Slack channel id such as C0123ABCD (Channel details › About)");

export const SlackSettingsInput = z
  .object({
    enabled: z.boolean().default(false),
    botTokenSecret: SecretName.default("SLACK_BOT_TOKEN"),
    signingSecretSecret: SecretName.default("SLACK_SIGNING_SECRET"),
    /** Team id (or "*" for every other team) → the Slack channel its requests are posted to. */
    defaultChannels: z.record(z.string().min(1).max(64), ChannelId).default({}),
  })
  .strict();
export type SlackSettings = z.output<typeof SlackSettingsInput>;

export const DEFAULT_SLACK_SETTINGS: SlackSettings = {
  enabled: false,
  botTokenSecret: "SLACK_BOT_TOKEN",
  signingSecretSecret: "SLACK_SIGNING_SECRET",
  defaultChannels: {},
};

export async function readSlackSettings(db: Db): Promise<SlackSettings> {
  const row = await db.setting.findUnique({ where: { key: SLACK_SETTING }, select: { value: true } });
  if (!row) return DEFAULT_SLACK_SETTINGS;
  try {
    const parsed = SlackSettingsInput.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : DEFAULT_SLACK_SETTINGS;
  } catch {
    return DEFAULT_SLACK_SETTINGS;
  }
}

export async function saveSlackSettings(db: Db, actor: Actor, input: unknown): Promise<SlackSettings> {
  requireChannelAdmin(actor, "Changing the Slack settings");
  const settings = parseChannelInput(SlackSettingsInput, input);
  const value = JSON.stringify(settings);
  await db.setting.upsert({
    where: { key: SLACK_SETTING },
    create: { key: SLACK_SETTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
  // The setting holds secrets' names only, so all of it may be audited.
  await recordAudit(db, {
    kind: "channels.slack",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.via === "session" ? "admin" : "api",
    subject: "Slack settings",
    detail: settings,
  });
  return settings;
}

export interface SlackSettingsView extends SlackSettings {
  /** Whether a secret by each name exists (Settings › Secrets); never their values. */
  stored: { botToken: boolean; signingSecret: boolean };
}

/** The settings as an admin sees them, with whether the two secrets they name exist. */
export async function slackSettingsView(db: Db): Promise<SlackSettingsView> {
  const settings = await readSlackSettings(db);
  const names = new Set(
    (
      await db.secret.findMany({ where: { name: { in: [settings.botTokenSecret, settings.signingSecretSecret] } }, select: { name: true } })
    ).map((s) => s.name),
  );
  return { ...settings, stored: { botToken: names.has(settings.botTokenSecret), signingSecret: names.has(settings.signingSecretSecret) } };
}

/** The Slack channel a team's requests go to: its own, else the one for every team, else none. */
export function channelForTeam(settings: SlackSettings, teamId: string | null): string | null {
  return (teamId ? settings.defaultChannels[teamId] : undefined) ?? settings.defaultChannels["*"] ?? null;
}
