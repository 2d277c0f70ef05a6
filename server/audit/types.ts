// The audit log's shapes: every human-request transition and every policy
// change or decision writes a row (docs/human-requests-and-policy.md#audit).
import { z } from "zod";

/** What a caller records; `id` is set by the database. */
export interface AuditInput {
  /** When it happened; default now. The log is ordered by id (the order rows were written). */
  at?: Date;
  /** e.g. policy.decision, policy.updated, request.transition, link.refused */
  kind: string;
  /** A user id, "system" or "agent:<name>". */
  actorId?: string | null;
  actorName?: string | null;
  /** The user id of the person the actor acted for (a run's launcher). */
  onBehalfOf?: string | null;
  /** inbox | link | api | cli | mcp | scheduler | kernel | admin */
  channel?: string | null;
  runId?: string | null;
  /** The team it concerns; default the run's team when there is a run. */
  teamId?: string | null;
  requestId?: string | null;
  /** What it was about: a tool name, a policy version ("v3"). */
  subject?: string | null;
  fromState?: string | null;
  toState?: string | null;
  /** Anything else, stored as JSON. */
  detail?: Record<string, unknown>;
}

export interface AuditRecord {
  id: number;
  at: Date;
  kind: string;
  actorId: string | null;
  actorName: string | null;
  onBehalfOf: string | null;
  channel: string | null;
  runId: string | null;
  teamId: string | null;
  requestId: string | null;
  subject: string | null;
  fromState: string | null;
  toState: string | null;
  detail: Record<string, unknown>;
}

const optionalText = z.string().trim().max(200).optional();

export const AuditFilter = z.strictObject({
  /** A kind or the start of one: "request" finds request.transition, ...; "user.*" every user.… kind. */
  kind: optionalText,
  runId: optionalText,
  /** A team's id: the rows of its runs and of admins' changes to it. */
  teamId: optionalText,
  requestId: optionalText,
  actorId: optionalText,
  channel: optionalText,
  from: z.date().optional(),
  to: z.date().optional(),
  /** Matches the subject, the actor's name and the detail's text. */
  q: optionalText,
  /** Leave out routine rows: policy decisions that allowed a call (one per tool call). */
  hideRoutine: z.boolean().optional(),
  /** The id of the last entry of the previous page. */
  cursor: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(500).default(50),
});
export type AuditFilter = z.input<typeof AuditFilter>;

/** A person named in a row (its actor or whom it acted for), as the page shows them. */
export interface AuditPerson {
  name: string;
  email: string;
}

export interface AuditPage {
  entries: AuditRecord[];
  /** The people the page's actorId and onBehalfOf name, by user id (ids that are no user are left out). */
  people?: Record<string, AuditPerson>;
  /** The names of the page's teams, by id. */
  teams?: Record<string, string>;
  /** Pass as `cursor` for the next (older) page; null when there is none. */
  nextCursor: number | null;
}

export const AUDIT_EXPORT_FORMATS = ["csv", "json"] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];
