// Words and links the Improvements pages share.
import type { RouterOutputs } from "@/lib/trpc";

export type ImprovementSummary = RouterOutputs["improvements"]["list"]["improvements"][number];
export type ImprovementDetail = NonNullable<RouterOutputs["improvements"]["get"]>;
export type ImprovementDashboard = RouterOutputs["improvements"]["dashboard"];

export const IMPROVEMENT_STATES = ["proposed", "active", "disabled", "expired", "rejected", "superseded"] as const;
export const KIND_FILTERS = [
  { value: "runtime_tool", label: "Tier 1 · runtime tools" },
  { value: "skill", label: "Tier 3 · skills" },
] as const;

export const KIND_LABELS: Record<string, string> = { runtime_tool: "runtime tool", skill: "skill" };
export const STATE_HINTS: Record<string, string> = {
  proposed: "Written and tested, waiting for its gate",
  active: "Live: agents in its scope can use it",
  disabled: "Switched off by a person",
  expired: "Its 7-day lifetime ran out; an approver can switch it back on",
  rejected: "Its gate turned it down",
  superseded: "A newer version replaced it",
};

export const improvementHref = (id: string) => `/improvements/${encodeURIComponent(id)}`;
export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;
/** The trace tab of a run, opened at one span (as the Traces page links). */
export const spanHref = (runId: string, spanId: string) => `${runHref(runId)}?tab=trace&span=${encodeURIComponent(spanId)}`;

/** 0.83 -> "0.83"; no uses yet -> "—". */
export function trustText(trust: number, uses: number): string {
  return uses > 0 ? trust.toFixed(2) : "—";
}

export function scopeText(agents: string[]): string {
  return agents.length ? agents.join(", ") : "every agent";
}
