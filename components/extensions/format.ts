// Words and links the Extensions pages share.
import type { RouterOutputs } from "@/lib/trpc";

export type ExtensionSummary = RouterOutputs["extensions"]["list"]["extensions"][number];
export type ExtensionDetail = RouterOutputs["extensions"]["get"];

export const extensionHref = (id: string) => `/extensions/${encodeURIComponent(id)}`;

export const STATE_HINTS: Record<string, string> = {
  proposed: "Stored; its gate has not run yet",
  testing: "Its build and tests are running in the sandbox",
  failed: "Its build or a test failed: it is never installed",
  awaiting_approval: "Its tests passed; an admin other than its proposer approves the install",
  rejected: "A person turned it down",
  installed: "Its tools are offered to every agent; its hooks observe runs",
  disabled: "Switched off by a person",
  superseded: "A newer version replaced it",
  removed: "Removed by an admin",
};

export const stateWords = (state: string) => state.replace(/_/g, " ");

export function testsText(t: ExtensionSummary["tests"]): string {
  if (!t) return "not tested";
  return `${t.passed} passed${t.failed ? `, ${t.failed} failed` : ""}`;
}
