// Slack as a channel of the outbox (docs/channels.md#slack): a new request is posted
// to its team's channel, an escalation is sent to each mapped person by direct
// message, and when the request closes every copy becomes its outcome.
// Each copy is a ChannelMessage row, made before it is sent: a message handed
// out twice finds its row and sends nothing twice. A failure is kept on the row
// and logged; it never stops the dispatcher.
import type { Db } from "@/server/db";
import { HumanRequestError, createResumeLink, type Decider, type HitlBroker, type HumanRequestView, type LinkContext } from "@/server/hitl";
import type { OutboxListener, OutboxMessageView } from "../dispatcher";
import { recipientsFor, recordNotified } from "../notify";
import { closedMessage, openMessage, type MessageLinks, type SlackMessage } from "./blocks";
import { describeSlackError, slackClient, type SlackDeps } from "./client";
import { channelForTeam, readSlackSettings } from "./settings";
import type { WebClient } from "@slack/web-api";

/** Who makes the "Answer in Rein" links of provide requests. */
const LINK_MAKER: Decider = { id: "system", name: "Rein", role: "admin" };

export interface SlackChannelDeps extends SlackDeps {
  broker: Pick<HitlBroker, "get">;
  /** Signs the resume links behind "Answer in Rein"; without it the button opens the Inbox. */
  links?: LinkContext;
  /** Rein's public address (REIN_PUBLIC_URL): the run, Inbox and resume links point to it. */
  publicUrl: string;
  log?: { error(msg: string, err?: unknown): void };
}

interface MessageData {
  requestId?: unknown;
  level?: unknown;
}

const CHANNEL = "slack";

export class SlackChannel {
  constructor(private readonly deps: SlackChannelDeps) {}

  /** The dispatcher's listener: takes every outbox message, acts on the human request ones. */
  readonly onMessage: OutboxListener = async (message) => {
    try {
      await this.handle(message);
    } catch (err) {
      this.deps.log?.error(`Slack could not take outbox message ${message.id} (${message.type}): ${describeSlackError(err)}`);
    }
  };

  private async handle(message: OutboxMessageView): Promise<void> {
    if (!message.type.startsWith("human_request.")) return;
    const data = parseData(message.data);
    if (typeof data.requestId !== "string") return;
    if (message.type === "human_request.decided" || message.type === "human_request.expired") return this.closeCopies(data.requestId);
    const settings = await readSlackSettings(this.deps.db);
    if (!settings.enabled) return;
    const request = await this.deps.broker.get(data.requestId);
    if (!request) return;
    if (message.type === "human_request.opened")
      return this.post(request, channelForTeam(settings, request.teamId), () => slackClient(this.deps, settings));
    if (message.type === "human_request.escalated" && (request.state === "PENDING" || request.state === "ESCALATED")) {
      const level = typeof data.level === "number" && data.level >= 2 ? Math.min(3, Math.floor(data.level)) : 2;
      return this.sendDirect(request, level, () => slackClient(this.deps, settings));
    }
  }

  private links(): MessageLinks {
    return { publicUrl: this.deps.publicUrl.replace(/\/+$/, "") };
  }

  /** The message for a request as it stands: open with its buttons, or closed with its outcome. */
  private async messageFor(request: HumanRequestView, escalatedTo?: number): Promise<SlackMessage> {
    const links = this.links();
    if (request.state !== "PENDING" && request.state !== "ESCALATED") return closedMessage(request, links);
    if (request.kind === "provide" && this.deps.links) {
      try {
        const link = await createResumeLink({ ...this.deps.links, baseUrl: links.publicUrl }, request.id, LINK_MAKER, { channel: CHANNEL });
        links.answerUrl = link.url;
      } catch (err) {
        // Without a link the button opens the Inbox: the request is still worth showing.
        if (!(err instanceof HumanRequestError)) this.deps.log?.error(`Slack: no answer link could be made for request ${request.id}`, err);
      }
    }
    return openMessage(request, links, escalatedTo ? { escalatedTo } : {});
  }

  /** Claims the copy's row; false when an earlier hand-out of the message made it. */
  private async claim(requestId: string, target: string): Promise<string | null> {
    try {
      const row = await this.deps.db.channelMessage.create({
        data: { requestId, channel: CHANNEL, target, state: "sending" },
        select: { id: true },
      });
      return row.id;
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") return null;
      throw err;
    }
  }

  private async failed(rowId: string, err: unknown): Promise<string> {
    const error = describeSlackError(err);
    await this.deps.db.channelMessage.update({ where: { id: rowId }, data: { state: "failed", error }, select: { id: true } });
    return error;
  }

  private async post(request: HumanRequestView, target: string | null, client: () => Promise<WebClient>): Promise<void> {
    if (!target) return;
    const rowId = await this.claim(request.id, target);
    if (!rowId) return;
    try {
      const message = await this.messageFor(request);
      const sent = await (
        await client()
      ).chat.postMessage({ channel: target, text: message.text, blocks: message.blocks, unfurl_links: false, unfurl_media: false });
      await this.deps.db.channelMessage.update({
        where: { id: rowId },
        data: { state: "sent", ref: sent.ts ?? null },
        select: { id: true },
      });
    } catch (err) {
      const error = await this.failed(rowId, err);
      this.deps.log?.error(`Slack: request ${request.id} could not be posted to ${target}: ${error}`);
    }
  }

  /** Direct messages to the people told at this level who have a Slack account mapped. */
  private async sendDirect(request: HumanRequestView, level: number, client: () => Promise<WebClient>): Promise<void> {
    const recipients = await recipientsFor(
      this.deps.db,
      {
        ...request,
        requiredRole: request.requiredRole,
        requestedById: request.requestedBy?.id ?? null,
        notByRequester: request.payload.notByRequester,
      },
      level,
    );
    if (recipients.length === 0) return;
    const mapped = await this.deps.db.slackUser.findMany({
      where: { userId: { in: recipients.map((r) => r.userId) } },
      select: { slackUserId: true, userId: true },
    });
    if (mapped.length === 0) return;
    const api = await client();
    const to: string[] = [];
    const failed: Array<{ to: string; error: string }> = [];
    for (const recipient of recipients) {
      const slackUserId = mapped.find((m) => m.userId === recipient.userId)?.slackUserId;
      if (!slackUserId) continue;
      let target: string;
      try {
        const opened = await api.conversations.open({ users: slackUserId });
        if (!opened.channel?.id) throw new Error("Slack opened no conversation");
        target = opened.channel.id;
      } catch (err) {
        failed.push({ to: recipient.name, error: describeSlackError(err) });
        continue;
      }
      const rowId = await this.claim(request.id, target);
      if (!rowId) continue;
      try {
        const message = await this.messageFor(request, level);
        const sent = await api.chat.postMessage({
          channel: target,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          unfurl_media: false,
        });
        await this.deps.db.channelMessage.update({
          where: { id: rowId },
          data: { state: "sent", ref: sent.ts ?? null },
          select: { id: true },
        });
        to.push(recipient.name);
      } catch (err) {
        failed.push({ to: recipient.name, error: await this.failed(rowId, err) });
      }
    }
    if (to.length || failed.length)
      await recordNotified(this.deps.db, request, CHANNEL, { level, to, ...(failed.length ? { failed } : {}) });
    for (const f of failed)
      this.deps.log?.error(`Slack: the level-${level} notice of request ${request.id} did not reach ${f.to}: ${f.error}`);
  }

  /** Every copy of a closed request now says how it ended. */
  private async closeCopies(requestId: string): Promise<void> {
    const copies = await this.deps.db.channelMessage.findMany({
      where: { requestId, channel: CHANNEL, ref: { not: null } },
      select: { id: true, target: true, ref: true },
    });
    if (copies.length === 0) return;
    const request = await this.deps.broker.get(requestId);
    if (!request) return;
    const api = await slackClient(this.deps, await readSlackSettings(this.deps.db));
    const message = closedMessage(request, this.links());
    for (const copy of copies) {
      try {
        await api.chat.update({ channel: copy.target, ts: copy.ref!, text: message.text, blocks: message.blocks });
        await this.deps.db.channelMessage.update({ where: { id: copy.id }, data: { state: "updated", error: null }, select: { id: true } });
      } catch (err) {
        const error = await this.failed(copy.id, err);
        this.deps.log?.error(`Slack: the message of request ${requestId} in ${copy.target} could not be updated: ${error}`);
      }
    }
  }
}

function parseData(data: string): MessageData {
  try {
    const parsed = JSON.parse(data) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as MessageData) : {};
  } catch {
    return {};
  }
}
