// The evals router's answers (datasets and experiments), as the pages use them.
import type { RouterOutputs } from "@/lib/trpc";

export type DatasetView = RouterOutputs["evals"]["datasets"]["get"];
export type ItemView = RouterOutputs["evals"]["items"][number];
export type ScorerKindView = RouterOutputs["evals"]["scorerKinds"][number];
export type RunItemPreview = RouterOutputs["evals"]["previewFromRun"];

export type ExperimentView = RouterOutputs["evals"]["experiments"]["get"];
export type ExperimentStatus = ExperimentView["status"];
export type ExperimentResults = RouterOutputs["evals"]["experiments"]["results"];
export type ItemResult = ExperimentResults["items"][number];
export type TrialResult = ItemResult["epochs"][number];
export type ScorerSummary = ExperimentResults["scorers"][number];
export type Comparison = RouterOutputs["evals"]["experiments"]["compare"];
export type CandidateComparison = Comparison["candidates"][number];
export type ComparedItem = CandidateComparison["items"][number];
export type ComparedSide = NonNullable<ComparedItem["baseline"]>;

/** Queued or running: its figures still change, so pages poll it. */
export const isActive = (status: ExperimentStatus | undefined) => status === "queued" || status === "running";

/** An experiment's agent in words: "coder v2", or the items' own. */
export function agentText(e: Pick<ExperimentView, "agent">): string {
  return e.agent ? `${e.agent.name} v${e.agent.version}` : "items' own agents";
}

export const experimentHref = (id: string) => `/evals/experiments/${encodeURIComponent(id)}`;
export const datasetHref = (id: string) => `/evals/datasets/${encodeURIComponent(id)}`;
