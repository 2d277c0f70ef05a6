// Tier settings as an admin edits them (Settings › Tiers) and the words the UI
// uses for tiers. The server checks again (server/tiers/settings.ts); its
// issues come back with paths like "T2.threshold" and show under that field.
// The constants are repeated here so the browser bundle stays free of server
// code; the types come from the server (types only) and `satisfies` checks
// the constants against it.
import type { ConsentRole, TierId, TierSetting, TierSettings } from "@/server/tiers";

export type { ConsentRole, TierId };
export type TierSettingValue = TierSetting;
export type TierSettingsValue = TierSettings;

export const TIER_IDS = ["T0", "T1", "T2", "T3", "T4"] as const satisfies readonly TierId[];
export const TIER_NAMES: Record<TierId, string> = {
  T0: "gateway",
  T1: "terminal",
  T2: "desktop",
  T3: "remote machine",
  T4: "local device",
};
export const CONSENT_ROLES = ["operator", "approver", "admin"] as const satisfies readonly ConsentRole[];
export const MAX_POOL_SIZE = 16;
export const POOLED_TIERS: readonly TierId[] = ["T1", "T2"];
/** Tiers this product does not provide: shown, never switched on. */
export const NOT_BUILT_TIERS: readonly TierId[] = [];

/** "T2 · desktop"; an unknown value as it is. */
export function tierLabel(tier: string | null | undefined): string {
  if (!tier) return "—";
  const name = TIER_NAMES[tier as TierId];
  return name ? `${tier} · ${name}` : tier;
}

/** One tier's row of the form: numbers as typed. */
export interface TierDraftRow {
  enabled: boolean;
  poolSize: string;
  /** Blank: the tier is never left for being idle. */
  idleTimeoutMin: string;
  costPerHourUsd: string;
  threshold: string;
  /** "" for nobody: the rules grant the tier without asking. */
  consentRole: "" | ConsentRole;
}
export type TierDraft = Record<TierId, TierDraftRow>;
export type TierField = Exclude<keyof TierDraftRow, "enabled"> | "enabled";
/** Errors by "T2.threshold". */
export type TierErrors = Partial<Record<`${TierId}.${TierField}`, string>>;

export function draftOf(settings: TierSettingsValue): TierDraft {
  const row = (s: TierSettingValue): TierDraftRow => ({
    enabled: s.enabled,
    poolSize: String(s.poolSize),
    idleTimeoutMin: s.idleTimeoutMin === null ? "" : String(s.idleTimeoutMin),
    costPerHourUsd: String(s.costPerHourUsd),
    threshold: String(s.threshold),
    consentRole: s.consentRole ?? "",
  });
  return Object.fromEntries(TIER_IDS.map((t) => [t, row(settings[t])])) as TierDraft;
}

const NUMBER_RE = /^-?(\d+(\.\d*)?|\.\d+)$/;

function number(text: string): number | null {
  const cleaned = text.trim().replace(/^\$/, "");
  return NUMBER_RE.test(cleaned) ? Number(cleaned) : null;
}

type Checked<T> = { value: T } | { error: string };

/** Idle timeout in whole minutes; blank is null (never). */
function parseIdle(text: string): Checked<number | null> {
  if (!text.trim()) return { value: null };
  const n = number(text);
  if (n === null || !Number.isInteger(n)) return { error: "must be whole minutes (blank: never)" };
  if (n < 1 || n > 10_080) return { error: "is from 1 minute to a week (10080)" };
  return { value: n };
}

/** Price per hour in USD, 0 to 1000. */
function parseCost(text: string): Checked<number> {
  const cost = number(text);
  if (cost === null) return { error: "must be an amount in USD, e.g. 0.05" };
  if (cost < 0) return { error: "cannot be negative" };
  if (cost > 1000) return { error: "is at most 1000 USD an hour" };
  return { value: cost };
}

/** The form's values as the server takes them, or an error per field. */
export function parseDraft(draft: TierDraft): { ok: true; value: TierSettingsValue } | { ok: false; errors: TierErrors } {
  const errors: TierErrors = {};
  const value = {} as TierSettingsValue;
  for (const tier of TIER_IDS) {
    const row = draft[tier];
    const fail = (field: TierField, message: string) => void (errors[`${tier}.${field}`] ??= message);
    let poolSize = 0;
    if (POOLED_TIERS.includes(tier)) {
      const n = number(row.poolSize);
      if (n === null || !Number.isInteger(n)) fail("poolSize", "must be a whole number");
      else if (n < 0 || n > MAX_POOL_SIZE) fail("poolSize", `is from 0 to ${MAX_POOL_SIZE}`);
      else poolSize = n;
    }
    const idle = parseIdle(row.idleTimeoutMin);
    if ("error" in idle) fail("idleTimeoutMin", idle.error);
    const idleTimeoutMin = "value" in idle ? idle.value : null;
    const costCheck = parseCost(row.costPerHourUsd);
    if ("error" in costCheck) fail("costPerHourUsd", costCheck.error);
    const cost = "value" in costCheck ? costCheck.value : null;
    const threshold = number(row.threshold);
    if (threshold === null) fail("threshold", "must be a number from 0 to 1");
    else if (threshold < 0 || threshold > 1) fail("threshold", "is from 0 to 1");
    value[tier] = {
      // T0 is every run's floor; T4 does not exist on this server.
      enabled: tier === "T0" ? true : NOT_BUILT_TIERS.includes(tier) ? false : row.enabled,
      poolSize,
      idleTimeoutMin,
      costPerHourUsd: cost ?? 0,
      threshold: threshold ?? 0,
      consentRole: row.consentRole === "" ? null : row.consentRole,
    };
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, value };
}

/** What a stay on the tier is estimated to cost: an hour's price for at least its idle timeout (an hour when it has none). */
export function estimateUsd(costPerHourUsd: number, idleTimeoutMin: number | null): number {
  return costPerHourUsd * (idleTimeoutMin === null ? 1 : idleTimeoutMin / 60);
}

/** A row's estimate as typed, or null while its price or idle timeout is not a possible value (never "-$4.00"). */
export function draftEstimate(row: Pick<TierDraftRow, "costPerHourUsd" | "idleTimeoutMin">): number | null {
  const cost = parseCost(row.costPerHourUsd);
  const idle = parseIdle(row.idleTimeoutMin);
  return "value" in cost && "value" in idle ? estimateUsd(cost.value, idle.value) : null;
}

/** The server's refusal, under the fields it names ("T2.threshold"); the rest in one line. */
export function serverErrors(
  issues: Array<{ path: string; message: string }> | undefined,
  message: string,
): { errors: TierErrors; other: string | null } {
  if (!issues?.length) return { errors: {}, other: message };
  const errors: TierErrors = {};
  const other: string[] = [];
  for (const i of issues) {
    if (/^T[0-4]\.[A-Za-z]+$/.test(i.path)) errors[i.path as keyof TierErrors] ??= i.message;
    else other.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return { errors, other: other.length ? other.join("; ") : null };
}
