// How each kind of span is named and coloured in the Trace tab.
import type { RouterOutputs } from "@/lib/trpc";

export type TracePage = RouterOutputs["traces"]["page"];
export type SpanView = TracePage["spans"][number];
export type SpanKind = SpanView["kind"];

export const KIND_LABELS: Record<SpanKind, { chip: string; title: string }> = {
  run: { chip: "run", title: "Run" },
  invoke_agent: { chip: "agent", title: "Agent invocation" },
  chat: { chip: "model", title: "Model call" },
  execute_tool: { chip: "tool", title: "Tool call" },
  human_request: { chip: "human", title: "Human request" },
  tier: { chip: "tier", title: "Compute tier change" },
  improve: { chip: "improve", title: "Hack cycle (self-improvement)" },
};

export function KindChip({ kind }: { kind: SpanKind }) {
  const label = KIND_LABELS[kind] ?? { chip: kind, title: kind };
  return (
    <span className={`kind-chip kind-${kind}`} title={label.title}>
      {label.chip}
    </span>
  );
}

/** "execute_tool shell" reads "shell" beside its kind chip. */
export function spanLabel(span: Pick<SpanView, "kind" | "name">): string {
  return span.name.startsWith(`${span.kind} `) ? span.name.slice(span.kind.length + 1) : span.name;
}

/** "ok", "error", or "open" for a span that has not ended. */
export function spanState(span: Pick<SpanView, "status" | "endTime">): "ok" | "error" | "open" | "unset" {
  if (span.status === "error") return "error";
  if (!span.endTime) return "open";
  return span.status === "ok" ? "ok" : "unset";
}
