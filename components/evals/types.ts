// The evals router's answers as the pages use them.
import type { RouterOutputs } from "@/lib/trpc";

export type DatasetView = RouterOutputs["evals"]["datasets"]["get"];
export type ItemView = RouterOutputs["evals"]["items"][number];
export type ScorerKindView = RouterOutputs["evals"]["scorerKinds"][number];
export type RunItemPreview = RouterOutputs["evals"]["previewFromRun"];
