// HITLBroker (I6, docs/human-requests-and-policy.md#kinds): the four kinds of
// human request, their six states, and what a decision carries.
import { DomainError, type ErrorCode } from "@/server/errors";
import { z } from "zod";
import { roleAtLeast, roleIn, type Role } from "@/server/identity";

export const REQUEST_KINDS = ["approve", "choose", "provide", "veto"] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export const REQUEST_STATES = ["PENDING", "APPROVED", "REJECTED", "EXPIRED", "ESCALATED", "CANCELED"] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

/** States in which a request still waits for a person. */
export const OPEN_STATES: readonly RequestState[] = ["PENDING", "ESCALATED"];

export const CHANNELS = ["inbox", "link", "api", "cli", "mcp", "a2a", "slack", "email", "scheduler", "kernel"] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * What asked: the policy before a tool call, the agent's ask_human tool,
 * replay after a crash, the doom-loop guard, or a tool's consent rule
 * (entering a compute tier).
 */
/**
 * `promote`: Rein asks whether a trusted runtime tool becomes permanent;
 * `change`: whether a change request an agent wrote merges; `extension`:
 * whether an extension whose tests passed is installed (docs/extensions.md);
 * `memory`: whether a memory an agent saved counts (server/memory).
 */
export type RequestSlot =
  "policy" | "ask_human" | "replay" | "loop" | "consent" | "promote" | "change" | "extension" | "elicitation" | "memory";

/** Requests about what a run produced, not a run waiting: they stay open after their run ends. */
export const OUTLIVES_RUN: readonly RequestSlot[] = ["promote", "change", "extension", "memory"];

/** Requests a run never waits for: an open one does not keep a waiting run from going on. */
export const NEVER_HOLDS_RUN: readonly RequestSlot[] = ["memory"];

export interface RequestOption {
  id: string;
  label: string;
  detail?: string;
}

/** The request's subject, stored as JSON. */
export interface RequestPayload {
  tool?: string;
  args?: unknown;
  /** choose: the options to pick from. */
  options?: RequestOption[];
  /** provide: the JSON schema the value must match. */
  schema?: Record<string, unknown>;
  /** The policy rule that asked, in words. */
  rule?: string;
  /** The tier the call was asked about in (policy questions). */
  tier?: string;
  /** choose on a replay-unsafe call: the person may retry with new arguments. */
  allowEditedArguments?: boolean;
  /**
   * The person on whose behalf the request waits (who launched the run) may
   * not decide it: a change an agent wrote for them needs another approver.
   */
  notByRequester?: boolean;
}

export const DECISIONS = ["approve", "reject", "veto", "choose", "provide"] as const;
export type DecisionKind = (typeof DECISIONS)[number];

export const DecisionInput = z.object({
  decision: z.enum(DECISIONS),
  optionId: z.string().min(1).max(200).optional(),
  value: z.unknown().optional(),
  comment: z.string().max(4000).optional(),
  editedArguments: z.record(z.string(), z.unknown()).optional(),
});
export type DecisionInput = z.infer<typeof DecisionInput>;

export interface Decider {
  id: string;
  name: string;
  /** The person's own role; with teamIds, their role in a request's team is roleIn() of it (docs/people-and-teams.md#roles). */
  role: Role;
  teamIds?: string[];
  teamRoles?: Record<string, Role>;
}

/** The role a decider has for a request of this team: their team role when they carry one, else their own. */
export function deciderRole(decider: Decider, teamId: string | null): Role | null {
  if (!decider.teamIds) return decider.role;
  return roleIn({ role: decider.role, teamIds: decider.teamIds, teamRoles: decider.teamRoles }, teamId);
}

/** Why this decider may not act on a request needing `required` in this team, or null. */
export function roleRefusal(decider: Decider, teamId: string | null, required: Role, doing: string): string | null {
  const role = deciderRole(decider, teamId);
  if (!role) return `${doing} needs the ${required} role in this run's team, a team you are not in`;
  if (roleAtLeast(role, required)) return null;
  return `${doing} needs the ${required} role; you are ${role}${teamId ? " in this run's team" : ""}`;
}

/** Why the person who launched the run may not decide this request (a change request's four eyes), or null. */
export function requesterRefusal(decider: Decider, request: { requestedById: string | null; notByRequester?: boolean }): string | null {
  if (request.requestedById && decider.id === request.requestedById && request.notByRequester)
    return "You launched the run that asks this; another person with the role must decide it";
  return null;
}

/** Why this person may not decide this open request (their role in its team, or its own rule), or null when they may. */
export function decisionRefusal(
  decider: Decider,
  request: Pick<HumanRequestView, "teamId" | "requiredRole" | "requestedBy" | "payload">,
): string | null {
  return (
    roleRefusal(decider, request.teamId, request.requiredRole, "Deciding this request") ??
    requesterRefusal(decider, { requestedById: request.requestedBy?.id ?? null, notByRequester: request.payload.notByRequester })
  );
}

export interface HumanRequestView {
  id: string;
  runId: string;
  nodeId: string;
  slot: RequestSlot;
  kind: RequestKind;
  state: RequestState;
  title: string;
  detail: string;
  payload: RequestPayload;
  requiredRole: Role;
  level: number;
  expiresAt: Date;
  hardExpiresAt: Date;
  createdAt: Date;
  teamId: string | null;
  /** The team's name as it is now (shown only; the team is teamId). */
  teamName: string | null;
  requestedBy: { id: string; name: string } | null;
  decision: DecisionInput | null;
  decidedBy: { id: string; name: string } | null;
  decidedAt: Date | null;
  channel: string | null;
  run: { goal: string; agentName: string; status: string } | null;
}

export type HumanRequestErrorCode = "NOT_FOUND" | "CLOSED" | "FORBIDDEN" | "INVALID_DECISION" | "INVALID_TRANSITION";

const KIND: Record<HumanRequestErrorCode, ErrorCode> = {
  NOT_FOUND: "NOT_FOUND",
  CLOSED: "CLOSED",
  FORBIDDEN: "FORBIDDEN",
  INVALID_DECISION: "INVALID_INPUT",
  INVALID_TRANSITION: "CONFLICT",
};

export class HumanRequestError extends DomainError {
  constructor(
    public readonly reason: HumanRequestErrorCode,
    message: string,
  ) {
    super(KIND[reason], message);
    this.name = "HumanRequestError";
  }
}
