"use client";
// Compare two runs (/runs/compare?a=<id>&b=<id>): their totals side by side,
// and their steps aligned by number. Steps both runs took alike fold into one
// line ("Steps 1–3 are the same in both runs"); the first step where they
// part is highlighted and scrolled into view; a step only one run took is
// marked. A fork's steps before its fork point are its parent's.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Fragment, useEffect, useRef, useState } from "react";
import { ModelLabel } from "@/components/model-label";
import { StatusBadge } from "@/components/status-badge";
import { EmptyState, ErrorState, Skeleton } from "@/components/ui";
import { formatAgentVersion } from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { formatDuration, formatNumber, formatCost, pluralize } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { compareHref } from "./lineage";
import { callSummary } from "./tool-events";

type Compare = RouterOutputs["runs"]["compare"];
type Totals = Compare["a"];
type Row = Compare["rows"][number];
type Step = NonNullable<Row["a"]>;

const TEXT_CHARS = 280;
const GOAL_CHARS = 120;

function runHref(id: string) {
  return `/runs/${encodeURIComponent(id)}`;
}

function firstLine(goal: string, max = GOAL_CHARS): string {
  const line = goal.trim().split("\n")[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "Steps 1–3", "Step 4". */
function stepsLabel(from: number, to: number): string {
  return from === to ? `Step ${from}` : `Steps ${from}–${to}`;
}

/** A signed difference of b against a, for the totals ("+3", "−1,200"); empty when equal. */
function delta(a: number, b: number, format: (n: number) => string = formatNumber): string {
  const d = b - a;
  if (d === 0 || !Number.isFinite(d)) return "";
  return `${d > 0 ? "+" : "−"}${format(Math.abs(d))}`;
}

export function CompareRuns() {
  const params = useSearchParams();
  const a = params.get("a")?.trim() ?? "";
  const b = params.get("b")?.trim() ?? "";
  return (
    <div className="page page-wide compare-page" data-testid="compare-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Compare runs</h1>
          <p>Two runs side by side, step by step: where they took the same steps, and where they parted.</p>
        </div>
        <span className="spacer" />
        {a && b && (
          <Link href={compareHref(b, a)} className="btn btn-sm" data-testid="compare-swap">
            ⇄ Swap sides
          </Link>
        )}
      </div>
      {!a || !b ? (
        <div className="card">
          <EmptyState title="Pick two runs to compare">
            Open a run that was re-run or forked and follow <strong>Compare</strong> in its lineage, or give two run ids as{" "}
            <code>/runs/compare?a=&lt;run&gt;&amp;b=&lt;run&gt;</code>.
          </EmptyState>
        </div>
      ) : (
        <CompareBody a={a} b={b} />
      )}
    </div>
  );
}

function CompareBody({ a, b }: { a: string; b: string }) {
  const compare = trpc.runs.compare.useQuery(
    { a, b },
    { retry: (n, err) => n < 2 && !/not found|NOT_FOUND|FORBIDDEN/i.test(errorMessage(err)) },
  );
  if (compare.isLoading) {
    return (
      <div className="stack" role="status" aria-label="Loading the comparison">
        <div className="compare-totals-grid">
          <Skeleton height={150} />
          <Skeleton height={150} />
        </div>
        {[60, 80, 45].map((w, i) => (
          <Skeleton key={i} width={`${w}%`} height={40} />
        ))}
      </div>
    );
  }
  if (compare.isError || !compare.data) {
    return (
      <div className="card">
        <ErrorState
          title="The runs cannot be compared"
          message={compare.error ? errorMessage(compare.error) : "No answer from the server."}
          onRetry={() => void compare.refetch()}
        />
      </div>
    );
  }
  return <Comparison data={compare.data} />;
}

function Comparison({ data }: { data: Compare }) {
  const { a, b, rows, firstDivergence } = data;
  const relation =
    b.parentRunId === a.id
      ? `The right run is ${b.lineage === "fork" ? "a fork" : "a re-run"} of the left one.`
      : a.parentRunId === b.id
        ? `The left run is ${a.lineage === "fork" ? "a fork" : "a re-run"} of the right one.`
        : a.id === b.id
          ? "Both sides are the same run."
          : null;
  /** The steps both took alike before they part. */
  const sameBefore = firstDivergence === null ? rows.length : rows.findIndex((r) => !r.same);
  return (
    <div className="stack">
      <section className="compare-totals-grid" aria-label="Totals" data-testid="compare-totals">
        <TotalsCard side="a" label="Left" run={a} other={b} />
        <TotalsCard side="b" label="Right" run={b} other={a} />
      </section>
      <p className="small muted" data-testid="compare-summary">
        {relation ? `${relation} ` : ""}
        {rows.length === 0
          ? "Neither run has taken a step yet."
          : firstDivergence === null
            ? `The runs took the same ${pluralize(rows.length, "step")}.`
            : sameBefore === 0
              ? `The runs differ from their first step.`
              : `The runs took the same ${pluralize(sameBefore, "step")} and part at step ${firstDivergence}.`}
      </p>
      {rows.length > 0 && <StepTable data={data} />}
    </div>
  );
}

function TotalsCard({ side, label, run, other }: { side: "a" | "b"; label: string; run: Totals; other: Totals }) {
  const vs = side === "b";
  return (
    <article className="card compare-card" data-testid={`compare-totals-${side}`} data-run={run.id} aria-label={`${label} run`}>
      <div className="card-body stack" style={{ gap: 8 }}>
        <div className="row" style={{ gap: 8, flexWrap: "wrap" }}>
          <span className="compare-side">{label}</span>
          <StatusBadge status={run.status} testId={`compare-status-${side}`} />
          {run.lineage && run.parentRunId && <span className="badge badge-outline">{run.lineage === "fork" ? "fork" : "re-run"}</span>}
          <span className="spacer" />
          <span className="mono small muted">{run.id}</span>
        </div>
        <Link href={runHref(run.id)} className="compare-goal" title={run.goal} data-testid={`compare-goal-${side}`}>
          {firstLine(run.goal)}
        </Link>
        <div className="small muted row" style={{ gap: 6, flexWrap: "wrap" }}>
          <span>
            <strong>{run.agentName}</strong> {formatAgentVersion(run.agentVersion)}
          </span>
          <span aria-hidden="true">·</span>
          <ModelLabel model={run.model} scripted={run.model.startsWith("scripted")} />
        </div>
        {(run.errorCode || run.errorMessage) && (
          <div className="error-box small" data-testid={`compare-error-${side}`}>
            {run.errorCode && <code>{run.errorCode}</code>}
            {run.errorMessage}
          </div>
        )}
        <dl className="compare-stats">
          <div>
            <dt>Steps</dt>
            <dd data-testid={`compare-steps-${side}`}>
              {formatNumber(run.steps)}
              {vs && <Delta text={delta(other.steps, run.steps)} />}
            </dd>
          </div>
          <div>
            <dt>Tokens in / out</dt>
            <dd data-testid={`compare-tokens-${side}`}>
              {formatNumber(run.inputTokens)} / {formatNumber(run.outputTokens)}
            </dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd data-testid={`compare-cost-${side}`}>
              {formatCost(run.costUsd)}
              {vs && <Delta text={delta(other.costUsd, run.costUsd, formatCost)} />}
            </dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd data-testid={`compare-duration-${side}`}>{formatDuration(run.durationMs)}</dd>
          </div>
        </dl>
      </div>
    </article>
  );
}

function Delta({ text }: { text: string }) {
  if (!text) return null;
  return (
    <span className="compare-delta" title="Against the left run">
      {" "}
      ({text})
    </span>
  );
}

/** Rows in runs: consecutive rows that are the same fold into one group. */
type Group = { kind: "same"; rows: Row[] } | { kind: "row"; row: Row };

function groupRows(rows: Row[]): Group[] {
  const out: Group[] = [];
  for (const row of rows) {
    const last = out[out.length - 1];
    if (row.same && last?.kind === "same") last.rows.push(row);
    else if (row.same) out.push({ kind: "same", rows: [row] });
    else out.push({ kind: "row", row });
  }
  return out;
}

function StepTable({ data }: { data: Compare }) {
  const { a, b, rows, firstDivergence } = data;
  const [open, setOpen] = useState<Set<number>>(new Set());
  const divergenceRef = useRef<HTMLTableRowElement>(null);
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !divergenceRef.current) return;
    scrolled.current = true;
    divergenceRef.current.scrollIntoView({ block: "center" });
  }, [firstDivergence]);
  const groups = groupRows(rows);
  const toggle = (first: number) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(first)) next.delete(first);
      else next.add(first);
      return next;
    });
  return (
    <div className="card table-wrap">
      <table className="table compare-table" aria-label="Steps side by side">
        <colgroup>
          <col style={{ width: 84 }} />
          <col />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">
              Left · <span className="muted">{firstLine(a.goal, 60)}</span>
            </th>
            <th scope="col">
              Right · <span className="muted">{firstLine(b.goal, 60)}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => {
            if (g.kind === "row") {
              return (
                <StepRow
                  key={g.row.step}
                  row={g.row}
                  a={a}
                  b={b}
                  first={g.row.step === firstDivergence}
                  rowRef={g.row.step === firstDivergence ? divergenceRef : undefined}
                />
              );
            }
            const from = g.rows[0].step;
            const to = g.rows[g.rows.length - 1].step;
            const expanded = open.has(from);
            const bodyId = `same-${from}`;
            return (
              <Fragment key={`same-${from}`}>
                <tr className="compare-same-group" data-testid="compare-same-group" data-from={from} data-to={to}>
                  <td colSpan={3}>
                    <button
                      type="button"
                      className="btn-link compare-same-toggle"
                      aria-expanded={expanded}
                      aria-controls={bodyId}
                      onClick={() => toggle(from)}
                      data-testid="compare-same-toggle"
                    >
                      <span aria-hidden="true">{expanded ? "▾" : "▸"}</span> {stepsLabel(from, to)} {from === to ? "is" : "are"} the same in
                      both runs
                      <span className="muted"> · {expanded ? "hide" : "show"}</span>
                    </button>
                  </td>
                </tr>
                {expanded &&
                  g.rows.map((r) => (
                    <StepRow key={r.step} row={r} a={a} b={b} first={false} groupId={r.step === from ? bodyId : undefined} />
                  ))}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function StepRow({
  row,
  a,
  b,
  first,
  rowRef,
  groupId,
}: {
  row: Row;
  a: Totals;
  b: Totals;
  first: boolean;
  rowRef?: React.Ref<HTMLTableRowElement>;
  groupId?: string;
}) {
  const only = row.a && !row.b ? "a" : row.b && !row.a ? "b" : undefined;
  const cls = ["compare-row", row.same ? "is-same" : "is-different", first ? "is-first-divergence" : "", only ? `only-${only}` : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <tr
      ref={rowRef}
      id={groupId}
      className={cls}
      data-testid="compare-row"
      data-step={row.step}
      data-same={row.same}
      data-only={only}
      tabIndex={first ? -1 : undefined}
    >
      <th scope="row" className="compare-step">
        <span className="mono">{row.step}</span>
        {first && (
          <span className="badge compare-first" data-testid="first-divergence" data-step={row.step}>
            First difference
          </span>
        )}
        {only && <span className="badge badge-outline compare-only">only {only === "a" ? "left" : "right"}</span>}
      </th>
      <td>
        <StepCell step={row.a} run={a} />
      </td>
      <td>
        <StepCell step={row.b} run={b} />
      </td>
    </tr>
  );
}

/** A person's decision on a call, as a past-tense word. */
function askedWord(state: string): string {
  return (
    ({ APPROVED: "approved", REJECTED: "rejected", EXPIRED: "(expired)", CANCELED: "(canceled)" } as Record<string, string>)[state] ??
    state.toLowerCase()
  );
}

function StepCell({ step, run }: { step: Step | null; run: Totals }) {
  const [expanded, setExpanded] = useState(false);
  if (!step) return <span className="muted small">No such step in this run.</span>;
  const text = step.text.trim();
  const long = text.length > TEXT_CHARS;
  const shown = long && !expanded ? `${text.slice(0, TEXT_CHARS - 1).trimEnd()}…` : text;
  const inherited = step.runId !== run.id;
  return (
    <div className="compare-cell" data-testid="compare-step">
      <div className="small muted row" style={{ gap: 6, flexWrap: "wrap" }}>
        <strong style={{ color: "var(--text-2)" }}>{step.agent}</strong>
        <span>
          {formatNumber(step.usage.inputTokens)} in · {formatNumber(step.usage.outputTokens)} out · {formatDuration(step.durationMs)}
        </span>
        {inherited && (
          <span title={`Taken in run ${step.runId}, before this run was forked from it`}>
            · from <Link href={runHref(step.runId)}>its parent</Link>
          </span>
        )}
      </div>
      {text ? (
        <div className="compare-text" data-testid="compare-text">
          {shown}
          {long && (
            <>
              {" "}
              <button type="button" className="btn-link small" aria-expanded={expanded} onClick={() => setExpanded((v) => !v)}>
                {expanded ? "Show less" : "Show all"}
              </button>
            </>
          )}
        </div>
      ) : (
        <div className="muted small">No text; tool calls only.</div>
      )}
      {step.toolCalls.length > 0 && (
        <ul className="compare-calls" aria-label="Tool calls">
          {step.toolCalls.map((c, i) => {
            const summary = callSummary(c.tool, c.args);
            const state = c.ok === true ? "ok" : c.ok === false ? "failed" : "pending";
            const outcome = (
              <span className="compare-call-state" aria-label={state === "ok" ? "succeeded" : state === "failed" ? "failed" : "no result"}>
                {state === "ok" ? "✓" : state === "failed" ? "✗" : "…"}
              </span>
            );
            return (
              <li
                key={i}
                className={`call-chip compare-call call-${state}`}
                data-testid="compare-call"
                data-ok={state}
                title={c.error ?? summary ?? c.tool}
              >
                {!c.asked && outcome}
                <strong className="mono">{c.tool}</strong>
                {summary && <code className="muted">{summary}</code>}
                {c.asked && (
                  <>
                    {/* In the order it happened: the call, the question, the decision, then the result. */}
                    <span className="muted small" data-testid="compare-asked">
                      asked a person → {c.asked.byName} {askedWord(c.asked.state)} →
                    </span>
                    {outcome}
                  </>
                )}
                {state === "failed" && <span className="sr-only">failed{c.error ? `: ${c.error}` : ""}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
