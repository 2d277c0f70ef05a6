// prices.*: the model price table (docs/traces-and-costs.md#prices). Everyone
// may read it (the Costs page explains its figures with it); only admins change
// it. Each change is audited by the service; the PriceBook reloads so later
// calls use it.
import { z } from "zod";
import { PriceInput, deletePrice, listPrices, setPrice, unpricedModels } from "@/server/telemetry";
import { adminProcedure, router, viewerProcedure } from "../trpc";

const DeleteInput = z.object({ model: z.string() });

export const pricesRouter = router({
  list: viewerProcedure.query(async ({ ctx }) => ({ prices: await listPrices(ctx.db), unpriced: await unpricedModels(ctx.db) })),
  set: adminProcedure.input(PriceInput).mutation(async ({ ctx, input }) => {
    const price = await setPrice(ctx.db, input, ctx.actor);
    await ctx.telemetry.loadPrices();
    return price;
  }),
  delete: adminProcedure.input(DeleteInput).mutation(async ({ ctx, input }) => {
    await deletePrice(ctx.db, input.model, ctx.actor);
    await ctx.telemetry.loadPrices();
    return { ok: true };
  }),
});
