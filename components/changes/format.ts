// Words, links and types the change request pages share (docs/changes.md).
import type { RouterOutputs } from "@/lib/trpc";

export type ChangeSummary = RouterOutputs["changes"]["list"][number];
export type ChangeDetail = RouterOutputs["changes"]["get"];
export type ChangeState = ChangeSummary["state"];
export type RepositoryView = RouterOutputs["repositories"]["list"][number];

/** The states in the order a change goes through them (the server's CHANGE_STATES). */
export const CHANGE_STATES: readonly ChangeState[] = [
  "draft",
  "checks_running",
  "checks_failed",
  "awaiting_review",
  "merged",
  "rejected",
  "reverted",
];

export const CHANGE_STATE_LABELS: Record<string, string> = {
  draft: "draft",
  checks_running: "checks running",
  checks_failed: "checks failed",
  awaiting_review: "waiting for review",
  merged: "merged",
  rejected: "rejected",
  reverted: "reverted",
};

export const CHANGE_STATE_HINTS: Record<string, string> = {
  draft: "The agent is still working on it; nothing is proposed yet",
  checks_running: "The repository's tests run on a clean checkout of the proposed commit",
  checks_failed: "The tests failed; the agent may propose again, or a person re-runs or rejects it",
  awaiting_review: "The tests passed; an approver other than the person who launched the run decides",
  merged: "Merged into the target branch with a merge commit",
  rejected: "Closed without merging",
  reverted: "Merged, then undone by a revert commit",
};

export const changeStateLabel = (s: string) => CHANGE_STATE_LABELS[s] ?? s.replace(/_/g, " ");

/** While the agent works or the checks run, the page polls. */
export const isChangeBusy = (s: string) => s === "draft" || s === "checks_running";

export const changeHref = (id: string) => `/improvements/changes/${encodeURIComponent(id)}`;
export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;

export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 8) : "—");

/** The built-in demo: the repository and the agent that fixes its failing test (their goal is the server's DEMO_FIX_GOAL). */
export const DEMO_REPOSITORY = "demo-service";
export const DEMO_AGENT = "demo-fix";
export const DEMO_GOAL = "Fix the failing test of demo-service and propose the change for review";

/** "+3 −1 in 2 files". */
export function diffStatText(stat: { files: number; insertions: number; deletions: number }): string {
  return `+${stat.insertions} −${stat.deletions} in ${stat.files} ${stat.files === 1 ? "file" : "files"}`;
}

/** The model as people read it: a scripted model is labelled "scripted". */
export function modelText(model: string): { scripted: boolean; name: string } {
  return model.startsWith("scripted") ? { scripted: true, name: model.replace(/^scripted\/?/, "") } : { scripted: false, name: model };
}
