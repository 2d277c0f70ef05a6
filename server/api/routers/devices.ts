// devices.*: the devices of a person (docs/devices.md#managing-devices), for the pages. Anyone
// signed in pairs devices of their own and sees them; admins see and revoke
// everyone's; only a device's owner sets its auto-consent teams. The pairing
// code is returned once, by createPairing.
import {
  CreatePairingInput,
  DeviceRef,
  ListDevicesInput,
  SetAutoConsentInput,
  createPairingCode,
  listDevices,
  processDeviceHub,
  revokeDevice,
  setAutoConsent,
} from "@/server/devices";
import { acting } from "../acting";
import { router, viewerProcedure } from "../trpc";

export const devicesRouter = router({
  list: viewerProcedure.input(ListDevicesInput).query(({ ctx, input }) => listDevices(ctx.db, ctx.actor, processDeviceHub(), input)),
  createPairing: viewerProcedure
    .input(CreatePairingInput)
    .mutation(({ ctx, input }) => createPairingCode(ctx.db, acting(ctx.actor), input)),
  revoke: viewerProcedure
    .input(DeviceRef)
    .mutation(({ ctx, input }) => revokeDevice(ctx.db, acting(ctx.actor), processDeviceHub(), input.id)),
  setAutoConsent: viewerProcedure
    .input(SetAutoConsentInput)
    .mutation(({ ctx, input }) => setAutoConsent(ctx.db, acting(ctx.actor), processDeviceHub(), input)),
});
