// Settings -> Telemetry (admins): where spans are exported over OTLP/HTTP, and
// how long span inputs and outputs are kept.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { OtlpSetting, OtlpSettingError, otlpSetting, retentionDays, saveOtlpSetting, saveRetentionDays, testOtlpEndpoint } from "@/server/telemetry";
import { adminProcedure, router } from "../trpc";

const SetOtlp = z.object({ otlp: OtlpSetting.nullable() });
const SetRetention = z.object({ days: z.number().int().min(1, "at least 1 day").max(3650, "at most 3650 days") });

/** A bad header (one to keep that has no saved value, say) is the caller's mistake. */
async function badRequestOn<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof OtlpSettingError) throw new TRPCError({ code: "BAD_REQUEST", message: err.message });
    throw err;
  }
}

export const telemetrySettingsRouter = router({
  get: adminProcedure.query(async ({ ctx }) => {
    return {
      otlp: await otlpSetting(ctx.db, ctx.keyring),
      retentionDays: await retentionDays(ctx.db),
    };
  }),
  setOtlp: adminProcedure.input(SetOtlp).mutation(async ({ ctx, input }) => {
    await badRequestOn(() => saveOtlpSetting(ctx.db, ctx.keyring, input.otlp, { id: ctx.actor.userId, name: ctx.actor.name }));
    await ctx.telemetryControl?.applyOtlp();
    return { ok: true as const };
  }),
  testOtlp: adminProcedure.input(OtlpSetting).mutation(({ ctx, input }) => badRequestOn(() => testOtlpEndpoint(ctx.db, ctx.keyring, input))),
  setRetention: adminProcedure.input(SetRetention).mutation(async ({ ctx, input }) => {
    try {
      await saveRetentionDays(ctx.db, input.days, { id: ctx.actor.userId, name: ctx.actor.name });
    } catch (err) {
      throw new TRPCError({ code: "BAD_REQUEST", message: (err as Error).message });
    }
    return { ok: true as const };
  }),
});
