// The tier state machine (docs/desktops-and-tiers.md#moving-up-upgrade_tier),
// pure: whether a run may go from its tier up to another. Ti -> Tj needs Tj to
// exist here and be enabled, the task's complexity to reach Tj's threshold, the
// budget to cover Tj's estimated cost, and the consent Tj's settings ask for.
// The caller gathers the facts (settings, availability, budget, a person's
// answer); nothing here reads a clock, a database or a process.
import type { ConsentAnswer, ToolReviewer } from "@/server/tools";
import {
  NOT_BUILT,
  TIER_NAMES,
  tierRank,
  type ConsentRole,
  type RefusalCode,
  type TierId,
  type TierSetting,
  type TierSettings,
} from "./types";

export interface UpgradeFacts {
  from: string;
  to: TierId;
  settings: TierSettings;
  /** Why this server cannot provide the target now (Xvfb missing...), or null. */
  unavailable: string | null;
  complexity: Complexity;
  /** Whether the run's and its team's budgets cover the target's estimated cost. */
  budget: { ok: true } | { ok: false; reason: string };
  /** A person's answer to the consent request; null while nobody was asked. */
  consent: ConsentAnswer | null;
  /** T3: the machine the run would get, or why there is none. */
  machine?: { ok: true; name: string } | { ok: false; reason: string };
  /** T4: the device the run would get, or why there is none. */
  device?: { ok: true; name: string } | { ok: false; reason: string };
}

export interface Complexity {
  score: number;
  /** Where the score came from: the run's launch, the agent spec, or the default. */
  source: "run" | "agent" | "default";
}

export type UpgradeDecision =
  | { kind: "granted"; consentBy?: string }
  | { kind: "needs_consent"; role: ConsentRole }
  | { kind: "refused"; code: RefusalCode; message: string; reviewer?: ToolReviewer };

export const DEFAULT_COMPLEXITY = 0.5;

/** The run's score when it was given one at launch, else the agent spec's guardrails.complexity, else 0.5. */
export function complexityOf(runScore: number | null | undefined, guardrails: Record<string, unknown> | undefined): Complexity {
  if (typeof runScore === "number" && runScore >= 0 && runScore <= 1) return { score: runScore, source: "run" };
  const spec = guardrails?.complexity;
  if (typeof spec === "number" && spec >= 0 && spec <= 1) return { score: spec, source: "agent" };
  return { score: DEFAULT_COMPLEXITY, source: "default" };
}

/** What a stay on the tier is expected to cost: an hour's price for at least its idle timeout (an hour when it has none). */
export function estimatedCostUsd(setting: Pick<TierSetting, "costPerHourUsd" | "idleTimeoutMin">): number {
  const hours = setting.idleTimeoutMin === null ? 1 : setting.idleTimeoutMin / 60;
  return Math.round(setting.costPerHourUsd * hours * 1e6) / 1e6;
}

export function tierLabel(tier: string): string {
  const name = TIER_NAMES[tier as TierId];
  return name ? `${tier} (${name})` : tier;
}

const SOURCE_WORDS: Record<Complexity["source"], string> = {
  run: "given at launch",
  agent: "from the agent spec",
  default: "the default, as neither the run nor its agent gives one",
};

function refused(code: RefusalCode, message: string, reviewer?: ToolReviewer): UpgradeDecision {
  return { kind: "refused", code, message, ...(reviewer ? { reviewer } : {}) };
}

export function decideUpgrade(f: UpgradeFacts): UpgradeDecision {
  const target = tierLabel(f.to);
  if (tierRank(f.to) <= tierRank(f.from)) {
    return refused(
      "NOT_AN_UPGRADE",
      f.to === f.from
        ? `The run is already on ${target}`
        : `${target} is below the run's ${tierLabel(f.from)}: upgrade_tier only moves up; a tier nobody uses is left on its own`,
    );
  }
  const notBuilt = NOT_BUILT[f.to];
  if (notBuilt) return refused("TIER_UNAVAILABLE", notBuilt);
  const setting = f.settings[f.to];
  if (!setting.enabled) return refused("TIER_DISABLED", `${target} is turned off on this server (Settings › Tiers)`);
  if (f.unavailable) return refused("TIER_UNAVAILABLE", `${target} is not available on this server: ${f.unavailable}`);
  if (f.machine && !f.machine.ok) return refused("NO_MACHINE", f.machine.reason);
  if (f.device && !f.device.ok) return refused("NO_DEVICE", f.device.reason);
  if (f.complexity.score < setting.threshold) {
    return refused(
      "COMPLEXITY_BELOW_THRESHOLD",
      `The task's complexity score ${f.complexity.score.toFixed(2)} (${SOURCE_WORDS[f.complexity.source]}) is below ${target}'s threshold of ${setting.threshold.toFixed(2)}`,
    );
  }
  if (!f.budget.ok) return refused("BUDGET_EXCEEDED", f.budget.reason);
  if (setting.consentRole === null) return { kind: "granted" };
  if (!f.consent) return { kind: "needs_consent", role: setting.consentRole };
  const by = f.consent.byName ?? "A person";
  const comment = f.consent.comment ? `: ${f.consent.comment}` : "";
  switch (f.consent.state) {
    case "APPROVED":
      return { kind: "granted", consentBy: f.consent.byName };
    case "REJECTED":
      // A person's decision: a run that stops here was stopped by a reviewer (server/kernel/reviewer-stop.ts).
      return refused("CONSENT_REJECTED", `${by} did not consent to ${target}${comment}`, {
        by,
        verb: "declined",
        ...(f.consent.comment ? { comment: f.consent.comment } : {}),
      });
    case "EXPIRED":
      return refused("CONSENT_REJECTED", `Nobody consented to ${target} before the request expired`);
    default:
      return refused("CONSENT_REJECTED", `The request for consent to ${target} was canceled`);
  }
}
