// The mail about one human request (docs/channels.md#what-approvers-receive).
// Everything taken from the request (title, detail, goal, options, tool) is
// agent-written and hostile: it is escaped in the HTML part, and the subject
// carries no line breaks or control characters, so nothing can add a header.
import type { HumanRequestView, RequestKind } from "@/server/hitl";

export interface RequestMailInput {
  request: Pick<HumanRequestView, "id" | "kind" | "title" | "detail" | "payload" | "expiresAt" | "run">;
  /** 1: may decide; 2: a level-2 approver after nobody answered; 3: on call after level 2 ran out. */
  level: number;
  recipientName: string;
  /** The signed single-use link. */
  link: string;
  /** When the link stops working. */
  linkExpiresAt: Date;
  /** Where a person changes which requests they get by mail. */
  profileUrl: string;
}

export interface RequestMail {
  subject: string;
  text: string;
  html: string;
}

export const KIND_WORDS: Record<RequestKind, string> = { approve: "Approve", choose: "Choose", provide: "Provide", veto: "Veto" };

const ASKED: Record<RequestKind, string> = {
  approve: "A run is waiting for someone to approve or reject this.",
  choose: "A run is waiting for someone to choose one of the options below.",
  provide: "A run is waiting for someone to provide a value.",
  veto: "This goes ahead unless someone vetoes it in time.",
};

const MAX_SUBJECT = 140;
const MAX_DETAIL = 4000;

/** Text fit for a header: control characters (CR and LF included) become spaces, runs of space one. */
export function headerSafe(text: string, max = MAX_SUBJECT): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A date in UTC, to the minute: mail clients show it as written. */
export function formatWhen(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (cut; the whole text is in Rein)` : text;
}

export function requestMailSubject(kind: RequestKind, title: string, level: number): string {
  const tag = level >= 3 ? " (on call)" : level === 2 ? " (escalated)" : "";
  return headerSafe(`[Rein] ${KIND_WORDS[kind] ?? "Answer"}${tag}: ${title}`);
}

function levelNote(level: number): string | null {
  if (level >= 3) return "Nobody answered in time at levels 1 and 2, so this request comes to you as an on-call admin.";
  if (level === 2) return "Nobody answered in time, so this request comes to you as a level-2 approver.";
  return null;
}

export function buildRequestMail(input: RequestMailInput): RequestMail {
  const { request: r, level } = input;
  const options = r.kind === "choose" ? (r.payload.options ?? []) : [];
  const deadline = `${r.kind === "veto" ? "It goes ahead at" : "Answer by"} ${formatWhen(r.expiresAt)}.`;
  const note = levelNote(level);
  const detail = clip(r.detail ?? "", MAX_DETAIL);

  const text: string[] = [
    `Hello ${input.recipientName},`,
    "",
    ASKED[r.kind] ?? "A run is waiting for a person.",
    ...(note ? [note] : []),
    "",
    `Request: ${r.title}`,
  ];
  if (detail) text.push("", ...detail.split(/\r?\n/).map((l) => `  ${l}`));
  if (r.payload.tool) text.push("", `Tool: ${r.payload.tool}`);
  if (options.length) text.push("", "Options:", ...options.map((o) => `  - ${o.label}${o.detail ? `: ${o.detail}` : ""}`));
  if (r.run) text.push("", `Run: ${r.run.agentName}, with the goal "${r.run.goal}"`);
  text.push(
    "",
    deadline,
    "",
    `Answer here (you will be asked to log in; the link works once, until ${formatWhen(input.linkExpiresAt)}):`,
    input.link,
    "",
    "--",
    `You get this mail because of your e-mail choice in Rein. To change which requests reach you by mail, or to stop them, open your profile: ${input.profileUrl}`,
  );

  const e = escapeHtml;
  const p = (s: string) => `<p style="margin:0 0 12px">${s}</p>`;
  const html: string[] = [p(`Hello ${e(input.recipientName)},`), p(e(ASKED[r.kind] ?? "A run is waiting for a person."))];
  if (note) html.push(p(e(note)));
  html.push(`<h2 style="font-size:16px;margin:16px 0 8px">${e(r.title)}</h2>`);
  if (detail)
    html.push(`<pre style="white-space:pre-wrap;font-family:inherit;background:#f4f4f5;padding:8px;border-radius:4px">${e(detail)}</pre>`);
  if (r.payload.tool) html.push(p(`Tool: <code>${e(r.payload.tool)}</code>`));
  if (options.length)
    html.push(
      `<p style="margin:0 0 4px">Options:</p><ul>${options.map((o) => `<li><strong>${e(o.label)}</strong>${o.detail ? ` — ${e(o.detail)}` : ""}</li>`).join("")}</ul>`,
    );
  if (r.run) html.push(p(`Run: ${e(r.run.agentName)}, with the goal “${e(r.run.goal)}”`));
  html.push(
    p(e(deadline)),
    p(
      `<a href="${e(input.link)}" style="display:inline-block;padding:8px 16px;background:#2563eb;color:#fff;border-radius:4px;text-decoration:none">Open the request in Rein</a>`,
    ),
    p(`<small>You will be asked to log in. The link works once, until ${e(formatWhen(input.linkExpiresAt))}.</small>`),
    `<hr><p style="color:#666;font-size:12px">You get this mail because of your e-mail choice in Rein. To change which requests reach you by mail, or to stop them, open <a href="${e(input.profileUrl)}">your profile</a>.</p>`,
  );

  return {
    subject: requestMailSubject(r.kind, r.title, level),
    text: text.join("\n"),
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:14px;line-height:1.5">${html.join("\n")}</body></html>`,
  };
}

/** The test mail an admin sends to themselves from Settings › Channels › E-mail. */
export function buildTestMail(name: string): RequestMail {
  const text = `Hello ${name},\n\nThis is a test mail from Rein. E-mail works: approvers will get a mail with a signed link for each human request.`;
  return { subject: "[Rein] Test mail", text, html: `<p>${escapeHtml(text).replace(/\n/g, "<br>")}</p>` };
}
