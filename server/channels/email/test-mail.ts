// "Send a test mail" (Settings › Channels › E-mail): the saved settings, one
// mail to the admin's own address, and what went wrong in words.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import type { SecretKeyring } from "@/server/secrets";
import { ChannelError, requireChannelAdmin } from "../errors";
import { buildTestMail } from "./message";
import { readEmailSettings } from "./settings";
import { MailerError, openMailer } from "./transport";

export interface TestMailResult {
  ok: boolean;
  to: string;
  /** What happened, in a sentence (never a secret). */
  message: string;
}

export async function sendTestMail(deps: { db: Db; keyring?: SecretKeyring; timeoutMs?: number }, actor: Actor): Promise<TestMailResult> {
  requireChannelAdmin(actor, "Sending a test mail");
  const settings = await readEmailSettings(deps.db);
  if (!settings) throw new ChannelError("UNAVAILABLE", "E-mail is not set up yet: save the SMTP settings first");
  const to = actor.email;
  try {
    const mailer = await openMailer(deps, settings);
    try {
      await mailer.send({ to, ...buildTestMail(actor.name || to) });
    } finally {
      mailer.close();
    }
  } catch (err) {
    if (err instanceof MailerError) return { ok: false, to, message: err.message };
    throw err;
  }
  const off = settings.enabled ? "" : " E-mail is still switched off: turn it on to mail human requests.";
  return { ok: true, to, message: `A test mail went to ${to}.${off}` };
}
