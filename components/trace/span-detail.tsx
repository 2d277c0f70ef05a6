"use client";
// One span in full: what it was, when, what it cost, every attribute, and its
// inputs and outputs (fetched only when the span is opened).
import { useEffect, useRef } from "react";
import { JsonBlock } from "@/components/json-block";
import { ErrorState, Skeleton } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatDuration, formatNumber, formatCost } from "@/lib/format";
import { groupAttributes } from "@/lib/trace-tree";
import { trpc } from "@/lib/trpc";
import { KIND_LABELS, KindChip, spanLabel, spanState, type SpanView } from "./span-kind";

const STATE_TEXT = { ok: "ok", error: "error", open: "running", unset: "unset" } as const;
const GROUP_TITLES = { gen_ai: ["GenAI", "gen_ai.*"], rein: ["Rein", "rein.*"], other: ["Other", ""] } as const;
/** Only model and tool calls keep inputs and outputs; for them, none means retention dropped them. */
const KEEPS_IO = new Set(["chat", "execute_tool"]);

export function SpanDetail({ runId, span, openEnd, onClose }: { runId: string; span: SpanView; openEnd: number; onClose(): void }) {
  const state = spanState(span);
  const start = span.startTime.getTime();
  const end = span.endTime ? span.endTime.getTime() : null;
  const groups = groupAttributes(span.attributes);

  return (
    <aside className="span-detail card" aria-label="Span detail" data-testid="span-detail" data-span-id={span.spanId}>
      <div className="span-detail-head">
        <KindChip kind={span.kind} />
        <h2 className="span-detail-title" title={span.name} data-testid="span-detail-name">
          {spanLabel(span)}
        </h2>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClose} aria-label="Close the span detail">
          ✕
        </button>
      </div>
      <div className="span-detail-body">
        <dl className="facts">
          <dt>Name</dt>
          <dd className="mono">{span.name}</dd>
          <dt>Kind</dt>
          <dd>
            {KIND_LABELS[span.kind]?.title ?? span.kind} <code className="muted">{span.kind}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <span className={`badge span-status-${state}`} data-testid="span-detail-status">
              {STATE_TEXT[state]}
            </span>
          </dd>
          <dt>Start</dt>
          <dd>{formatDateTime(start)}</dd>
          <dt>End</dt>
          <dd>{end === null ? "not finished" : formatDateTime(end)}</dd>
          <dt>Duration</dt>
          <dd data-testid="span-detail-duration">
            {formatDuration((end ?? openEnd) - start)}
            {end === null && " so far"}
          </dd>
          {span.model && (
            <>
              <dt>Model</dt>
              <dd className="mono">{span.model}</dd>
            </>
          )}
          {span.tool && (
            <>
              <dt>Tool</dt>
              <dd className="mono" data-testid="span-detail-tool">
                {span.tool}
              </dd>
            </>
          )}
          {(span.kind === "chat" || span.kind === "run" || span.inputTokens + span.outputTokens > 0) && (
            <>
              <dt>Tokens</dt>
              <dd data-testid="span-detail-tokens">
                {formatNumber(span.inputTokens)} in ({formatNumber(span.cachedInputTokens)} cached) · {formatNumber(span.outputTokens)} out
              </dd>
              <dt>Cost</dt>
              <dd data-testid="span-detail-cost" title={`${span.costUsd} USD`}>
                {formatCost(span.costUsd)}
              </dd>
            </>
          )}
          <dt>Span ID</dt>
          <dd>
            <code>{span.spanId}</code>
          </dd>
        </dl>

        <section className="stack" style={{ gap: 6 }}>
          <h3 className="panel-title">Inputs and outputs</h3>
          <SpanIO key={span.spanId} runId={runId} span={span} />
        </section>

        <section className="stack" style={{ gap: 6 }}>
          <h3 className="panel-title">Attributes</h3>
          <table className="attr-table" data-testid="span-attributes">
            {groups.map((g) => (
              <tbody key={g.name} data-group={g.name}>
                <tr>
                  <th colSpan={2} scope="colgroup">
                    {GROUP_TITLES[g.name][0]} {GROUP_TITLES[g.name][1] && <code>{GROUP_TITLES[g.name][1]}</code>}
                  </th>
                </tr>
                {g.entries.map(([key, value]) => (
                  <tr key={key} data-key={key}>
                    <td className="mono attr-key">{key}</td>
                    <td className="mono attr-value">{String(value)}</td>
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </section>
      </div>
    </aside>
  );
}

function SpanIO({ runId, span }: { runId: string; span: SpanView }) {
  const utils = trpc.useUtils();
  const detail = trpc.traces.span.useQuery({ runId, spanId: span.spanId });
  // A span that ends while it is open here gains its output: read it again.
  const ended = span.endTime !== null;
  const wasEnded = useRef(ended);
  useEffect(() => {
    if (ended && !wasEnded.current) void utils.traces.span.invalidate({ runId, spanId: span.spanId });
    wasEnded.current = ended;
  }, [ended, runId, span.spanId, utils]);

  if (detail.isLoading) {
    return (
      <div className="stack" style={{ gap: 6 }} role="status" aria-label="Loading inputs and outputs">
        <Skeleton width="70%" />
        <Skeleton width="45%" />
      </div>
    );
  }
  if (detail.isError)
    return <ErrorState title="Could not load inputs and outputs" message={errorMessage(detail.error)} onRetry={() => detail.refetch()} />;
  const io = detail.data?.detail;
  if (!io && !KEEPS_IO.has(span.kind)) return <p className="small muted">This kind of span records no inputs or outputs.</p>;
  if (!io) {
    return (
      <p className="small muted" data-testid="span-io-not-kept">
        Inputs and outputs not kept (retention). The span's timing, tokens, cost and attributes remain.
      </p>
    );
  }
  if (io.input === undefined && io.output === undefined) return <p className="small muted">This span has no inputs or outputs.</p>;
  return (
    <div data-testid="span-io">
      {io.input !== undefined && <JsonBlock value={io.input} summary="Input" open testId="span-input" />}
      {io.output !== undefined ? (
        <JsonBlock value={io.output} summary="Output" open testId="span-output" />
      ) : (
        span.endTime === null && <p className="small muted">The output arrives when the span ends.</p>
      )}
    </div>
  );
}
