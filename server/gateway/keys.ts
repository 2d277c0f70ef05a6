// Settings › Gateway keys (docs/gateway.md#team-keys): admins issue, list and
// revoke a team's gateway keys. Admins manage every team's keys; a team's own
// admins manage that team's. A key is shown once, when it is made; only its
// SHA-256 is stored. Every change is in the audit log, without the key.
import crypto from "node:crypto";
import { z } from "zod";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { recordAudit } from "@/server/audit";
import { roleIn, type Actor } from "@/server/identity";
import { MAX_BUDGET_USD } from "@/server/limits";
import { keyWorkflowId } from "@/server/telemetry";
import { KEY_PREFIX } from "./team-keys";
import { tokenDigest } from "./tokens";

/** Characters of a key shown to tell keys apart: the prefix and 6 of its 43 random ones. */
const SHOWN_CHARS = KEY_PREFIX.length + 6;

const Id = z.string().trim().min(1).max(128);

export const CreateGatewayKeyInput = z.object({
  teamId: Id.describe("The team whose budget and spend the key's calls count in"),
  name: z.string().trim().min(1, "A key needs a name").max(100, "A key's name has at most 100 characters"),
  budgetUsd: z
    .number()
    .min(0)
    .max(MAX_BUDGET_USD)
    .nullable()
    .optional()
    .describe("The key's own cap per calendar month (UTC), in USD; none: only the team's budget applies"),
  model: z
    .string()
    .trim()
    .min(1)
    .max(256)
    .regex(/^[\w.:/@-]+$/, "A model is written <provider>/<model id>, scripted/<scenario> or auto")
    .nullable()
    .optional()
    .describe('What the router resolves when a request names no model Rein knows; none: "auto"'),
  expiresInDays: z.number().int().min(1).max(3650).optional().describe("It stops working after this many days; none: never"),
});
export type CreateGatewayKeyInput = z.infer<typeof CreateGatewayKeyInput>;

export const ListGatewayKeysInput = z.object({ teamId: Id.optional().describe("One team's keys; none: every team you manage") });
export const GatewayKeyRef = z.object({ id: Id });

export type GatewayKeyState = "active" | "revoked" | "expired";

export interface GatewayKeyView {
  id: string;
  team: { id: string; name: string };
  name: string;
  prefix: string;
  budgetUsd: number | null;
  model: string | null;
  spentThisMonthUsd: number;
  createdBy: { id: string; name: string } | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  state: GatewayKeyState;
}

export interface CreatedGatewayKey {
  /** Shown this once; only its hash is kept. */
  key: string;
  gatewayKey: GatewayKeyView;
}

/** Who acts, and through which channel, for the audit log. */
export interface KeyActing {
  actor: Actor;
  channel: string;
}

const forbidden = (actor: Actor) =>
  new DomainError("FORBIDDEN", `Gateway keys are managed by an admin of their team; you are ${actor.role}`);

/** The team, when the actor may manage its keys; NOT_FOUND when they may not even see it. */
async function managedTeam(db: Db, actor: Actor, teamId: string) {
  const team = await db.team.findUnique({ where: { id: teamId }, select: { id: true, name: true, archivedAt: true } });
  const role = team ? roleIn(actor, team.id) : null;
  if (!team || role === null) throw new DomainError("NOT_FOUND", "No such team");
  if (role !== "admin") throw forbidden(actor);
  return team;
}

/** The teams whose keys the actor manages: every team for an admin, else those they are an admin of. */
function managedTeamIds(actor: Actor): string[] | null {
  if (actor.role === "admin") return null;
  return actor.teamIds.filter((id) => roleIn(actor, id) === "admin");
}

const stateOf = (k: { revokedAt: Date | null; expiresAt: Date | null }, now: Date): GatewayKeyState =>
  k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt <= now ? "expired" : "active";

const SELECT = {
  id: true,
  name: true,
  prefix: true,
  budgetUsd: true,
  model: true,
  createdById: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
  revokedAt: true,
  team: { select: { id: true, name: true } },
} as const;

type Row = { id: string; createdById: string; team: { id: string; name: string } } & Omit<
  GatewayKeyView,
  "team" | "spentThisMonthUsd" | "createdBy" | "state"
>;

async function present(db: Db, rows: Row[], now = new Date()): Promise<GatewayKeyView[]> {
  if (!rows.length) return [];
  const fromDay = `${now.toISOString().slice(0, 7)}-01`;
  const [spend, people] = await Promise.all([
    db.costRollup.groupBy({
      by: ["workflowId"],
      where: {
        workflowId: { in: rows.map((r) => keyWorkflowId(r.id)) },
        teamId: { in: [...new Set(rows.map((r) => r.team.id))] },
        day: { gte: fromDay },
      },
      _sum: { costUsd: true },
    }),
    db.user.findMany({
      where: { id: { in: [...new Set(rows.map((r) => r.createdById))] } },
      select: { id: true, name: true, email: true },
    }),
  ]);
  const spent = new Map(spend.map((s) => [s.workflowId, s._sum.costUsd ?? 0]));
  const who = new Map(people.map((p) => [p.id, { id: p.id, name: p.name || p.email }]));
  return rows.map(({ createdById, ...r }) => ({
    ...r,
    spentThisMonthUsd: spent.get(keyWorkflowId(r.id)) ?? 0,
    createdBy: who.get(createdById) ?? null,
    state: stateOf(r, now),
  }));
}

export async function listGatewayKeys(db: Db, actor: Actor, input: z.infer<typeof ListGatewayKeysInput> = {}): Promise<GatewayKeyView[]> {
  let where: { teamId: string | { in: string[] } } | Record<string, never>;
  if (input.teamId) {
    await managedTeam(db, actor, input.teamId);
    where = { teamId: input.teamId };
  } else {
    const ids = managedTeamIds(actor);
    if (ids && !ids.length) throw forbidden(actor);
    where = ids ? { teamId: { in: ids } } : {};
  }
  const rows = await db.gatewayKey.findMany({ where, select: SELECT, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 1000 });
  return present(db, rows);
}

export async function createGatewayKey(db: Db, by: KeyActing, input: CreateGatewayKeyInput): Promise<CreatedGatewayKey> {
  const team = await managedTeam(db, by.actor, input.teamId);
  if (team.archivedAt) throw new DomainError("CONFLICT", `The team ${team.name} is archived; it takes no new gateway keys`);
  const key = KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
  const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null;
  const row = await db.$transaction(async (tx) => {
    const made = await tx.gatewayKey.create({
      data: {
        teamId: team.id,
        name: input.name,
        prefix: key.slice(0, SHOWN_CHARS),
        tokenHash: tokenDigest(key),
        budgetUsd: input.budgetUsd ?? null,
        model: input.model ?? null,
        createdById: by.actor.userId,
        expiresAt,
      },
      select: SELECT,
    });
    await recordAudit(tx, {
      kind: "gateway_key.created",
      actorId: by.actor.userId,
      actorName: by.actor.name || by.actor.email,
      channel: by.channel,
      subject: made.name,
      teamId: team.id,
      detail: { keyId: made.id, prefix: made.prefix, budgetUsd: made.budgetUsd, model: made.model, expiresAt: made.expiresAt },
    });
    return made;
  });
  const [view] = await present(db, [row]);
  return { key, gatewayKey: view };
}

/** Revokes a key of a team the actor manages; its next request is refused, in any process. */
export async function revokeGatewayKey(db: Db, by: KeyActing, id: string): Promise<GatewayKeyView> {
  const found = await db.gatewayKey.findUnique({ where: { id }, select: { teamId: true } });
  // Another team's key is as unknown as no key.
  if (!found || roleIn(by.actor, found.teamId) === null) throw new DomainError("NOT_FOUND", "No such gateway key");
  await managedTeam(db, by.actor, found.teamId);
  const row = await db.$transaction(async (tx) => {
    const changed = await tx.gatewayKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (changed.count !== 1) throw new DomainError("NOT_FOUND", "No such active gateway key: it was revoked already");
    const key = await tx.gatewayKey.findUniqueOrThrow({ where: { id }, select: SELECT });
    await recordAudit(tx, {
      kind: "gateway_key.revoked",
      actorId: by.actor.userId,
      actorName: by.actor.name || by.actor.email,
      channel: by.channel,
      subject: key.name,
      teamId: key.team.id,
      detail: { keyId: key.id, prefix: key.prefix },
    });
    return key;
  });
  const [view] = await present(db, [row]);
  return view;
}
