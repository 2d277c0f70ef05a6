// Resume links (docs/human-requests-and-policy.md#signed-resume-links): create,
// open (verify without consuming) and decide (consume once, atomically, then
// hand the decision to the broker).
import { DomainError } from "@/server/errors";
import type { Db } from "@/server/db";
import { isRole, roleAtLeast, type Role } from "@/server/identity";
import type { LinkKeyRing } from "./keys";
import { decisionTarget, isOpen } from "./states";
import { TOKEN_MESSAGES, hashResumeToken, signToken, verifyToken, type LinkPayload, type TokenRefusalCode } from "./tokens";
import {
  DecisionInput,
  HumanRequestError,
  type Channel,
  type Decider,
  type RequestKind,
  type RequestPayload,
  type RequestState,
  roleRefusal,
} from "./types";

/** Links live at most this long, and never past the request's hard expiry. */
export const MAX_LINK_LIFETIME_MS = 7 * 86_400_000;

/** The broker's decide, as links use it. */
export interface DecideFn<R = unknown> {
  (requestId: string, decider: Decider, input: DecisionInput, channel: "link"): Promise<R>;
}

export interface LinkContext {
  db: Db;
  keys: LinkKeyRing;
  now?: () => Date;
  /** Prefixed to "/resume?t=…", e.g. the public URL. */
  baseUrl?: string;
}

export interface LinkDeps<R = unknown> extends LinkContext {
  decide: DecideFn<R>;
  /** Checks the answer itself (options, schema, edited arguments) before the link is used up. */
  check?: (requestId: string, decider: Decider, input: DecisionInput) => Promise<void>;
}

export type LinkErrorCode = TokenRefusalCode | "USED" | "CLOSED" | "WRONG_ROLE" | "NOT_FOUND";

/** Why a link was refused; the message is fit to show the person who opened it. */
export class LinkError extends DomainError {
  constructor(
    public readonly reason: LinkErrorCode,
    message: string,
  ) {
    super(
      reason === "WRONG_ROLE"
        ? "FORBIDDEN"
        : reason === "NOT_FOUND"
          ? "NOT_FOUND"
          : reason === "USED" || reason === "CLOSED"
            ? "CONFLICT"
            : "INVALID_INPUT",
      message,
    );
    this.name = "LinkError";
  }
}

export interface CreatedResumeLink {
  url: string;
  token: string;
  expiresAt: Date;
}

export interface ResumeRequestView {
  id: string;
  runId: string;
  nodeId: string;
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
}

export interface OpenedResumeLink {
  requestId: string;
  request: ResumeRequestView;
  /** When the link itself stops working. */
  linkExpiresAt: Date;
}

const REQUEST_SELECT = {
  id: true,
  runId: true,
  nodeId: true,
  checkpointId: true,
  slot: true,
  kind: true,
  state: true,
  title: true,
  detail: true,
  payload: true,
  requiredRole: true,
  teamId: true,
  level: true,
  expiresAt: true,
  hardExpiresAt: true,
  createdAt: true,
} as const;

type RequestRow = {
  id: string;
  runId: string;
  nodeId: string;
  checkpointId: string;
  slot: string;
  kind: string;
  state: string;
  title: string;
  detail: string;
  payload: string;
  requiredRole: string;
  teamId: string | null;
  level: number;
  expiresAt: Date;
  hardExpiresAt: Date;
  createdAt: Date;
};

/** An unknown role in the row is treated as the highest, so a bad row never lowers the bar. */
function requiredRoleOf(row: { requiredRole: string }): Role {
  return isRole(row.requiredRole) ? row.requiredRole : "admin";
}

function viewOf(row: RequestRow): ResumeRequestView {
  let payload: RequestPayload = {};
  try {
    payload = JSON.parse(row.payload) as RequestPayload;
  } catch {
    /* shown without its subject rather than not at all */
  }
  return {
    id: row.id,
    runId: row.runId,
    nodeId: row.nodeId,
    kind: row.kind as RequestKind,
    state: row.state as RequestState,
    title: row.title,
    detail: row.detail,
    payload,
    requiredRole: requiredRoleOf(row),
    level: row.level,
    expiresAt: row.expiresAt,
    hardExpiresAt: row.hardExpiresAt,
    createdAt: row.createdAt,
  };
}

/**
 * Signs a single-use link for an open request. The creator needs at least
 * the request's required role; the link expires at the request's hard expiry
 * or in 7 days, whichever comes first. Throws HumanRequestError.
 */
export async function createResumeLink(
  deps: LinkContext,
  requestId: string,
  creator: Decider,
  opts: { channel?: Channel } = {},
): Promise<CreatedResumeLink> {
  const now = (deps.now ?? (() => new Date()))();
  const row = await deps.db.humanRequest.findUnique({ where: { id: requestId }, select: REQUEST_SELECT });
  if (!row) throw new HumanRequestError("NOT_FOUND", `No human request ${requestId}`);
  if (!isOpen(row.state as RequestState)) {
    throw new HumanRequestError("CLOSED", `Request ${requestId} is ${row.state}; links are only made for open requests`);
  }
  const required = requiredRoleOf(row);
  const refusal = roleRefusal(creator, row.teamId, required, "Making a link for this request");
  if (refusal) throw new HumanRequestError("FORBIDDEN", refusal);
  const expiresMs = Math.min(row.hardExpiresAt.getTime(), now.getTime() + MAX_LINK_LIFETIME_MS);
  const expiresAtSeconds = Math.floor(expiresMs / 1000);
  if (expiresAtSeconds * 1000 <= now.getTime()) {
    throw new HumanRequestError("CLOSED", `Request ${requestId} is past its hard expiry`);
  }
  const { token, payload } = signToken(deps.keys, {
    run_id: row.runId,
    node_id: row.nodeId,
    checkpoint_id: row.checkpointId,
    decision_slot: row.slot,
    request_id: row.id,
    actor_role: required,
    expires_at: expiresAtSeconds,
  });
  const expiresAt = new Date(expiresAtSeconds * 1000);
  const tokenHash = hashResumeToken(token);
  await deps.db.$transaction([
    deps.db.resumeToken.create({
      data: { tokenHash, requestId: row.id, keyId: payload.kid, expiresAt, createdById: creator.id, createdAt: now },
      select: { id: true },
    }),
    deps.db.auditEntry.create({
      data: {
        kind: "link.created",
        at: now,
        actorId: creator.id,
        actorName: creator.name,
        channel: opts.channel ?? "link",
        runId: row.runId,
        requestId: row.id,
        subject: row.kind,
        detail: JSON.stringify({ keyId: payload.kid, expiresAt: expiresAt.toISOString(), requiredRole: required }),
      },
      select: { id: true },
    }),
  ]);
  const base = (deps.baseUrl ?? "").replace(/\/+$/, "");
  return { url: `${base}/resume?t=${token}`, token, expiresAt };
}

interface RefusalSubject {
  runId?: string;
  requestId?: string;
}

/** The audit row of a refusal: who, why, and which request once the signature vouches for it; never the token. */
async function recordRefusal(db: Db, now: Date, user: Decider, code: LinkErrorCode, subject: RefusalSubject): Promise<void> {
  await db.auditEntry.create({
    data: {
      kind: "link.refused",
      at: now,
      actorId: user.id,
      actorName: user.name,
      channel: "link",
      runId: subject.runId ?? null,
      requestId: subject.requestId ?? null,
      detail: JSON.stringify({ code }),
    },
    select: { id: true },
  });
}

interface CheckedLink {
  tokenHash: string;
  payload: LinkPayload;
  row: RequestRow;
}

/** Every check short of consuming; each refusal is audited (without the token) and thrown as LinkError. */
async function checkLink(deps: LinkContext, token: string, user: Decider, now: Date): Promise<CheckedLink> {
  let trusted: RefusalSubject = {};
  const refuse = async (code: LinkErrorCode, message: string): Promise<never> => {
    await recordRefusal(deps.db, now, user, code, trusted);
    throw new LinkError(code, message);
  };

  const verified = verifyToken(deps.keys, token, now);
  if (!verified.ok) return refuse(verified.code, verified.message);
  const payload = verified.payload;
  const tokenHash = hashResumeToken(token);
  const stored = await deps.db.resumeToken.findUnique({
    where: { tokenHash },
    select: { requestId: true, keyId: true, consumedAt: true },
  });
  // A valid signature without a row means the row was removed or the key leaked.
  if (!stored || stored.requestId !== payload.request_id || stored.keyId !== payload.kid) {
    return refuse("FORGED", TOKEN_MESSAGES.FORGED);
  }
  trusted = { runId: payload.run_id, requestId: payload.request_id };
  if (stored.consumedAt) return refuse("USED", "This link has already been used");

  const row = await deps.db.humanRequest.findUnique({ where: { id: payload.request_id }, select: REQUEST_SELECT });
  if (!row) return refuse("NOT_FOUND", "The request this link was made for no longer exists");
  if (
    row.runId !== payload.run_id ||
    row.nodeId !== payload.node_id ||
    row.checkpointId !== payload.checkpoint_id ||
    row.slot !== payload.decision_slot
  ) {
    return refuse("FORGED", TOKEN_MESSAGES.FORGED);
  }
  if (!isOpen(row.state as RequestState)) return refuse("CLOSED", "This request was already decided");

  // The request's role may have been raised since the link was made; the stricter one applies.
  const fromRow = requiredRoleOf(row);
  const required = roleAtLeast(fromRow, payload.actor_role) ? fromRow : payload.actor_role;
  const refusal = roleRefusal(user, row.teamId, required, "Deciding this request");
  if (refusal) return refuse("WRONG_ROLE", refusal);
  return { tokenHash, payload, row };
}

/** Verifies a link for a logged-in user and shows its request; does not consume the link. Throws LinkError. */
export async function openResumeLink(deps: LinkContext, token: string, user: Decider): Promise<OpenedResumeLink> {
  const now = (deps.now ?? (() => new Date()))();
  const { payload, row } = await checkLink(deps, token, user, now);
  return { requestId: row.id, request: viewOf(row), linkExpiresAt: new Date(payload.expires_at * 1000) };
}

/**
 * Decides through a link: verifies it, consumes it with one conditional
 * update (of two concurrent uses only one wins), then calls the broker.
 * A decision the request's kind cannot take is refused before the link is
 * consumed; once consumed, the link stays used even if decide throws.
 */
export async function decideWithLink<R>(deps: LinkDeps<R>, token: string, user: Decider, input: DecisionInput): Promise<R> {
  const now = (deps.now ?? (() => new Date()))();
  const { tokenHash, payload, row } = await checkLink(deps, token, user, now);
  const parsed = DecisionInput.safeParse(input);
  if (!parsed.success) {
    throw new HumanRequestError("INVALID_DECISION", `The decision is not valid: ${parsed.error.issues[0]?.message ?? "bad input"}`);
  }
  decisionTarget(row.kind as RequestKind, parsed.data.decision);
  // A wrong answer (an unknown option, a value off the schema) must not burn the link.
  await deps.check?.(row.id, user, parsed.data);

  const consumed = await deps.db.resumeToken.updateMany({
    where: { tokenHash, consumedAt: null },
    data: { consumedAt: now, consumedById: user.id },
  });
  if (consumed.count !== 1) {
    await recordRefusal(deps.db, now, user, "USED", { runId: payload.run_id, requestId: payload.request_id });
    throw new LinkError("USED", "This link has already been used");
  }
  return deps.decide(row.id, user, parsed.data, "link");
}
