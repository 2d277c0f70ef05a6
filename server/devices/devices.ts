// tRPC's devices.*, REST v1 and `rein devices` (docs/devices.md#managing-devices):
// a person sees and revokes their own devices, an admin everyone's; only a
// device's owner chooses the teams whose runs it consents to without asking.
import { z } from "zod";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import { recordAudit } from "@/server/audit";
import { roleIn, type Actor } from "@/server/identity";
import type { DeviceCapabilities } from "@/lib/device-protocol";
import type { DeviceActing } from "./pairing";
import { DeviceCapabilitiesSchema } from "./schemas";

const Id = z.string().trim().min(1).max(128);

export const ListDevicesInput = z.object({
  includeRevoked: z.boolean().optional().describe("Also list revoked devices"),
});
export const DeviceRef = z.object({ id: Id });
export const SetAutoConsentInput = z.object({
  id: Id,
  teamIds: z.array(Id).max(50).describe("Teams whose runs the device takes without asking its owner; [] asks every time"),
});

export type DeviceState = "online" | "offline" | "revoked";

export interface DeviceView {
  id: string;
  name: string;
  owner: { id: string; name: string };
  team: { id: string; name: string } | null;
  state: DeviceState;
  online: boolean;
  capabilities: DeviceCapabilities | null;
  autoConsentTeamIds: string[];
  lastSeenAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What the services need of the process's DeviceHub (docs/devices.md#the-hub). */
export interface DevicePresence {
  isOnline(deviceId: string): boolean;
  /** Closes the device's socket in this process, now. */
  disconnect(deviceId: string, why: "revoked"): void;
  /** Tells a connected device its new auto-consent teams. */
  pushSettings(deviceId: string, autoConsentTeamIds: string[]): void;
}

const SELECT = {
  id: true,
  name: true,
  ownerId: true,
  capabilities: true,
  autoConsentTeamIds: true,
  lastSeenAt: true,
  createdAt: true,
  revokedAt: true,
  owner: { select: { id: true, name: true, email: true } },
  team: { select: { id: true, name: true } },
} as const;

type Row = {
  id: string;
  name: string;
  ownerId: string;
  capabilities: string;
  autoConsentTeamIds: string;
  lastSeenAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
  owner: { id: string; name: string; email: string };
  team: { id: string; name: string } | null;
};

/** JSON a device reported earlier, read back defensively: what does not parse is shown as unknown. */
export function parseCapabilities(text: string): DeviceCapabilities | null {
  try {
    const parsed = DeviceCapabilitiesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function parseTeamIds(text: string): string[] {
  try {
    const parsed = z.array(z.string()).max(50).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

function present(row: Row, presence: DevicePresence | null): DeviceView {
  const online = !row.revokedAt && (presence?.isOnline(row.id) ?? false);
  return {
    id: row.id,
    name: row.name,
    owner: { id: row.owner.id, name: row.owner.name || row.owner.email },
    team: row.team,
    state: row.revokedAt ? "revoked" : online ? "online" : "offline",
    online,
    capabilities: parseCapabilities(row.capabilities),
    autoConsentTeamIds: parseTeamIds(row.autoConsentTeamIds),
    lastSeenAt: row.lastSeenAt,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/** Members see their own devices, admins everyone's. */
const visible = (actor: Actor) => (actor.role === "admin" ? {} : { ownerId: actor.userId });

export async function listDevices(
  db: Db,
  actor: Actor,
  presence: DevicePresence | null,
  input: z.infer<typeof ListDevicesInput> = {},
): Promise<DeviceView[]> {
  const rows = await db.device.findMany({
    where: { ...visible(actor), ...(input.includeRevoked ? {} : { revokedAt: null }) },
    select: SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 1000,
  });
  return rows.map((r) => present(r, presence));
}

async function visibleDevice(db: Db, actor: Actor, id: string): Promise<Row> {
  const row = await db.device.findUnique({ where: { id }, select: SELECT });
  // Another person's device is as unknown as no device.
  if (!row || (actor.role !== "admin" && row.ownerId !== actor.userId)) throw new DomainError("NOT_FOUND", "No such device");
  return row;
}

/** Revokes a device (its owner, or an admin): its token stops working and its socket closes at once. */
export async function revokeDevice(db: Db, by: DeviceActing, presence: DevicePresence | null, id: string): Promise<DeviceView> {
  const found = await visibleDevice(db, by.actor, id);
  const row = await db.$transaction(async (tx) => {
    const changed = await tx.device.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (changed.count !== 1) throw new DomainError("NOT_FOUND", `The device ${found.name} was revoked already`);
    await recordAudit(tx, {
      kind: "device.revoked",
      actorId: by.actor.userId,
      actorName: by.actor.name || by.actor.email,
      channel: by.channel,
      subject: found.name,
      detail: { deviceId: id, ownerId: found.ownerId },
    });
    return tx.device.findUniqueOrThrow({ where: { id }, select: SELECT });
  });
  presence?.disconnect(id, "revoked");
  return present(row, presence);
}

/** The owner's choice of teams whose runs need no question on this device. Only the owner decides it. */
export async function setAutoConsent(
  db: Db,
  by: DeviceActing,
  presence: DevicePresence | null,
  input: z.infer<typeof SetAutoConsentInput>,
): Promise<DeviceView> {
  const found = await visibleDevice(db, by.actor, input.id);
  if (found.ownerId !== by.actor.userId)
    throw new DomainError("FORBIDDEN", "Only the device's owner chooses which teams' runs it takes without asking");
  if (found.revokedAt) throw new DomainError("CONFLICT", `The device ${found.name} is revoked`);
  const teamIds = [...new Set(input.teamIds)];
  const notMine = teamIds.filter((t) => roleIn(by.actor, t) === null);
  if (notMine.length) throw new DomainError("NOT_FOUND", `No such team, or not one you are in: ${notMine.join(", ")}`);
  const row = await db.$transaction(async (tx) => {
    const updated = await tx.device.update({
      where: { id: input.id },
      data: { autoConsentTeamIds: JSON.stringify(teamIds) },
      select: SELECT,
    });
    await recordAudit(tx, {
      kind: "device.auto_consent",
      actorId: by.actor.userId,
      actorName: by.actor.name || by.actor.email,
      channel: by.channel,
      subject: found.name,
      detail: { deviceId: input.id, teamIds },
    });
    return updated;
  });
  presence?.pushSettings(input.id, teamIds);
  return present(row, presence);
}

export interface AuthenticatedDevice {
  id: string;
  name: string;
  ownerId: string;
  autoConsentTeamIds: string[];
}
