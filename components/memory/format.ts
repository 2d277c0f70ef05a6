import type { RouterOutputs } from "@/lib/trpc";

export type MemoryItem = RouterOutputs["memories"]["list"]["items"][number];

export const KINDS = ["fact", "procedure", "preference", "episode"] as const;
export const STATES = ["active", "pending", "rejected"] as const;

export const KIND_LABELS: Record<string, string> = { fact: "Fact", procedure: "Procedure", preference: "Preference", episode: "Episode" };
export const STATE_LABELS: Record<string, string> = { active: "Active", pending: "Waiting for confirmation", rejected: "Discarded" };

export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;
export const requestHref = (id: string) => `/inbox?id=${encodeURIComponent(id)}`;

/** Who saved it, in words: an agent, or a person. */
export function savedBy(createdBy: string): string {
  return createdBy.startsWith("agent:") ? createdBy.slice("agent:".length) : "a person";
}
