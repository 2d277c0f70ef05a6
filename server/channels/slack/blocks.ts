// The Slack message of a human request (docs/channels.md#slack): pure functions from
// the request to Block Kit, so what approvers see is tested without Slack.
// Everything a run or an agent wrote is escaped: it is shown, never parsed.
import type { HumanRequestView, RequestKind } from "@/server/hitl";

/** Room kept under Slack's 3,000 characters per section for the rest of the text. */
export const MAX_DETAIL_CHARS = 2500;
const MAX_TITLE_CHARS = 300;
const MAX_LINE_CHARS = 500;
/** Slack shows at most this many buttons in one row; more options are chosen in Rein. */
export const MAX_OPTION_BUTTONS = 5;
/** Every action id Rein puts on a button starts with this. */
export const ACTION_PREFIX = "rein:";

export type SlackDecision = "approve" | "reject" | "veto" | "choose";

// Block Kit, as far as Rein uses it.
export type TextObject = { type: "mrkdwn" | "plain_text"; text: string; emoji?: boolean };
export interface ButtonElement {
  type: "button";
  text: TextObject;
  action_id: string;
  value?: string;
  url?: string;
  style?: "primary" | "danger";
}
export type SlackBlock =
  | { type: "section"; text: TextObject; fields?: TextObject[] }
  | { type: "context"; elements: TextObject[] }
  | { type: "actions"; block_id?: string; elements: ButtonElement[] };

export interface SlackMessage {
  /** The notification's text (and what screen readers and old clients show). */
  text: string;
  blocks: SlackBlock[];
}

export interface MessageLinks {
  /** Rein's public address, without a trailing slash. */
  publicUrl: string;
  /** A signed resume link for a provide request ("Answer in Rein"). */
  answerUrl?: string;
}

/** Escapes the three characters Slack's mrkdwn gives meaning to. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Cuts to `max` characters, saying so. */
export function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "2026-11-27 12:03 UTC" */
export function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

const KIND_WORDS: Record<RequestKind, string> = {
  approve: "Approval needed",
  choose: "A choice is needed",
  provide: "An answer is needed",
  veto: "Goes ahead unless vetoed",
};

const CHANNEL_NAMES: Record<string, string> = {
  inbox: "the Inbox",
  link: "a signed link",
  api: "the API",
  cli: "the CLI",
  mcp: "MCP",
  slack: "Slack",
  email: "e-mail",
};

/** The action id of a button: the decision, and for options their place. */
export function actionId(decision: SlackDecision, index?: number): string {
  return `${ACTION_PREFIX}${decision}${index === undefined ? "" : `:${index}`}`;
}

/** A clicked button read back, or null when it is not one of Rein's. */
export function parseAction(action: {
  action_id?: unknown;
  value?: unknown;
}): { decision: SlackDecision; requestId: string; optionId?: string } | null {
  if (typeof action.action_id !== "string" || typeof action.value !== "string") return null;
  const m = /^rein:(approve|reject|veto|choose)(?::\d{1,3})?$/.exec(action.action_id);
  if (!m) return null;
  const decision = m[1] as SlackDecision;
  if (decision !== "choose") return action.value ? { decision, requestId: action.value } : null;
  const colon = action.value.indexOf(":");
  if (colon <= 0 || colon === action.value.length - 1) return null;
  return { decision, requestId: action.value.slice(0, colon), optionId: action.value.slice(colon + 1) };
}

function button(text: string, action_id: string, value: string, style?: "primary" | "danger"): ButtonElement {
  return { type: "button", text: { type: "plain_text", text: cap(text, 75), emoji: true }, action_id, value, ...(style ? { style } : {}) };
}

function linkButton(text: string, action_id: string, url: string): ButtonElement {
  return { type: "button", text: { type: "plain_text", text }, action_id, url };
}

function buttonsOf(request: HumanRequestView, links: MessageLinks): ButtonElement[] {
  const inbox = `${links.publicUrl}/inbox`;
  switch (request.kind) {
    case "approve":
      return [button("Approve", actionId("approve"), request.id, "primary"), button("Reject", actionId("reject"), request.id, "danger")];
    case "veto":
      return [button("Veto", actionId("veto"), request.id, "danger")];
    case "choose": {
      const options = request.payload.options ?? [];
      if (options.length > MAX_OPTION_BUTTONS || options.length === 0) return [linkButton("Choose in Rein", "rein-link:choose", inbox)];
      return options.map((o, i) => button(o.label, actionId("choose", i), `${request.id}:${o.id}`));
    }
    case "provide":
      return [linkButton("Answer in Rein", "rein-link:provide", links.answerUrl ?? inbox)];
  }
}

function headline(request: HumanRequestView): string {
  return `*${escapeMrkdwn(cap(request.title, MAX_TITLE_CHARS))}*`;
}

function contextLines(request: HumanRequestView, links: MessageLinks): SlackBlock {
  const run = request.run;
  const who = run
    ? `Agent *${escapeMrkdwn(cap(run.agentName, 100))}*, run: ${escapeMrkdwn(cap(run.goal, MAX_LINE_CHARS))}`
    : "Its run is gone";
  return {
    type: "context",
    elements: [
      {
        type: "mrkdwn",
        text: `${who} · <${links.publicUrl}/runs/${encodeURIComponent(request.runId)}|Open the run> · <${links.publicUrl}/inbox|Inbox>`,
      },
    ],
  };
}

/** The message of a request still waiting: what is asked, by which run, until when, and its buttons. */
export function openMessage(request: HumanRequestView, links: MessageLinks, opts: { escalatedTo?: number } = {}): SlackMessage {
  const kind = KIND_WORDS[request.kind];
  const lead = opts.escalatedTo ? `Escalated to you (level ${opts.escalatedTo}). ` : "";
  const blocks: SlackBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: `${lead}${kind} (needs ${request.requiredRole})\n${headline(request)}` } },
  ];
  if (request.detail.trim())
    blocks.push({ type: "section", text: { type: "mrkdwn", text: escapeMrkdwn(cap(request.detail, MAX_DETAIL_CHARS)) } });
  const options = request.kind === "choose" ? (request.payload.options ?? []) : [];
  if (options.length) {
    const list = options
      .map((o) => `• ${escapeMrkdwn(cap(o.label, 150))}${o.detail ? `: ${escapeMrkdwn(cap(o.detail, 300))}` : ""}`)
      .join("\n");
    blocks.push({ type: "section", text: { type: "mrkdwn", text: cap(list, MAX_DETAIL_CHARS) } });
  }
  blocks.push(contextLines(request, links));
  const deadline =
    request.kind === "veto"
      ? `Goes ahead at ${utcMinute(request.expiresAt)} unless someone vetoes`
      : `Expires ${utcMinute(request.expiresAt)}`;
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: deadline }] });
  blocks.push({ type: "actions", block_id: `rein:${request.id}`, elements: buttonsOf(request, links) });
  return { text: `${lead}${kind}: ${cap(request.title, MAX_TITLE_CHARS)}`, blocks };
}

/** "Approved by Ada via Slack at 2026-11-27 12:03 UTC", from the request's own record. */
export function outcomeLine(request: HumanRequestView): string {
  const word =
    request.state === "APPROVED"
      ? "Approved"
      : request.state === "REJECTED"
        ? request.kind === "veto"
          ? "Vetoed"
          : "Rejected"
        : request.state === "EXPIRED"
          ? "Expired"
          : request.state === "CANCELED"
            ? "Canceled"
            : "Waiting";
  const byPerson = request.decidedBy && request.decidedBy.id !== "system" ? ` by ${request.decidedBy.name}` : "";
  const via = byPerson && request.channel && CHANNEL_NAMES[request.channel] ? ` via ${CHANNEL_NAMES[request.channel]}` : "";
  const when = request.decidedAt ? ` at ${utcMinute(request.decidedAt)}` : "";
  const option = request.decision?.optionId ? request.payload.options?.find((o) => o.id === request.decision!.optionId) : undefined;
  const chose = option ? `: ${cap(option.label, 150)}` : "";
  const why = !byPerson && request.kind === "veto" && request.state === "APPROVED" ? ": nobody vetoed in time" : "";
  return `${word}${byPerson}${via}${when}${chose}${why}`;
}

/** The message once a request is closed: what was asked and how it ended, without buttons. */
export function closedMessage(request: HumanRequestView, links: MessageLinks): SlackMessage {
  const outcome = outcomeLine(request);
  return {
    text: `${outcome}: ${cap(request.title, MAX_TITLE_CHARS)}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${headline(request)}\n${escapeMrkdwn(outcome)}` } },
      contextLines(request, links),
    ],
  };
}
