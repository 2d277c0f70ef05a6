// E-mail for human requests (docs/channels.md#e-mail): every person the
// routing names at a level, and whose own choice allows it, gets one mail
// with their own signed single-use link. A ChannelMessage row per request,
// person and level is written before the mail goes, so an outbox message
// handed out twice sends nothing the second time.
import type { Db } from "@/server/db";
import { createResumeLink, isOpen, type Decider, type HumanRequestView, type LinkContext } from "@/server/hitl";
import type { SecretKeyring } from "@/server/secrets";
import type { OutboxListener, OutboxMessageView } from "../dispatcher";
import { recipientsFor, recordNotified, type Recipient } from "../notify";
import { buildRequestMail } from "./message";
import { readEmailSettings } from "./settings";
import { openMailer, MailerError, type Mailer } from "./transport";
import { wantsMail } from "./preference";

/** Who signs the links Rein mails: the system, which may make a link for any request. */
const SYSTEM_CREATOR: Decider = { id: "system", name: "Rein", role: "admin" };

export interface EmailChannelDeps {
  db: Db;
  /** Opens the SMTP password's secret. */
  keyring?: SecretKeyring;
  /** Signs the links; its baseUrl (the public URL) starts them and the profile link. */
  links: LinkContext;
  /** The request as the Inbox shows it (HitlBroker.get). */
  requests: { get(id: string): Promise<HumanRequestView | null> };
  log?: { error(msg: string, err?: unknown): void };
  timeoutMs?: number;
}

/** The ChannelMessage target of a person at a level: the address, with "#2" or "#3" for escalations. */
export function mailTarget(email: string, level: number): string {
  return level > 1 ? `${email}#${level}` : email;
}

interface Notice {
  requestId: string;
  level: number;
}

/** The request and level a message is about, or null for a message e-mail does not send. */
function noticeOf(m: OutboxMessageView): Notice | null {
  if (m.type !== "human_request.opened" && m.type !== "human_request.escalated") return null;
  let data: { requestId?: unknown; level?: unknown; onCall?: unknown };
  try {
    data = JSON.parse(m.data) as typeof data;
  } catch {
    return null;
  }
  if (typeof data.requestId !== "string") return null;
  if (m.type === "human_request.opened") return { requestId: data.requestId, level: 1 };
  const level = data.onCall === true ? 3 : typeof data.level === "number" ? Math.min(Math.max(Math.trunc(data.level), 2), 3) : 2;
  return { requestId: data.requestId, level };
}

export class EmailChannel {
  constructor(private readonly deps: EmailChannelDeps) {}

  /** The dispatcher's listener: never throws; failures go to the rows, the audit and the log. */
  readonly onMessage: OutboxListener = async (m) => {
    try {
      await this.handle(m);
    } catch (err) {
      this.deps.log?.error(`e-mail could not handle outbox message ${m.id} (${m.type})`, err instanceof Error ? err.message : err);
    }
  };

  private async handle(m: OutboxMessageView): Promise<void> {
    const notice = noticeOf(m);
    if (!notice) return;
    const settings = await readEmailSettings(this.deps.db);
    if (!settings?.enabled) return;
    const request = await this.deps.requests.get(notice.requestId);
    if (!request || !isOpen(request.state)) return;

    const recipients = (
      await recipientsFor(
        this.deps.db,
        { ...request, notByRequester: request.payload.notByRequester, requestedById: request.requestedBy?.id ?? null },
        notice.level,
      )
    ).filter((r) => r.email && wantsMail(r.mailRequests, notice.level));
    const mine: Recipient[] = [];
    for (const r of recipients) if (await this.claim(request.id, mailTarget(r.email, notice.level))) mine.push(r);
    if (mine.length === 0) return;

    const sent: string[] = [];
    const failed: Array<{ to: string; error: string }> = [];
    let mailer: Mailer | null = null;
    let openError: string | null = null;
    try {
      mailer = await openMailer({ db: this.deps.db, keyring: this.deps.keyring, timeoutMs: this.deps.timeoutMs }, settings);
    } catch (err) {
      openError = err instanceof MailerError ? err.message : "The mailer could not be opened";
    }
    try {
      for (const r of mine) {
        const target = mailTarget(r.email, notice.level);
        try {
          if (!mailer) throw new MailerError(openError ?? "The mailer could not be opened");
          const link = await createResumeLink(this.deps.links, request.id, SYSTEM_CREATOR, { channel: "email" });
          const base = (this.deps.links.baseUrl ?? "").replace(/\/+$/, "");
          const mail = buildRequestMail({
            request,
            level: notice.level,
            recipientName: r.name || r.email,
            link: link.url,
            linkExpiresAt: link.expiresAt,
            profileUrl: `${base}/profile`,
          });
          const { messageId } = await mailer.send({ to: r.email, ...mail });
          await this.deps.db.channelMessage.update({
            where: { requestId_channel_target: { requestId: request.id, channel: "email", target } },
            data: { state: "sent", ref: messageId },
          });
          sent.push(r.email);
        } catch (err) {
          const error =
            err instanceof MailerError
              ? err.message
              : err instanceof Error
                ? `The mail could not be made: ${err.message}`
                : "The mail could not be sent";
          await this.deps.db.channelMessage.update({
            where: { requestId_channel_target: { requestId: request.id, channel: "email", target } },
            data: { state: "failed", error },
          });
          failed.push({ to: r.email, error });
        }
      }
    } finally {
      mailer?.close();
    }
    await recordNotified(this.deps.db, request, "email", { level: notice.level, to: sent, ...(failed.length ? { failed } : {}) });
  }

  /** Writes the row that says this mail is ours to send; false when another hand-out already did. */
  private async claim(requestId: string, target: string): Promise<boolean> {
    try {
      await this.deps.db.channelMessage.create({ data: { requestId, channel: "email", target, state: "sending" }, select: { id: true } });
      return true;
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === "P2002") return false;
      throw err;
    }
  }
}
