// Settings -> Telemetry (admins): where spans are exported over OTLP/HTTP. How
// long spans and their inputs and outputs are kept is Settings -> Data's.
import { z } from "zod";
import { OtlpSetting, otlpSetting, saveOtlpSetting, testOtlpEndpoint } from "@/server/telemetry";
import { adminProcedure, router } from "../trpc";

const SetOtlp = z.object({ otlp: OtlpSetting.nullable() });

export const telemetrySettingsRouter = router({
  get: adminProcedure.query(async ({ ctx }) => {
    return {
      otlp: await otlpSetting(ctx.db, ctx.keyring),
    };
  }),
  setOtlp: adminProcedure.input(SetOtlp).mutation(async ({ ctx, input }) => {
    await saveOtlpSetting(ctx.db, ctx.keyring, input.otlp, { id: ctx.actor.userId, name: ctx.actor.name });
    await ctx.telemetry.applyOtlp();
    return { ok: true as const };
  }),
  testOtlp: adminProcedure.input(OtlpSetting).mutation(({ ctx, input }) => testOtlpEndpoint(ctx.db, ctx.keyring, input)),
});
