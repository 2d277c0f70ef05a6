// Where spans are exported (Settings -> Telemetry, or REIN_OTLP_ENDPOINT):
// stored as a setting, applied to the running TraceSink at once. Header
// values are secrets: sealed in the row, masked in views (otlp-headers.ts).
import { z } from "zod";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { OtlpSpanExporter } from "./otlp";
import { spanIdOf, traceIdOf } from "./ids";
import type { TraceSink } from "./trace-sink";
import type { SecretKeyring } from "@/server/secrets";
import {
  OtlpHeadersInput,
  OtlpSettingError,
  headerViews,
  openHeaders,
  resolveHeaders,
  sealHeaders,
  type OtlpHeaderView,
  type StoredOtlpHeaders,
} from "./otlp-headers";

export const SETTING_OTLP = "telemetry.otlp";

const OtlpUrl = z
  .string()
  .trim()
  .url("the endpoint must be a URL, e.g. http://collector:4318/v1/traces")
  .refine((u) => /^https?:\/\//.test(u), "the endpoint must be http:// or https://");

/** What an admin saves or tests: header values in clear, or null to keep the saved value (otlp-headers.ts). */
export const OtlpSetting = z.object({ url: OtlpUrl, headers: OtlpHeadersInput });
export type OtlpSetting = z.input<typeof OtlpSetting>;

// The row: header values sealed; `headers` in clear only in rows written before they were.
const StoredOtlp = z.object({
  url: z.string(),
  sealedHeaders: z.record(z.string(), z.string()).default({}),
  headers: z.record(z.string(), z.string()).default({}),
});

interface StoredSetting {
  url: string;
  headers: StoredOtlpHeaders;
}

async function storedSetting(db: Db): Promise<StoredSetting | null> {
  const row = await db.setting.findUnique({ where: { key: SETTING_OTLP }, select: { value: true } });
  if (!row) return null;
  let json: unknown;
  try {
    json = JSON.parse(row.value);
  } catch {
    return null;
  }
  const parsed = StoredOtlp.safeParse(json);
  return parsed.success ? { url: parsed.data.url, headers: { sealed: parsed.data.sealedHeaders, clear: parsed.data.headers } } : null;
}

async function writeSetting(
  db: Db,
  url: string,
  headers: Record<string, string>,
  keyring: SecretKeyring | undefined,
  actorId: string | null,
): Promise<void> {
  const value = JSON.stringify({ url, sealedHeaders: sealHeaders(headers, keyring) });
  await db.setting.upsert({
    where: { key: SETTING_OTLP },
    create: { key: SETTING_OTLP, value, updatedById: actorId },
    update: { value, updatedById: actorId },
  });
}

export interface OtlpSettingView {
  url: string;
  source: "settings" | "environment";
  /** Names and masked values; a value in clear never leaves the server. */
  headers: OtlpHeaderView[];
}

/** The setting in force, for an admin: the admin's, else REIN_OTLP_ENDPOINT, else none. */
export async function otlpSetting(
  db: Db,
  keyring: SecretKeyring | undefined,
  env: Record<string, string | undefined> = process.env,
): Promise<OtlpSettingView | null> {
  const stored = await storedSetting(db);
  if (stored) return { url: stored.url, source: "settings", headers: headerViews(stored.headers, keyring) };
  const url = env.REIN_OTLP_ENDPOINT?.trim();
  return url ? { url, headers: [], source: "environment" } : null;
}

/** Points the sink's export at the setting in force (or stops it). */
export async function applyOtlpSetting(
  db: Db,
  sink: TraceSink,
  keyring: SecretKeyring | undefined,
  log?: { error(msg: string): void },
  env: Record<string, string | undefined> = process.env,
): Promise<OtlpSpanExporter | null> {
  const stored = await storedSetting(db);
  const url = stored?.url ?? env.REIN_OTLP_ENDPOINT?.trim();
  const headers = stored
    ? openHeaders(stored.headers, keyring, (name, err) =>
        log?.error(`The OTLP header "${name}" cannot be opened, so it is not sent: ${err.message}`),
      )
    : {};
  const exporter = url ? new OtlpSpanExporter({ url, headers, onError: (m) => log?.error(m) }) : null;
  sink.setExporter(exporter);
  return exporter;
}

/**
 * Seals the header values of a row written before they were sealed; run at
 * start, so clear values do not wait for an admin's next save. A row it
 * cannot seal (no key) is left as it is and still works.
 */
export async function sealStoredOtlpHeaders(db: Db, keyring: SecretKeyring | undefined): Promise<boolean> {
  const stored = await storedSetting(db);
  if (!stored || !keyring || Object.keys(stored.headers.clear).length === 0) return false;
  const row = await db.setting.findUnique({ where: { key: SETTING_OTLP }, select: { updatedById: true } });
  await writeSetting(db, stored.url, openHeaders(stored.headers, keyring), keyring, row?.updatedById ?? null);
  return true;
}

/** Saves (or clears, with null) the endpoint; audited with header names only. */
export async function saveOtlpSetting(
  db: Db,
  keyring: SecretKeyring | undefined,
  value: OtlpSetting | null,
  actor: { id: string; name: string },
): Promise<void> {
  let names: string[] = [];
  if (value === null) {
    await db.setting.deleteMany({ where: { key: SETTING_OTLP } });
  } else {
    const parsed = OtlpSetting.parse(value);
    const stored = await storedSetting(db);
    const headers = resolveHeaders(parsed.headers, stored?.headers ?? { sealed: {}, clear: {} }, keyring);
    await writeSetting(db, parsed.url, headers, keyring, actor.id);
    names = Object.keys(headers);
  }
  await recordAudit(db, {
    kind: "settings.updated",
    actorId: actor.id,
    actorName: actor.name,
    channel: "admin",
    subject: SETTING_OTLP,
    detail: { url: value?.url ?? null, headers: names },
  });
}

/**
 * Sends one test span to an endpoint; says whether the collector took it.
 * A header sent as null uses its saved value, only towards the saved
 * endpoint: a stored credential is never sent somewhere else.
 */
export async function testOtlpEndpoint(
  db: Db,
  keyring: SecretKeyring | undefined,
  value: OtlpSetting,
): Promise<{ ok: boolean; message: string }> {
  const setting = OtlpSetting.parse(value);
  const stored = await storedSetting(db);
  const keeps = Object.values(setting.headers).some((v) => v === null);
  if (keeps && stored?.url !== setting.url)
    throw new OtlpSettingError("Saved header values are only sent to the saved endpoint; type the header values to test another one");
  const headers = resolveHeaders(setting.headers, stored?.headers ?? { sealed: {}, clear: {} }, keyring);
  let failure: string | null = null;
  const exporter = new OtlpSpanExporter({ url: setting.url, headers, onError: (m) => (failure = m) });
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
