// How Settings › MCP servers says things: health in colour and words, replay
// classes, annotations and scopes as people read them.
import type { RouterOutputs } from "@/lib/trpc";

export type McpServerView = RouterOutputs["mcp"]["get"];
export type McpToolView = NonNullable<McpServerView["tools"]>[number];
export type McpBudgetView = RouterOutputs["mcp"]["list"]["budget"];
export type Health = McpServerView["health"];
export type ReplayClass = McpToolView["replayClass"];

export const HEALTH: Record<Health, { label: string; status: string }> = {
  ready: { label: "ready", status: "succeeded" },
  starting: { label: "starting", status: "running" },
  failed: { label: "failed", status: "failed" },
  stopped: { label: "stopped", status: "canceled" },
};

export const REPLAY_CLASSES: readonly ReplayClass[] = ["pure", "idempotent_with_key", "unsafe_on_replay"];

export const REPLAY_WORDS: Record<ReplayClass, string> = {
  pure: "pure (a replay reuses the recorded result)",
  idempotent_with_key: "idempotent with a key (replayed with the same key)",
  unsafe_on_replay: "unsafe on replay (never run twice)",
};

/** The chips of a tool's annotations; an unannotated tool is treated as destructive. */
export function annotationChips(annotations: McpToolView["annotations"]): Array<{ label: string; warn: boolean }> {
  if (!annotations || !Object.values(annotations).some((v) => typeof v === "boolean"))
    return [{ label: "no annotations: treated as destructive", warn: true }];
  const chips: Array<{ label: string; warn: boolean }> = [];
  if (annotations.readOnlyHint) chips.push({ label: "read-only", warn: false });
  if (!annotations.readOnlyHint)
    chips.push(annotations.destructiveHint === false ? { label: "not destructive", warn: false } : { label: "destructive", warn: true });
  if (annotations.idempotentHint) chips.push({ label: "idempotent", warn: false });
  if (annotations.openWorldHint !== false) chips.push({ label: "open-world", warn: false });
  return chips;
}

/** "All agents", or the names. */
export function scopeText(list: string[], all: string, none: string): string {
  if (list.includes("*")) return all;
  return list.length ? list.join(", ") : none;
}

/** "a, b" or "*" typed by an admin → the list the server takes. */
export function scopeList(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export const transportWords = (t: McpServerView["transport"]) => (t === "stdio" ? "stdio (sandbox)" : "Streamable HTTP");

export const tokens = (n: number) => n.toLocaleString("en-US");
