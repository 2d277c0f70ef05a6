// Where spans are exported (Settings -> Telemetry, or REIN_OTLP_ENDPOINT):
// stored as a setting, applied to the running TraceSink at once.
import { z } from "zod";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { OtlpSpanExporter } from "./otlp";
import { spanIdOf, traceIdOf } from "./ids";
import type { TraceSink } from "./trace-sink";

export const SETTING_OTLP = "telemetry.otlp";

export const OtlpSetting = z.object({
  url: z
    .string()
    .trim()
    .url("the endpoint must be a URL, e.g. http://collector:4318/v1/traces")
    .refine((u) => /^https?:\/\//.test(u), "the endpoint must be http:// or https://"),
  /** e.g. an authorization header the collector wants; shown masked. */
  headers: z.record(z.string().min(1).max(200), z.string().max(4000)).default({}),
});
export type OtlpSetting = z.infer<typeof OtlpSetting>;

/** The setting in force: the admin's, else REIN_OTLP_ENDPOINT, else none. */
export async function otlpSetting(db: Db, env: Record<string, string | undefined> = process.env): Promise<(OtlpSetting & { source: "settings" | "environment" }) | null> {
  const row = await db.setting.findUnique({ where: { key: SETTING_OTLP } });
  if (row) {
    const parsed = OtlpSetting.safeParse(JSON.parse(row.value));
    if (parsed.success) return { ...parsed.data, source: "settings" };
  }
  const url = env.REIN_OTLP_ENDPOINT?.trim();
  return url ? { url, headers: {}, source: "environment" } : null;
}

/** Points the sink's export at the setting in force (or stops it). */
export async function applyOtlpSetting(db: Db, sink: TraceSink, log?: { error(msg: string): void }): Promise<OtlpSpanExporter | null> {
  const setting = await otlpSetting(db);
  const exporter = setting ? new OtlpSpanExporter({ url: setting.url, headers: setting.headers, onError: (m) => log?.error(m) }) : null;
  sink.setExporter(exporter);
  return exporter;
}

/** Saves (or clears, with null) the endpoint; audited. */
export async function saveOtlpSetting(db: Db, value: OtlpSetting | null, actor: { id: string; name: string }): Promise<void> {
  if (value === null) {
    await db.setting.deleteMany({ where: { key: SETTING_OTLP } });
  } else {
    const parsed = OtlpSetting.parse(value);
    const json = JSON.stringify(parsed);
    await db.setting.upsert({ where: { key: SETTING_OTLP }, create: { key: SETTING_OTLP, value: json, updatedById: actor.id }, update: { value: json, updatedById: actor.id } });
  }
  await recordAudit(db, {
    kind: "settings.updated",
    actorId: actor.id,
    actorName: actor.name,
    channel: "admin",
    subject: SETTING_OTLP,
    detail: { url: value?.url ?? null, headers: Object.keys(value?.headers ?? {}) },
  });
}

/** Sends one test span to an endpoint; says whether the collector took it. */
export async function testOtlpEndpoint(value: OtlpSetting): Promise<{ ok: boolean; message: string }> {
  const setting = OtlpSetting.parse(value);
  let failure: string | null = null;
  const exporter = new OtlpSpanExporter({ url: setting.url, headers: setting.headers, onError: (m) => (failure = m) });
  const now = new Date();
  await exporter.export([
    {
      spanId: spanIdOf("otlp-test", String(now.getTime())),
      traceId: traceIdOf(`otlp-test-${now.getTime()}`),
      parentSpanId: null,
      runId: "otlp-test",
      kind: "run",
      name: "rein otlp test",
      startTime: now,
      endTime: now,
      status: "ok",
      teamId: null,
      workflowId: "otlp-test",
      userId: null,
      model: null,
      tool: null,
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      costUsd: 0,
      attributes: { "rein.run_id": "otlp-test", "rein.team_id": "", "rein.workflow_id": "otlp-test", "rein.test": true },
      detail: null,
    },
  ]);
  await exporter.shutdown();
  return failure ? { ok: false, message: failure } : { ok: true, message: `The collector at ${setting.url} accepted a test span` };
}
