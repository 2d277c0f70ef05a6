// Settings › Channels › E-mail (docs/channels.md#e-mail): the SMTP server Rein sends
// human requests through. The password lives in a Rein secret; the setting
// holds only that secret's name, so it is never stored here, returned or logged.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ChannelError, parseChannelInput, requireChannelAdmin } from "../errors";

export const EMAIL_SETTING = "channels.email";

export const SMTP_SECURITY = ["tls", "starttls", "none"] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];

/** "Name <address>" or a bare address; one line, no angle brackets or quotes in the name. */
const FROM = /^(?:[^<>"\r\n]{1,100} <[^\s<>@"]+@[^\s<>@"]+>|[^\s<>@"]+@[^\s<>@"]+)$/;
/** A Rein secret's name (server/secrets). */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_.:/-]{0,127}$/;
/** A host name or an IPv4/IPv6 address, no scheme or path. */
const HOST = /^[A-Za-z0-9.:\-[\]]{1,253}$/;

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : typeof v === "string" ? v.trim() : v);

export const EmailSettingsInput = z
  .object({
    enabled: z.boolean(),
    host: z
      .string()
      .trim()
      .min(1, "the SMTP server's host name is required")
      .regex(HOST, "a host name such as smtp.example.com, without http:// or a path"),
    port: z.number().int("a whole number").min(1, "a port from 1 to 65535").max(65535, "a port from 1 to 65535"),
    security: z.enum(SMTP_SECURITY, { message: "tls, starttls or none" }),
    user: z.preprocess(
      blankToUndefined,
      z
        .string()
        .max(200, "at most 200 characters")
        .regex(/^[^\r\n]*$/, "one line")
        .optional(),
    ),
    passwordSecret: z.preprocess(
      blankToUndefined,
      z.string().regex(SECRET_NAME, "the name of a Rein secret (letters, digits and _ . : / -)").optional(),
    ),
    from: z
      .string()
      .trim()
      .min(1, "the sender is required")
      .regex(FROM, 'an address such as "Rein <rein@example.com>" or rein@example.com'),
  })
  .strict();
export type EmailSettings = z.output<typeof EmailSettingsInput>;

/** The saved settings, or null when e-mail was never set up (or the row is unreadable). */
export async function readEmailSettings(db: Db): Promise<EmailSettings | null> {
  const row = await db.setting.findUnique({ where: { key: EMAIL_SETTING }, select: { value: true } });
  if (!row) return null;
  try {
    const parsed = EmailSettingsInput.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Checks and stores the settings (admins); the named password secret must exist. */
export async function saveEmailSettings(db: Db, actor: Actor, input: unknown): Promise<EmailSettings> {
  requireChannelAdmin(actor, "Changing the e-mail settings");
  const settings = parseChannelInput(EmailSettingsInput, input);
  if (settings.passwordSecret) {
    const secret = await db.secret.findUnique({ where: { name: settings.passwordSecret }, select: { id: true } });
    if (!secret) {
      const message = `no secret is named ${settings.passwordSecret}; add it in Settings › Secrets first`;
      throw new ChannelError("INVALID_INPUT", `passwordSecret: ${message}`, [{ field: "passwordSecret", message }]);
    }
  }
  if (settings.passwordSecret && !settings.user) {
    const message = "a password needs a user name to log in with";
    throw new ChannelError("INVALID_INPUT", `user: ${message}`, [{ field: "user", message }]);
  }
  const value = JSON.stringify(settings);
  await db.setting.upsert({
    where: { key: EMAIL_SETTING },
    create: { key: EMAIL_SETTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
  // The setting holds no password, only the secret's name: it is safe to audit whole.
  await recordAudit(db, {
    kind: "channels.email",
    actorId: actor.userId,
    actorName: actor.name,
    channel: "admin",
    subject: "e-mail settings",
    detail: settings,
  });
  return settings;
}
