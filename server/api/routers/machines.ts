// machines.*: Settings › Machines (docs/desktops-and-tiers.md#t3-remote-machines).
// Admins register, contact, confirm, test, change and archive machines;
// everyone may list the machines of their teams (and those for every team),
// never a private key.
import {
  ConfirmHostKeyInput,
  MachineRef,
  RegisterMachineInput,
  UpdateMachineInput,
  archiveMachine,
  confirmHostKey,
  contactMachine,
  getMachine,
  listMachines,
  registerMachine,
  testMachine,
  updateMachine,
} from "@/server/machines";
import { acting } from "../acting";
import { adminProcedure, router, viewerProcedure } from "../trpc";

export const machinesRouter = router({
  list: viewerProcedure.query(({ ctx }) => listMachines(ctx.db, ctx.actor)),
  get: viewerProcedure.input(MachineRef).query(({ ctx, input }) => getMachine(ctx.db, ctx.actor, input.id)),
  register: adminProcedure.input(RegisterMachineInput).mutation(({ ctx, input }) => registerMachine(ctx, acting(ctx.actor), input)),
  update: adminProcedure
    .input(UpdateMachineInput)
    .mutation(({ ctx, input }) => updateMachine(ctx, acting(ctx.actor), input.id, input.patch)),
  /** First contact: the host key fingerprint the machine presents now, for the admin to compare and confirm. */
  contact: adminProcedure.input(MachineRef).mutation(({ ctx, input }) => contactMachine(ctx, acting(ctx.actor), input.id)),
  confirmKey: adminProcedure
    .input(ConfirmHostKeyInput)
    .mutation(({ ctx, input }) => confirmHostKey(ctx, acting(ctx.actor), input.id, input.fingerprint)),
  test: adminProcedure.input(MachineRef).mutation(({ ctx, input }) => testMachine(ctx, acting(ctx.actor), input.id)),
  archive: adminProcedure.input(MachineRef).mutation(({ ctx, input }) => archiveMachine(ctx, acting(ctx.actor), input.id)),
});
