// REST v1 for devices (docs/devices.md#managing-devices, docs/api.md): the
// same services, checks and audit as tRPC's devices.*. Everyone manages
// their own devices, admins everyone's. The pairing code is in the answer to
// POST /api/v1/devices/pairings alone; no answer holds a device token.
import { z } from "zod";
import {
  CreatePairingInput,
  DeviceCapabilitiesSchema,
  SetAutoConsentInput,
  createPairingCode,
  listDevices,
  processDeviceHub,
  revokeDevice,
  setAutoConsent,
} from "@/server/devices";
import { DEVICE_AGENT_PATH } from "@/lib/device-protocol";
import { defineRoute, type Route } from "./contract";
import { Instant, TeamRef } from "./schemas";

const Device = z
  .object({
    id: z.string(),
    name: z.string().describe("Chosen by its owner; shown only"),
    owner: z.object({ id: z.string(), name: z.string() }),
    team: TeamRef.nullable().describe("The team it was paired for; null: none in particular"),
    state: z.enum(["online", "offline", "revoked"]),
    online: z.boolean().describe("Connected to this Rein process now"),
    capabilities: DeviceCapabilitiesSchema.nullable().describe("What the device reported at its last hello; null: unreadable"),
    autoConsentTeamIds: z.array(z.string()).describe("Teams whose runs it takes without asking its owner"),
    lastSeenAt: Instant.nullable(),
    createdAt: Instant,
    revokedAt: Instant.nullable(),
  })
  .meta({ id: "Device" });

const by = (ctx: { actor: Parameters<typeof listDevices>[1]; channel: "cli" | "api" }) => ({ actor: ctx.actor, channel: ctx.channel });
const DeviceId = z.object({ id: z.string().min(1).max(128) });

export const DEVICE_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/devices",
    minRole: "viewer",
    summary: "Your devices (admins: everyone's), online or offline, with what each reported",
    query: z.object({ includeRevoked: z.enum(["true", "false"]).optional().describe("true: revoked devices too") }),
    response: z.object({ devices: z.array(Device) }),
    handle: async (ctx) => ({
      devices: await listDevices(ctx.db, ctx.actor, processDeviceHub(), { includeRevoked: ctx.query.includeRevoked === "true" }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/devices/pairings",
    minRole: "viewer",
    status: 201,
    summary: "Create a pairing code for a device of yours; the code is in this answer only",
    description: `Good for 10 minutes and one device; at most 5 open at once. On the device: npx <rein>${DEVICE_AGENT_PATH} pair <rein> <code> --folder DIR (docs/devices.md#quick-start).`,
    body: CreatePairingInput,
    response: z.object({ code: z.string().describe("ABCD-EFGH: shown once, never again"), expiresAt: Instant }),
    errors: { 404: "No such team, or not one you are in", 429: "You have 5 pairing codes open" },
    handle: (ctx) => createPairingCode(ctx.db, by(ctx), ctx.body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/devices/{id}",
    minRole: "viewer",
    summary: "Revoke a device (its owner, or an admin): its token stops working and its connection closes",
    params: DeviceId,
    response: Device,
    errors: { 404: "No such device, one of someone else, or revoked already" },
    handle: (ctx) => revokeDevice(ctx.db, by(ctx), processDeviceHub(), ctx.params.id),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/devices/{id}/auto-consent",
    minRole: "viewer",
    summary: "Set the teams whose runs the device takes without asking its owner (the owner alone)",
    params: DeviceId,
    body: SetAutoConsentInput.pick({ teamIds: true }),
    response: Device,
    errors: { 403: "Only the device's owner chooses this", 404: "No such device, or a team you are not in", 409: "The device is revoked" },
    handle: (ctx) => setAutoConsent(ctx.db, by(ctx), processDeviceHub(), { id: ctx.params.id, teamIds: ctx.body.teamIds }),
  }),
];
