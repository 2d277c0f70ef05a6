// Which run events the outside world hears about (docs/channels.md#the-outbox):
// the outbox rows both run stores write in the same transaction as the events,
// so a process that dies between writing an event and sending it still sends
// it after a restart. The channels (server/channels) fan each row out.
import crypto from "node:crypto";
import type { RunEventRecord } from "./events";

/** Everything a webhook endpoint can subscribe to. */
export const OUTBOX_TYPES = [
  "run.state_changed",
  "human_request.opened",
  "human_request.decided",
  "human_request.expired",
  "human_request.escalated",
  "improvement.opened",
  "improvement.merged",
  "budget.warning",
  "budget.exceeded",
] as const;
export type OutboxType = (typeof OUTBOX_TYPES)[number];

/** What each type means, in a person's words (Settings › Channels, the docs, OpenAPI). */
export const OUTBOX_TYPE_LABELS: Record<OutboxType, string> = {
  "run.state_changed": "A run changed state (queued, running, waiting for a person, succeeded, failed, canceled)",
  "human_request.opened": "A run asks a person (approve, choose, provide, veto)",
  "human_request.decided": "Someone answered a request, or it was canceled",
  "human_request.expired": "Nobody answered a request before its deadline",
  "human_request.escalated": "A request went to the next level of approvers",
  "improvement.opened": "A proposed change to an agent's tools is ready for review",
  "improvement.merged": "A reviewed change was merged",
  "budget.warning": "A run, or a team this month, has spent 80% of its budget (once each)",
  "budget.exceeded": "A run stopped because its own or its team's budget ran out",
};

export interface OutboxRow {
  id: string;
  type: OutboxType;
  runId: string;
  seq: number;
  /** JSON of the payload's "data". */
  data: string;
  createdAt: Date;
}

const BUDGET_CODES = new Set(["RUN_BUDGET_EXCEEDED", "TEAM_BUDGET_EXCEEDED"]);

/** A new message id: the `webhook-id` every delivery of the message carries, retries and resends included. */
export function newMessageId(): string {
  return `msg_${crypto.randomBytes(16).toString("base64url")}`;
}

/** The outbox rows for events just written (none for most events). */
export function outboxRowsFor(events: RunEventRecord[]): OutboxRow[] {
  const rows: OutboxRow[] = [];
  for (const e of events) {
    for (const [type, data] of reportsOf(e)) {
      rows.push({
        id: newMessageId(),
        type,
        runId: e.runId,
        seq: e.seq,
        data: JSON.stringify({ runId: e.runId, seq: e.seq, ...data }),
        createdAt: e.createdAt,
      });
    }
  }
  return rows;
}

function reportsOf(e: RunEventRecord): Array<[OutboxType, Record<string, unknown>]> {
  const p = e.payload as Record<string, unknown>;
  switch (e.type) {
    case "run.state": {
      const out: Array<[OutboxType, Record<string, unknown>]> = [["run.state_changed", pick(p, ["from", "to", "reason", "error"])]];
      const error = p.error as { code?: string; message?: string } | undefined;
      if (p.to === "failed" && error?.code && BUDGET_CODES.has(error.code)) {
        out.push(["budget.exceeded", { code: error.code, message: error.message }]);
      }
      return out;
    }
    case "human.requested":
      return [["human_request.opened", pick(p, ["requestId", "kind", "title", "requiredRole", "expiresAt", "tool"])]];
    case "human.decided":
      return [
        [
          p.state === "EXPIRED" || p.decision === "expired" ? "human_request.expired" : "human_request.decided",
          pick(p, ["requestId", "kind", "state", "decision", "by", "byName", "channel", "comment", "optionId"]),
        ],
      ];
    case "human.escalated":
      return [["human_request.escalated", pick(p, ["requestId", "level", "expiresAt"])]];
    case "change.state":
      if (p.to === "awaiting_review") return [["improvement.opened", pick(p, ["changeId", "title", "from", "to"])]];
      if (p.to === "merged") return [["improvement.merged", pick(p, ["changeId", "title", "from", "to"])]];
      return [];
    default:
      return [];
  }
}

function pick(p: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (p[k] !== undefined) out[k] = p[k];
  return out;
}
