// Pairing (docs/devices.md#pairing): a signed-in person makes a code, shown
// once, good for 10 minutes and one device; the device trades it for its
// token at POST /api/devices/pair. The code's first 4 characters say which
// pairing a guess is for, so a wrong code counts against that pairing, which
// dies after 5; the whole code is compared by its SHA-256 in constant time.
import { z } from "zod";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { recordAudit } from "@/server/audit";
import { roleIn, type Actor } from "@/server/identity";
import { normalizePairingCode, type PairAnswer } from "@/lib/device-protocol";
import type { PairBody } from "./schemas";
import { digest, matchesDigest, newDeviceToken, newPairingCode } from "./tokens";

export const PAIRING_TTL_MS = 10 * 60_000;
export const MAX_OPEN_PAIRINGS = 5;
export const MAX_PAIRING_ATTEMPTS = 5;

export const CreatePairingInput = z.object({
  teamId: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .optional()
    .describe("The team the device is paired for (one you are in); none: no team in particular"),
});
export type CreatePairingInput = z.infer<typeof CreatePairingInput>;

export interface PairingCode {
  /** ABCD-EFGH: shown this once; only its hash is kept. */
  code: string;
  expiresAt: Date;
}

/** Who acts, and through which channel, for the audit log. */
export interface DeviceActing {
  actor: Actor;
  channel: string;
}

const open = (now: Date) => ({ usedAt: null, expiresAt: { gt: now }, attempts: { lt: MAX_PAIRING_ATTEMPTS } });

export async function createPairingCode(db: Db, by: DeviceActing, input: CreatePairingInput, now = new Date()): Promise<PairingCode> {
  if (input.teamId && roleIn(by.actor, input.teamId) === null) throw new DomainError("NOT_FOUND", "No such team, or not one you are in");
  const openCount = await db.devicePairing.count({ where: { userId: by.actor.userId, ...open(now) } });
  if (openCount >= MAX_OPEN_PAIRINGS)
    throw new DomainError(
      "RATE_LIMITED",
      `You have ${MAX_OPEN_PAIRINGS} pairing codes open: pair a device with one of them, or wait up to 10 minutes for one to expire`,
    );
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  for (let attempt = 0; attempt < 8; attempt++) {
    const code = newPairingCode();
    const lookup = code.slice(0, 4);
    // Two open codes never share their first half: a guess counts against one pairing only.
    if (await db.devicePairing.count({ where: { lookup, ...open(now) } })) continue;
    await db.$transaction(async (tx) => {
      await tx.devicePairing.create({
        data: { lookup, codeHash: digest(code), userId: by.actor.userId, teamId: input.teamId ?? null, expiresAt },
        select: { id: true },
      });
      await recordAudit(tx, {
        kind: "device.pairing_created",
        actorId: by.actor.userId,
        actorName: by.actor.name || by.actor.email,
        channel: by.channel,
        subject: "pairing code",
        ...(input.teamId ? { teamId: input.teamId } : {}),
        detail: { expiresAt },
      });
    });
    return { code, expiresAt };
  }
  throw new DomainError("UNAVAILABLE", "Could not make a pairing code that differs from the open ones; try again");
}

const refused = (message: string) => new DomainError("UNAUTHORIZED", message);

/**
 * The device's side: a code for a token. Every refusal is UNAUTHORIZED, in
 * words; a wrong code for a pairing counts against it.
 */
export async function pairDevice(db: Db, body: PairBody, now = new Date()): Promise<PairAnswer> {
  const code = normalizePairingCode(body.code);
  if (!code) throw refused("That is not a pairing code: it has 8 letters and digits, like ABCD-EFGH");
  const pairing = await db.devicePairing.findFirst({
    where: { lookup: code.slice(0, 4), ...open(now) },
    select: { id: true, codeHash: true, userId: true, teamId: true, attempts: true },
  });
  const again = "make a new one in Rein (rein devices pair, or POST /api/v1/devices/pairings)";
  if (!pairing) throw refused(`No such pairing code, or it expired or was used: ${again}`);
  if (!matchesDigest(code, pairing.codeHash)) {
    await db.devicePairing.updateMany({
      where: { id: pairing.id, attempts: { lt: MAX_PAIRING_ATTEMPTS } },
      data: { attempts: { increment: 1 } },
    });
    const left = MAX_PAIRING_ATTEMPTS - pairing.attempts - 1;
    throw refused(
      left > 0 ? "Wrong pairing code: check it and try again" : `Wrong pairing code, too many times: that code no longer works; ${again}`,
    );
  }
  const token = newDeviceToken();
  const device = await db.$transaction(async (tx) => {
    // Single use, even when two devices send the right code at once.
    const taken = await tx.devicePairing.updateMany({ where: { id: pairing.id, ...open(now) }, data: { usedAt: now } });
    if (taken.count !== 1) throw refused(`That pairing code was used a moment ago: ${again}`);
    const made = await tx.device.create({
      data: {
        name: body.name,
        ownerId: pairing.userId,
        teamId: pairing.teamId,
        tokenHash: digest(token),
        capabilities: JSON.stringify(body.capabilities),
        lastSeenAt: now,
      },
      select: { id: true, name: true },
    });
    const owner = await tx.user.findUnique({ where: { id: pairing.userId }, select: { name: true, email: true } });
    await recordAudit(tx, {
      kind: "device.paired",
      actorId: pairing.userId,
      actorName: owner ? owner.name || owner.email : null,
      channel: "device",
      subject: made.name,
      ...(pairing.teamId ? { teamId: pairing.teamId } : {}),
      detail: { deviceId: made.id, os: body.capabilities.os, commands: body.capabilities.commands, confined: body.capabilities.confined },
    });
    return made;
  });
  return { deviceId: device.id, token, name: device.name };
}
