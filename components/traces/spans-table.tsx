"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { KindChip, spanLabel, spanState } from "@/components/trace/span-kind";
import { formatDateTime, formatDuration, formatRelative, formatTokens, formatCost } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";

export type SpanHitView = RouterOutputs["traces"]["search"]["spans"][number];

/** The run page's Trace tab with this span open. */
export function spanHref(span: Pick<SpanHitView, "runId" | "spanId">): string {
  return `/runs/${encodeURIComponent(span.runId)}?tab=trace&span=${encodeURIComponent(span.spanId)}`;
}

const STATE_LABELS = { ok: "ok", error: "error", open: "open", unset: "unset" } as const;

function SpanStatus({ span }: { span: SpanHitView }) {
  const state = spanState(span);
  const tone = state === "ok" ? "badge-ok" : state === "error" ? "badge-error" : state === "open" ? "status-running" : "";
  return (
    <span className={`badge ${tone}`} data-testid="span-status">
      <span className="badge-dot" aria-hidden="true" />
      {STATE_LABELS[state]}
    </span>
  );
}

export function SpansTable({ spans, now, teamNames }: { spans: SpanHitView[]; now: number; teamNames: Map<string, string> }) {
  const router = useRouter();
  return (
    <div className="table-wrap">
      <table className="table" data-testid="spans-table">
        <thead>
          <tr>
            <th>Started</th>
            <th>Span</th>
            <th>Status</th>
            <th className="num">Duration</th>
            <th className="num">Tokens in / out</th>
            <th className="num">Cost</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {spans.map((span) => {
            const href = spanHref(span);
            const open = span.endTime === null;
            return (
              <tr
                key={span.spanId}
                className="clickable"
                data-testid="span-row"
                data-list-row
                data-span-id={span.spanId}
                data-run-id={span.runId}
                data-kind={span.kind}
                onClick={(e) => {
                  if ((e.target as HTMLElement).closest("a")) return;
                  router.push(href);
                }}
              >
                <td className="nowrap" title={formatDateTime(span.startTime)}>
                  {formatRelative(span.startTime, now)}
                </td>
                <td style={{ maxWidth: 320 }}>
                  <span className="row" style={{ gap: 8, minWidth: 0 }}>
                    <KindChip kind={span.kind} />
                    <span className="span-label nowrap" title={span.name} data-testid="span-name">
                      {spanLabel(span)}
                    </span>
                  </span>
                </td>
                <td>
                  <SpanStatus span={span} />
                </td>
                <td className="num" title={open ? "Still open" : undefined}>
                  {open ? formatDuration(now - new Date(span.startTime).getTime()) + "…" : formatDuration(span.durationMs)}
                </td>
                <td className="num">
                  {span.inputTokens || span.outputTokens ? `${formatTokens(span.inputTokens)} / ${formatTokens(span.outputTokens)}` : "—"}
                </td>
                <td className="num">{span.costUsd > 0 || span.kind === "chat" || span.kind === "run" ? formatCost(span.costUsd) : "—"}</td>
                <td className="goal-cell">
                  <Link href={href} title={span.runGoal} data-testid="span-run-link">
                    {span.runGoal}
                  </Link>
                  <div className="small muted nowrap">
                    {span.workflowId}
                    {span.teamId && teamNames.has(span.teamId) && ` · ${teamNames.get(span.teamId)}`}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
