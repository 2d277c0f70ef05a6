// Sending through the configured SMTP server, and what went wrong in words a
// person can act on. The password is read from its Rein secret at send time
// and scrubbed from every message this module returns.
import nodemailer from "nodemailer";
import type { Db } from "@/server/db";
import { getSecretValue, SecretNotFoundError, type SecretKeyring } from "@/server/secrets";
import type { EmailSettings } from "./settings";

/** How long one SMTP step may take before the send counts as failed. */
export const SMTP_TIMEOUT_MS = 15_000;

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}

/** Why the mailer could not even be opened (no keyring, no such secret); the message is fit to show. */
export class MailerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MailerError";
  }
}

export interface MailerDeps {
  db: Db;
  /** Opens the password secret; without it a setting naming a password cannot be used. */
  keyring?: SecretKeyring;
  timeoutMs?: number;
}

/** A mailer for these settings; every failure it reports is a sentence with no secret in it. */
export async function openMailer(deps: MailerDeps, settings: EmailSettings): Promise<Mailer> {
  let password: string | undefined;
  if (settings.passwordSecret) {
    if (!deps.keyring) throw new MailerError("This server cannot open secrets, so the SMTP password cannot be read");
    try {
      password = await getSecretValue(deps.db, deps.keyring, settings.passwordSecret);
    } catch (err) {
      if (err instanceof SecretNotFoundError)
        throw new MailerError(`The password secret ${settings.passwordSecret} does not exist; add it in Settings › Secrets`);
      throw new MailerError(`The password secret ${settings.passwordSecret} could not be opened`);
    }
  }
  const timeout = deps.timeoutMs ?? SMTP_TIMEOUT_MS;
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === "tls",
    requireTLS: settings.security === "starttls",
    ignoreTLS: settings.security === "none",
    auth: settings.user ? { user: settings.user, pass: password ?? "" } : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        return { messageId: info.messageId };
      } catch (err) {
        throw new MailerError(describeSmtpError(err, settings, password));
      }
    },
    close: () => transport.close(),
  };
}

interface SmtpErrorLike {
  code?: string;
  message?: string;
  responseCode?: number;
  response?: string;
}

/** A nodemailer failure as a sentence: connection refused, authentication, TLS, time-outs, refused addresses. */
export function describeSmtpError(
  err: unknown,
  settings: Pick<EmailSettings, "host" | "port" | "user" | "passwordSecret" | "security">,
  password?: string,
): string {
  const e = (err ?? {}) as SmtpErrorLike;
  const raw = scrub(`${e.message ?? String(err)}`, password);
  const where = `${settings.host}:${settings.port}`;
  const code = e.code ?? "";
  if (code === "EAUTH" || e.responseCode === 535) {
    const creds = settings.passwordSecret
      ? `the user ${settings.user ?? "(none)"} and the password in the secret ${settings.passwordSecret}`
      : `the user ${settings.user ?? "(none)"}`;
    return `The SMTP server at ${where} refused to log in (authentication failed). Check ${creds}.`;
  }
  if (/ECONNREFUSED/.test(raw) || code === "ECONNREFUSED")
    return `Nothing accepted a connection at ${where} (connection refused). Check the host and the port.`;
  if (/ENOTFOUND|EAI_AGAIN/.test(raw) || code === "EDNS") return `The host name ${settings.host} could not be found. Check the host.`;
  if (code === "ETLS" || /\b(ssl|tls|certificate|wrong version number|self[- ]signed)\b/i.test(raw)) {
    return `The secure connection to ${where} failed (TLS: ${firstLine(raw)}). Check the security setting: port 465 usually means TLS, 587 STARTTLS, 25 often none.`;
  }
  if (code === "ETIMEDOUT" || /timed? ?out/i.test(raw))
    return `The SMTP server at ${where} did not answer in time. Check the host, the port and the security setting.`;
  if (code === "EENVELOPE") return `The SMTP server refused the sender or the recipient: ${firstLine(raw)}`;
  if (code === "ECONNECTION" || code === "ESOCKET") return `The connection to ${where} failed: ${firstLine(raw)}`;
  return `Sending the mail failed: ${firstLine(raw)}`;
}

function firstLine(s: string): string {
  return s.split(/\r?\n/)[0].slice(0, 300);
}

/** The password never leaves in a message, even if a server echoes it back. */
function scrub(text: string, password?: string): string {
  return password ? text.split(password).join("•••") : text;
}
