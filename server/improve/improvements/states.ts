// Improvements (runtime tools, skills) as a state machine, one row per
// version: every allowed transition in one table.
//
//   proposed -> active | rejected
//   active   -> disabled | expired | superseded
//   disabled -> active;  expired -> active (re-enabled by a person)
export const IMPROVEMENT_STATES = ["proposed", "active", "disabled", "expired", "rejected", "superseded"] as const;
export type ImprovementState = (typeof IMPROVEMENT_STATES)[number];

const TRANSITIONS: Record<ImprovementState, readonly ImprovementState[]> = {
  proposed: ["active", "rejected"],
  active: ["disabled", "expired", "superseded"],
  disabled: ["active"],
  expired: ["active"],
  rejected: [],
  superseded: [],
};

export const IMPROVEMENT_KINDS = ["runtime_tool", "skill"] as const;
export type ImprovementKind = (typeof IMPROVEMENT_KINDS)[number];
export const TIER_OF: Record<ImprovementKind, number> = { runtime_tool: 1, skill: 3 };

export const isImprovementState = (v: unknown): v is ImprovementState =>
  typeof v === "string" && (IMPROVEMENT_STATES as readonly string[]).includes(v);
export const canImprovementGo = (from: ImprovementState, to: ImprovementState) => TRANSITIONS[from].includes(to);
export const improvementSourcesOf = (to: ImprovementState) => IMPROVEMENT_STATES.filter((s) => TRANSITIONS[s].includes(to));

/** A runtime tool lives this long unless promoted. */
export const RUNTIME_TOOL_TTL_MS = 7 * 24 * 3600_000;
/** Promotion is proposed above this trust after this many uses. */
export const PROMOTION_TRUST = 0.8;
export const PROMOTION_MIN_USES = 10;

/** Trust = successful uses / (uses + 1), so a tool is never fully trusted on little evidence (docs/improvements.md#states-trust-and-promotion). */
export function trustScore(uses: number, successes: number): number {
  if (uses <= 0) return 0;
  return Math.max(0, Math.min(successes, uses)) / (uses + 1);
}

/** Whether a tool with these counts is due a promotion proposal (and was not promoted or proposed already). */
export function promotionDue(t: { uses: number; successes: number; promoted: boolean; promotionAskedAt: Date | null }): boolean {
  return !t.promoted && !t.promotionAskedAt && t.uses >= PROMOTION_MIN_USES && trustScore(t.uses, t.successes) > PROMOTION_TRUST;
}
