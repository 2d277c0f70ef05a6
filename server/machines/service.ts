// Settings › Machines (docs/desktops-and-tiers.md#t3-remote-machines): admins
// register remote machines, confirm their host key after a first contact,
// test them and archive them; everyone sees the machines of their teams (and
// those for every team), never a private key. Every admin action is in the
// audit log, without a secret.
import crypto from "node:crypto";
import type { z } from "zod";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { recordAudit } from "@/server/audit";
import type { Acting, Actor } from "@/server/identity";
import type { SecretKeyring } from "@/server/secrets";
import { RegisterMachineInput, UpdateMachinePatch, addressOf, type Confinement, type MachineState } from "@/lib/machines";
import { makeMachineKeyPair, openPrivateKey, sameFingerprint, withComment } from "./keys";
import { connectedWords, confinementOf, probeMachine, type MachineFacts } from "./probe";
import { MachineConnectError, connectMachine, fetchHostKey, type MachineConnection, type MachineTarget } from "./ssh";

export interface MachineDeps {
  db: Db;
  keyring: SecretKeyring;
  /** How long connecting may take (default 10 s). */
  timeoutMs?: number;
}

export interface MachineView {
  id: string;
  name: string;
  host: string;
  port: number;
  user: string;
  labels: string[];
  concurrency: number;
  /** null: every team may use it. */
  team: { id: string; name: string } | null;
  state: MachineState;
  /** The pinned host key's fingerprint; null until an admin confirmed one. */
  hostKeyFingerprint: string | null;
  /** What the machine's authorized_keys gets. */
  publicKey: string;
  confinement: Confinement;
  facts: MachineFacts | null;
  lastSeenAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

export interface HostKeyContact {
  /** The fingerprint the machine presents now. */
  fingerprint: string;
  /** Whether that is the pinned key. */
  pinned: boolean;
  words: string;
}

export interface MachineTestResult {
  ok: boolean;
  words: string;
  machine: MachineView;
}

/** Never the private key or the host key's full form. */
const SELECT = {
  id: true,
  name: true,
  host: true,
  port: true,
  user: true,
  labels: true,
  concurrency: true,
  hostKeyFingerprint: true,
  publicKey: true,
  confinement: true,
  facts: true,
  lastSeenAt: true,
  lastError: true,
  createdAt: true,
  team: { select: { id: true, name: true } },
} as const;

type Row = {
  id: string;
  name: string;
  host: string;
  port: number;
  user: string;
  labels: string;
  concurrency: number;
  hostKeyFingerprint: string | null;
  publicKey: string;
  confinement: string;
  facts: string | null;
  lastSeenAt: Date | null;
  lastError: string | null;
  createdAt: Date;
  team: { id: string; name: string } | null;
};

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function present(row: Row): MachineView {
  const { labels, facts, confinement, ...rest } = row;
  return {
    ...rest,
    labels: parseJson<string[]>(labels, []),
    facts: parseJson<MachineFacts | null>(facts, null),
    confinement: confinement === "bubblewrap" || confinement === "user" ? confinement : "unknown",
    state: !row.hostKeyFingerprint ? "not_confirmed" : row.lastError ? "unreachable" : "ready",
  };
}

function requireAdmin(actor: Actor) {
  if (actor.role !== "admin") throw new DomainError("FORBIDDEN", `Machines are managed by admins; you are ${actor.role}`);
}

const nameOf = (actor: Actor) => actor.name || actor.email;

function audit(db: Pick<Db, "auditEntry">, by: Acting, kind: string, m: { id: string; name: string; teamId: string | null }, detail = {}) {
  return recordAudit(db, {
    kind,
    actorId: by.actor.userId,
    actorName: nameOf(by.actor),
    channel: by.channel,
    subject: m.name,
    teamId: m.teamId,
    detail: { machineId: m.id, ...detail },
  });
}

/** Machines the actor may see: every one for admins, else those of their teams and those for every team. */
function visibleTo(actor: Actor) {
  return actor.role === "admin" ? { archivedAt: null } : { archivedAt: null, OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] };
}

async function checkTeam(db: Db, teamId: string | null) {
  if (teamId === null) return;
  const team = await db.team.findUnique({ where: { id: teamId }, select: { archivedAt: true, name: true } });
  if (!team) throw new DomainError("NOT_FOUND", "No such team");
  if (team.archivedAt) throw new DomainError("CONFLICT", `The team ${team.name} is archived`);
}

/** An active machine's row with what connecting needs; NOT_FOUND for an unknown or archived one. */
async function machineRow(db: Db, id: string) {
  const row = await db.machine.findFirst({
    where: { id, archivedAt: null },
    select: { ...SELECT, teamId: true, hostKey: true, privateKeySealed: true },
  });
  if (!row) throw new DomainError("NOT_FOUND", "No such machine");
  return row;
}

const targetOf = (m: { name: string; host: string; port: number; user: string }): MachineTarget => ({
  name: m.name,
  host: m.host,
  port: m.port,
  user: m.user,
});

export async function listMachines(db: Db, actor: Actor): Promise<MachineView[]> {
  const rows = await db.machine.findMany({
    where: visibleTo(actor),
    select: SELECT,
    orderBy: [{ name: "asc" }, { id: "asc" }],
    take: 1000,
  });
  return rows.map(present);
}

export async function getMachine(db: Db, actor: Actor, id: string): Promise<MachineView> {
  const row = await db.machine.findFirst({ where: { id, ...visibleTo(actor) }, select: SELECT });
  if (!row) throw new DomainError("NOT_FOUND", "No such machine");
  return present(row);
}

export async function registerMachine(deps: MachineDeps, by: Acting, raw: z.input<typeof RegisterMachineInput>): Promise<MachineView> {
  requireAdmin(by.actor);
  const input = RegisterMachineInput.parse(raw);
  await checkTeam(deps.db, input.teamId);
  const id = crypto.randomUUID();
  const keys = makeMachineKeyPair(deps.keyring, id, input.name);
  return deps.db.$transaction(async (tx) => {
    const row = await tx.machine.create({
      data: {
        id,
        teamId: input.teamId,
        name: input.name,
        host: input.host,
        port: input.port,
        user: input.user,
        labels: JSON.stringify([...new Set(input.labels)]),
        concurrency: input.concurrency,
        publicKey: keys.publicKey,
        privateKeySealed: keys.privateKeySealed,
        createdById: by.actor.userId,
      },
      select: SELECT,
    });
    await audit(
      tx,
      by,
      "machine.registered",
      { id, name: row.name, teamId: input.teamId },
      {
        address: addressOf(row),
        user: row.user,
        labels: input.labels,
        concurrency: row.concurrency,
      },
    );
    return present(row);
  });
}

/** Changes a machine; a new address, port or user unpins its host key (the next contact is a first contact). */
export async function updateMachine(
  deps: MachineDeps,
  by: Acting,
  id: string,
  rawPatch: z.input<typeof UpdateMachinePatch>,
): Promise<MachineView> {
  requireAdmin(by.actor);
  const patch = UpdateMachinePatch.parse(rawPatch);
  const before = await machineRow(deps.db, id);
  if (patch.teamId !== undefined) await checkTeam(deps.db, patch.teamId);
  const moved =
    (patch.host !== undefined && patch.host !== before.host) ||
    (patch.port !== undefined && patch.port !== before.port) ||
    (patch.user !== undefined && patch.user !== before.user);
  return deps.db.$transaction(async (tx) => {
    const row = await tx.machine.update({
      where: { id },
      data: {
        ...(patch.name !== undefined ? { name: patch.name, publicKey: withComment(before.publicKey, patch.name) } : {}),
        ...(patch.host !== undefined ? { host: patch.host } : {}),
        ...(patch.port !== undefined ? { port: patch.port } : {}),
        ...(patch.user !== undefined ? { user: patch.user } : {}),
        ...(patch.labels !== undefined ? { labels: JSON.stringify([...new Set(patch.labels)]) } : {}),
        ...(patch.concurrency !== undefined ? { concurrency: patch.concurrency } : {}),
        ...(patch.teamId !== undefined ? { teamId: patch.teamId } : {}),
        ...(moved
          ? { hostKeyFingerprint: null, hostKey: null, confinement: "unknown", facts: null, lastSeenAt: null, lastError: null }
          : {}),
      },
      select: { ...SELECT, teamId: true },
    });
    await audit(tx, by, "machine.updated", row, {
      changed: Object.keys(patch),
      ...(moved ? { address: addressOf(row), user: row.user, unpinned: before.hostKeyFingerprint } : {}),
      ...(patch.teamId !== undefined ? { fromTeamId: before.teamId, toTeamId: patch.teamId } : {}),
    });
    return present(row);
  });
}

/** First contact, or a look at what the machine presents now: its host key fingerprint, without logging in. */
export async function contactMachine(deps: MachineDeps, by: Acting, id: string): Promise<HostKeyContact> {
  requireAdmin(by.actor);
  const row = await machineRow(deps.db, id);
  let fingerprint: string;
  try {
    ({ fingerprint } = await fetchHostKey(targetOf(row), { timeoutMs: deps.timeoutMs }));
  } catch (err) {
    if (err instanceof MachineConnectError) throw new DomainError("UNAVAILABLE", err.message);
    throw err;
  }
  const pinned = !!row.hostKeyFingerprint && sameFingerprint(row.hostKeyFingerprint, fingerprint);
  await audit(deps.db, by, "machine.contacted", row, { address: addressOf(row), presented: fingerprint, pinned });
  const words = pinned
    ? `${row.name} (${addressOf(row)}) presents its pinned host key ${fingerprint}`
    : row.hostKeyFingerprint
      ? `${row.name} (${addressOf(row)}) presents ${fingerprint}, not its pinned key ${row.hostKeyFingerprint}: confirm it only if the machine was reinstalled`
      : `${row.name} (${addressOf(row)}) presents the host key ${fingerprint}; compare it with ssh-keygen -lf on the machine's host key before you confirm it`;
  return { fingerprint, pinned, words };
}

/**
 * Pins the host key the admin confirmed, after contacting the machine again:
 * a fingerprint it does not present now is refused, and nothing is pinned.
 */
export async function confirmHostKey(deps: MachineDeps, by: Acting, id: string, fingerprint: string): Promise<MachineView> {
  requireAdmin(by.actor);
  const row = await machineRow(deps.db, id);
  let presented: { fingerprint: string; hostKey: string };
  try {
    presented = await fetchHostKey(targetOf(row), { timeoutMs: deps.timeoutMs });
  } catch (err) {
    if (err instanceof MachineConnectError) throw new DomainError("UNAVAILABLE", `${err.message}; nothing was pinned`);
    throw err;
  }
  if (!sameFingerprint(presented.fingerprint, fingerprint.trim()))
    throw new DomainError(
      "CONFLICT",
      `${row.name} presents the host key ${presented.fingerprint} now, not ${fingerprint.trim()}: nothing was pinned; connect again and compare with the machine`,
    );
  return deps.db.$transaction(async (tx) => {
    // Only the address that was contacted: a change in between unpinned it.
    const changed = await tx.machine.updateMany({
      where: { id, archivedAt: null, host: row.host, port: row.port, user: row.user },
      data: { hostKeyFingerprint: presented.fingerprint, hostKey: presented.hostKey, lastError: null },
    });
    if (changed.count !== 1) throw new DomainError("CONFLICT", `${row.name} changed while its host key was checked: connect again`);
    await audit(tx, by, "machine.host_key_confirmed", row, {
      address: addressOf(row),
      fingerprint: presented.fingerprint,
      previous: row.hostKeyFingerprint,
    });
    return present(await tx.machine.findUniqueOrThrow({ where: { id }, select: SELECT }));
  });
}

/**
 * Connects to a machine with its pinned host key and its own key pair: what
 * runs on T3 will use (docs/desktops-and-tiers.md#t3-remote-machines). The
 * caller closes the connection.
 */
export async function openMachine(deps: MachineDeps, id: string, opts: { signal?: AbortSignal } = {}): Promise<MachineConnection> {
  const row = await machineRow(deps.db, id);
  if (!row.hostKeyFingerprint)
    throw new DomainError(
      "CONFLICT",
      `${row.name}'s host key is not confirmed yet: an admin connects and confirms it in Settings › Machines`,
    );
  return connectMachine(targetOf(row), {
    privateKey: openPrivateKey(deps.keyring, row.id, row.privateKeySealed),
    pinnedFingerprint: row.hostKeyFingerprint,
    timeoutMs: deps.timeoutMs,
    signal: opts.signal,
  });
}

/** The connection test in words (docs/desktops-and-tiers.md#the-connection-test); its outcome is kept on the machine. */
export async function testMachine(deps: MachineDeps, by: Acting, id: string): Promise<MachineTestResult> {
  requireAdmin(by.actor);
  const row = await machineRow(deps.db, id);
  if (!row.hostKeyFingerprint)
    throw new DomainError("CONFLICT", `${row.name}'s host key is not confirmed yet: connect and confirm it first`);
  let ok = false;
  let words: string;
  let data: Record<string, unknown>;
  let conn: MachineConnection | null = null;
  try {
    conn = await openMachine(deps, id);
    const facts = await probeMachine(conn);
    words = connectedWords(row, conn, facts);
    ok = true;
    data = { facts: JSON.stringify(facts), confinement: confinementOf(facts), lastSeenAt: new Date(), lastError: null };
  } catch (err) {
    if (!(err instanceof MachineConnectError) && !(err instanceof Error && err.name === "AbortError")) throw err;
    words = err instanceof MachineConnectError ? err.message : "Connected, but the machine did not answer the test's command within 10 s";
    data = { lastError: words };
  } finally {
    conn?.close();
  }
  return deps.db.$transaction(async (tx) => {
    // Not over a change made meanwhile (a new address or a new pinned key).
    await tx.machine.updateMany({
      where: { id, archivedAt: null, host: row.host, port: row.port, user: row.user, hostKeyFingerprint: row.hostKeyFingerprint },
      data,
    });
    await audit(tx, by, "machine.tested", row, { address: addressOf(row), ok, words });
    return { ok, words, machine: present(await tx.machine.findUniqueOrThrow({ where: { id }, select: SELECT })) };
  });
}

export async function archiveMachine(deps: MachineDeps, by: Acting, id: string): Promise<MachineView> {
  requireAdmin(by.actor);
  return deps.db.$transaction(async (tx) => {
    const changed = await tx.machine.updateMany({ where: { id, archivedAt: null }, data: { archivedAt: new Date() } });
    if (changed.count !== 1) throw new DomainError("NOT_FOUND", "No such machine");
    const row = await tx.machine.findUniqueOrThrow({ where: { id }, select: { ...SELECT, teamId: true } });
    await audit(tx, by, "machine.archived", row, { address: addressOf(row) });
    return present(row);
  });
}
