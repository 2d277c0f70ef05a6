// The Memory page: search, read, edit, pin and delete memories of the
// person's teams (admins: all). Viewers read; operators of a memory's team edit.
import { z } from "zod";
import {
  ListMemoriesInput,
  MemoryStore,
  ScenarioSharingInput,
  UpdateMemoryInput,
  scenarioSharingFor,
  setScenarioSharing,
} from "@/server/memory";
import { router, operatorProcedure, viewerProcedure } from "../trpc";

const IdInput = z.object({ id: z.string().min(1).max(100) }).strict();
const UpdateInput = UpdateMemoryInput.extend({ id: z.string().min(1).max(100), state: z.enum(["active", "rejected"]).optional() }).strict();
const PinInput = z.object({ id: z.string().min(1).max(100), pinned: z.boolean() }).strict();

const storeOf = (ctx: { db: ConstructorParameters<typeof MemoryStore>[0]["db"] }) => new MemoryStore({ db: ctx.db });

export const memoriesRouter = router({
  list: viewerProcedure.input(ListMemoriesInput).query(({ ctx, input }) => storeOf(ctx).list(ctx.actor, input)),
  get: viewerProcedure.input(IdInput).query(({ ctx, input }) => storeOf(ctx).getFor(ctx.actor, input.id)),
  update: operatorProcedure.input(UpdateInput).mutation(({ ctx, input }) => {
    const { id, ...patch } = input;
    return storeOf(ctx).update(ctx.actor, id, patch, "inbox");
  }),
  pin: operatorProcedure.input(PinInput).mutation(({ ctx, input }) => storeOf(ctx).setPinned(ctx.actor, input.id, input.pinned, "inbox")),
  delete: operatorProcedure.input(IdInput).mutation(({ ctx, input }) => storeOf(ctx).remove(ctx.actor, input.id, "inbox")),
  // Whether scenario runs' memories load into a team's other runs; a team's admin changes it (checked in the service).
  scenarioSharing: viewerProcedure.query(({ ctx }) => scenarioSharingFor(ctx.db, ctx.actor)),
  setScenarioSharing: viewerProcedure
    .input(ScenarioSharingInput)
    .mutation(({ ctx, input }) => setScenarioSharing(ctx.db, ctx.actor, input, "admin")),
});
