// What the policy pages show, as the API returns it.
import type { RouterOutputs } from "@/lib/trpc";

export type PolicyVersionView = RouterOutputs["policy"]["active"];
export type PolicyVersionSummaryView = RouterOutputs["policy"]["versions"][number];
export type PolicyErrorView = RouterOutputs["policy"]["validate"]["errors"][number];
export type PolicyVerdictView = RouterOutputs["policy"]["preview"];
export type PolicyGrammarView = RouterOutputs["policy"]["grammar"];
