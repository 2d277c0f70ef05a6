// Settings -> Telemetry (admins): where spans are exported over OTLP/HTTP, and
// how long span inputs and outputs are kept.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { OtlpSetting, otlpSetting, retentionDays, saveOtlpSetting, saveRetentionDays, testOtlpEndpoint } from "@/server/telemetry";
import { adminProcedure, router } from "../trpc";

const SetOtlp = z.object({ otlp: OtlpSetting.nullable() });
const SetRetention = z.object({ days: z.number().int().min(1, "at least 1 day").max(3650, "at most 3650 days") });

const maskValue = (v: string) => (v.length <= 4 ? "••••" : `••••${v.slice(-4)}`);

export const telemetrySettingsRouter = router({
  get: adminProcedure.query(async ({ ctx }) => {
    const otlp = await otlpSetting(ctx.db);
    return {
      otlp: otlp && { url: otlp.url, source: otlp.source, headers: Object.entries(otlp.headers).map(([name, value]) => ({ name, masked: maskValue(value) })) },
      retentionDays: await retentionDays(ctx.db),
    };
  }),
  setOtlp: adminProcedure.input(SetOtlp).mutation(async ({ ctx, input }) => {
    await saveOtlpSetting(ctx.db, input.otlp, { id: ctx.actor.userId, name: ctx.actor.name });
    await ctx.telemetryControl?.applyOtlp();
    return { ok: true as const };
  }),
  testOtlp: adminProcedure.input(OtlpSetting).mutation(({ input }) => testOtlpEndpoint(input)),
  setRetention: adminProcedure.input(SetRetention).mutation(async ({ ctx, input }) => {
    try {
      await saveRetentionDays(ctx.db, input.days, { id: ctx.actor.userId, name: ctx.actor.name });
    } catch (err) {
      throw new TRPCError({ code: "BAD_REQUEST", message: (err as Error).message });
    }
    return { ok: true as const };
  }),
});
