// The agents router's answers as the pages use them.
import type { RouterOutputs } from "@/lib/trpc";

export type AgentListItem = RouterOutputs["agents"]["list"][number];
export type AgentView = RouterOutputs["agents"]["get"];
export type AgentVersionView = RouterOutputs["agents"]["versions"][number];
export type AgentDiffView = RouterOutputs["agents"]["diff"];
export type AgentToolView = RouterOutputs["agents"]["tools"][number];
