// The run waits for a person
// (docs/human-requests-and-policy.md#reference-human-requests):
// human.requested, human.decided and human.escalated in the timeline.
import Link from "next/link";
import { HandIcon } from "@/components/icons";
import { InlineCode } from "@/components/inbox/inline-code";
import { formatDateTime } from "@/lib/format";
import type { EventOf, RunEventPayloads } from "@/lib/run-events";
import { EventRow } from "./event-row";

const KIND_WORDS: Record<string, string> = { approve: "approval", choose: "choice", provide: "answer", veto: "veto window" };

const CHANNEL_WORDS: Record<string, string> = {
  inbox: "the inbox",
  link: "a signed link",
  api: "the API",
  cli: "the CLI",
  mcp: "MCP",
  slack: "Slack",
  email: "a mailed link",
  scheduler: "the scheduler",
  kernel: "Rein",
};

export function inboxHref(requestId: string): string {
  return `/inbox?id=${encodeURIComponent(requestId)}`;
}

/** "Admin approved", "Nobody vetoed in time: it went ahead", … */
export function decidedText(p: RunEventPayloads["human.decided"] & { reason?: string }): string {
  const who = p.by === "system" ? "Rein" : p.byName || "A person";
  switch (p.state) {
    case "APPROVED":
      if (p.decision === "expired") return "Nobody vetoed in time: it went ahead";
      if (p.kind === "veto") return `${who} approved it early`;
      if (p.kind === "choose") return `${who} chose “${p.optionId ?? "?"}”`;
      if (p.kind === "provide") return `${who} provided the answer`;
      return `${who} approved${p.edited ? " with edited arguments" : ""}`;
    case "REJECTED":
      return p.kind === "veto" ? `${who} vetoed` : p.kind === "approve" ? `${who} rejected` : `${who} declined to answer`;
    case "EXPIRED":
      return "Nobody answered in time: the request expired";
    case "CANCELED":
      return `The request was canceled${p.reason ? ` (${p.reason})` : ""}`;
    default:
      return `${who}: ${p.state.toLowerCase()}`;
  }
}

export function HumanRequestedItem({ event, open }: { event: EventOf<"human.requested">; open: boolean }) {
  const p = event.payload;
  return (
    <EventRow event={event} kind={open ? "human-waiting" : "human"} icon={<HandIcon />}>
      <div
        className={open ? "handoff-banner" : "ev-card"}
        style={{ flexDirection: "column", alignItems: "stretch", gap: 4 }}
        data-testid="human-requested"
        data-request-id={p.requestId}
        data-open={open}
      >
        <div className="ev-title">
          <strong>{open ? "Waiting for a person:" : "Asked a person:"}</strong>
          <span data-testid="human-requested-title">
            <InlineCode text={p.title} />
          </span>
        </div>
        <div className="row small" style={{ flexWrap: "wrap", gap: "4px 12px" }}>
          <span className="ev-sub" style={{ color: "inherit", opacity: 0.85 }}>
            {KIND_WORDS[p.kind] ?? p.kind} · needs the {p.requiredRole} role
            {open && (
              <>
                {" "}
                · {p.kind === "veto" ? "goes ahead" : "escalates"} {formatDateTime(p.expiresAt)}
              </>
            )}
          </span>
          <Link href={inboxHref(p.requestId)} data-testid="open-in-inbox">
            {open ? "Open in inbox →" : "View in inbox"}
          </Link>
        </div>
      </div>
    </EventRow>
  );
}

export function HumanDecidedItem({ event }: { event: EventOf<"human.decided"> }) {
  const p = event.payload as RunEventPayloads["human.decided"] & { reason?: string };
  const good = p.state === "APPROVED";
  return (
    <EventRow event={event} kind={good ? "result-ok" : "result-error"} icon={good ? "✓" : "✕"}>
      <div className="ev-card" data-testid="human-decided" data-state={p.state} data-request-id={p.requestId}>
        <div className="ev-title">
          <strong data-testid="human-decided-text">{decidedText(p)}</strong>
          {p.channel && p.by !== "system" && <span className="ev-sub">via {CHANNEL_WORDS[p.channel] ?? p.channel}</span>}
          <Link href={inboxHref(p.requestId)} className="small">
            details
          </Link>
        </div>
        {p.comment && (
          <blockquote
            data-testid="human-decided-comment"
            style={{
              margin: "6px 0 0",
              padding: "4px 10px",
              borderLeft: "3px solid var(--border-strong)",
              whiteSpace: "pre-wrap",
              color: "var(--text)",
            }}
          >
            {p.comment}
          </blockquote>
        )}
      </div>
    </EventRow>
  );
}

export function HumanEscalatedItem({ event }: { event: EventOf<"human.escalated"> }) {
  const p = event.payload;
  return (
    <EventRow event={event} kind="human" icon="⇡">
      <div className="resume-banner" data-testid="human-escalated">
        <span>
          <strong>Escalated to level {p.level} approvers</strong>: nobody answered in time. Next deadline {formatDateTime(p.expiresAt)}.{" "}
          <Link href={inboxHref(p.requestId)}>Open in inbox</Link>
        </span>
      </div>
    </EventRow>
  );
}
