// Settings -> Telemetry (admins): where spans are exported over OTLP/HTTP, and
// how long span inputs and outputs are kept.
import { z } from "zod";
import { OtlpSetting, otlpSetting, retentionDays, saveOtlpSetting, saveRetentionDays, testOtlpEndpoint } from "@/server/telemetry";
import { adminProcedure, router } from "../trpc";

const SetOtlp = z.object({ otlp: OtlpSetting.nullable() });
const SetRetention = z.object({ days: z.number().int().min(1, "at least 1 day").max(3650, "at most 3650 days") });

export const telemetrySettingsRouter = router({
  get: adminProcedure.query(async ({ ctx }) => {
    return {
      otlp: await otlpSetting(ctx.db, ctx.keyring),
      retentionDays: await retentionDays(ctx.db),
    };
  }),
  setOtlp: adminProcedure.input(SetOtlp).mutation(async ({ ctx, input }) => {
    await saveOtlpSetting(ctx.db, ctx.keyring, input.otlp, { id: ctx.actor.userId, name: ctx.actor.name });
    await ctx.telemetry.applyOtlp();
    return { ok: true as const };
  }),
  testOtlp: adminProcedure.input(OtlpSetting).mutation(({ ctx, input }) => testOtlpEndpoint(ctx.db, ctx.keyring, input)),
  setRetention: adminProcedure.input(SetRetention).mutation(async ({ ctx, input }) => {
    await saveRetentionDays(ctx.db, input.days, { id: ctx.actor.userId, name: ctx.actor.name });
    return { ok: true as const };
  }),
});
