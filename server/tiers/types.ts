// Compute tiers (docs/desktops-and-tiers.md#the-tiers): T0 gateway, T1 terminal
// pod, T2 operative desktop, T3 remote machine, T4 a user's device. The words
// below are the ones the UI, the events and the agent see.
import type { Role } from "@/server/identity";

export const TIER_IDS = ["T0", "T1", "T2", "T3", "T4"] as const;
export type TierId = (typeof TIER_IDS)[number];

export function isTierId(value: unknown): value is TierId {
  return typeof value === "string" && (TIER_IDS as readonly string[]).includes(value);
}

/** T0 < T1 < ... < T4; an unknown tier counts as T1, the tier runs started on before tiers existed. */
export function tierRank(tier: string): number {
  const i = (TIER_IDS as readonly string[]).indexOf(tier);
  return i < 0 ? 1 : i;
}

export const TIER_NAMES: Record<TierId, string> = {
  T0: "gateway",
  T1: "terminal",
  T2: "desktop",
  T3: "remote machine",
  T4: "local device",
};

/** What the agent can do on each tier, for the summary it gets after a change. */
export const TIER_OFFERS: Record<TierId, string> = {
  T0: "model calls and stateless tools only; no workspace, no shell",
  T1: "the workspace's files and a sandboxed shell (no network unless policy allows it)",
  T2: "the workspace and shell of T1, plus a desktop with Chromium: the browser_* tools (navigate, click, type, press, scroll, screenshot, read, wait)",
  T3: "the workspace's files, and a shell on a registered remote machine over SSH (the workspace is copied there, and back after each shell command); no desktop",
  T4: "the files of a folder on a person's own device, and its terminal when the owner allows commands; no desktop, no secrets, no git tools or search",
};

/** Tiers this server cannot provide at all; they are shown, never faked. */
export const NOT_BUILT: Partial<Record<TierId, string>> = {};

export const CONSENT_ROLES = ["operator", "approver", "admin"] as const satisfies readonly Role[];
export type ConsentRole = (typeof CONSENT_ROLES)[number];

/** One tier's settings (Settings › Tiers). */
export interface TierSetting {
  enabled: boolean;
  /** Warm environments kept ready: T1 terminal pods, T2 desktops. Other tiers keep none. */
  poolSize: number;
  /** Minutes without use after which the tier is left (T2: no browser tool call); null: never. */
  idleTimeoutMin: number | null;
  /** Estimated cost of an hour on the tier, USD. */
  costPerHourUsd: number;
  /** The task's complexity score (0..1) must reach this to enter the tier. */
  threshold: number;
  /** Whose consent entering the tier needs; null: the rules grant it without asking anyone. */
  consentRole: ConsentRole | null;
}

export type TierSettings = Record<TierId, TierSetting>;

export const REFUSAL_CODES = [
  "NOT_AN_UPGRADE",
  "TIER_UNAVAILABLE",
  "TIER_DISABLED",
  "COMPLEXITY_BELOW_THRESHOLD",
  "BUDGET_EXCEEDED",
  "CONSENT_REJECTED",
  "CONSENT_REQUIRED",
  "NO_MACHINE",
  "NO_DEVICE",
  "DEVICE_REFUSED",
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];
