// tiers.*: Settings › Tiers (docs/desktops-and-tiers.md#settings--tiers).
// Everyone may read what each tier offers and costs (the run page explains tier
// changes with it); only admins change the settings, audited by the service.
import { TierSettingsInput, getTierOverview, updateTierSettings } from "@/server/tiers";
import { adminProcedure, router, viewerProcedure } from "../trpc";

export const tiersRouter = router({
  get: viewerProcedure.query(({ ctx }) => getTierOverview(ctx.db, ctx.tiers)),
  save: adminProcedure.input(TierSettingsInput).mutation(({ ctx, input }) => updateTierSettings(ctx.db, input, ctx.actor, ctx.tiers)),
});
