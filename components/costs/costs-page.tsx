"use client";
// Costs (docs/traces-and-costs.md#costs): what model calls cost over a time
// range, by team, workflow or model; tokens by model; runs by outcome
// (costs.summary); then tool success, latency, human requests and budget
// burn-down (costs.health). Every figure comes from rollups, run counts and
// human requests, never spans. Skeletons hold each place while its figures or
// its chart's code load.
import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { EmptyState, PageShell, Skeleton } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { formatNumber, formatTokens, formatCost } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { exactUsd } from "./chart-format";
import { GroupsTable } from "./groups-table";
import { HealthSections } from "./health-sections";
import { ZeroCostNote } from "./zero-cost-note";
import { CostChart, OutcomeChart, TokensChart } from "./lazy-charts";
import styles from "./costs.module.css";

type Summary = RouterOutputs["costs"]["summary"];
type GroupBy = Summary["groupBy"];

const RANGES = [7, 30, 90] as const;
const GROUP_BYS: Array<{ value: GroupBy; label: string }> = [
  { value: "team", label: "Team" },
  { value: "workflow", label: "Workflow" },
  { value: "model", label: "Model" },
];

/** The last `days` UTC days, today included (the rollups are per UTC day). */
function rangeOf(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

function Segmented<T extends string | number>({
  label,
  options,
  value,
  onChange,
  testId,
}: {
  label: string;
  options: Array<{ value: T; label: string }>;
  value: T;
  onChange(v: T): void;
  testId: string;
}) {
  return (
    <div className={styles.segmented} role="group" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          className={styles.segment}
          aria-pressed={o.value === value}
          onClick={() => onChange(o.value)}
          data-testid={`${testId}-${o.value}`}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

export function CostsPage() {
  const [days, setDays] = useState<(typeof RANGES)[number]>(30);
  const [groupBy, setGroupBy] = useState<GroupBy>("team");
  // The range is fixed when it is picked, so a refetch asks for the same days.
  const range = useMemo(() => rangeOf(days), [days]);
  const summary = trpc.costs.summary.useQuery({ ...range, groupBy }, { placeholderData: keepPreviousData, refetchInterval: 60_000 });

  return (
    <div className="page page-wide">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Costs</h1>
          <p>What model calls cost, from the price table, per UTC day.</p>
        </div>
        <span className="spacer" />
        {summary.isFetching && !summary.isLoading && <span className="spinner" aria-label="Updating" />}
        <Segmented<(typeof RANGES)[number]>
          label="Time range"
          options={RANGES.map((d) => ({ value: d, label: `${d} days` }))}
          value={days}
          onChange={setDays}
          testId="range"
        />
      </div>
      <PageShell query={summary} loading={<Loading />} failed="Could not load the costs">
        {(data) => <Dashboard summary={data} groupBy={groupBy} onGroupBy={setGroupBy} />}
      </PageShell>
      <div style={{ height: 16 }} />
      <HealthSections range={range} />
    </div>
  );
}

function Loading() {
  return (
    <div className="stack" style={{ gap: 16 }} role="status" aria-label="Loading">
      <div className={styles.totals}>
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className="card card-body">
            <Skeleton width={90} />
            <div style={{ height: 10 }} />
            <Skeleton width={140} height={28} />
          </div>
        ))}
      </div>
      <div className="card card-body">
        <Skeleton height={260} />
      </div>
    </div>
  );
}

function Dashboard({ summary, groupBy, onGroupBy }: { summary: Summary; groupBy: GroupBy; onGroupBy(g: GroupBy): void }) {
  const { me } = useMe();
  const { totals } = summary;
  const empty = totals.calls === 0 && totals.runs === 0;
  return (
    <div className="stack" style={{ gap: 16 }}>
      {summary.scope === "teams" && (
        <div className="small muted" data-testid="costs-scope">
          Showing your teams only. Admins see every team, and runs without a team.
        </div>
      )}
      {summary.unpricedModels.length > 0 && (
        <div className="alert alert-warn" data-testid="costs-unpriced">
          <div>
            No price for{" "}
            {summary.unpricedModels.map((m) => (
              <code key={m} style={{ marginRight: 6 }}>
                {m}
              </code>
            ))}
            : their calls count as $0 here.{" "}
            {roleAtLeast(me?.role, "admin") ? (
              <Link href="/settings/prices">Set prices</Link>
            ) : (
              "An admin can set prices in Settings › Prices."
            )}
          </div>
        </div>
      )}
      <div className={styles.totals}>
        <Total label="Cost" value={formatCost(totals.costUsd)} title={exactUsd(totals.costUsd)} testId="total-cost" />
        <Total label="Model calls" value={formatNumber(totals.calls)} testId="total-calls" />
        <Total
          label="Tokens"
          value={formatTokens(totals.inputTokens + totals.outputTokens)}
          note={`${formatTokens(totals.inputTokens)} in (${formatTokens(totals.cachedInputTokens)} cached) · ${formatTokens(totals.outputTokens)} out`}
          testId="total-tokens"
        />
        <Total label="Runs" value={formatNumber(totals.runs)} note="started in the range" testId="total-runs" />
      </div>
      {empty ? (
        <div className="card">
          <EmptyState icon="$" title="Nothing in this range">
            No run made a model call between {summary.from} and {summary.to}. Pick a longer range, or launch a run.
          </EmptyState>
          <div className="card-body">
            <ZeroCostNote hasCalls={false} />
          </div>
        </div>
      ) : (
        <>
          <div className="card">
            <div className="card-header">
              <h2>Cost per day</h2>
              <span className="spacer" />
              <Segmented<GroupBy> label="Group by" options={GROUP_BYS} value={groupBy} onChange={onGroupBy} testId="group-by" />
            </div>
            <div className="card-body">
              {/* A flat line at $0 says nothing; say why instead (tokens and outcomes below still show). */}
              {totals.costUsd === 0 ? <ZeroCostNote hasCalls={totals.calls > 0} /> : <CostChart series={summary.series} />}
            </div>
            <GroupsTable summary={summary} />
          </div>
          <div className={styles.pair}>
            <div className="card">
              <div className="card-header">
                <h2>Tokens by model</h2>
              </div>
              <div className="card-body">
                {summary.tokensByModel.length ? (
                  <TokensChart models={summary.tokensByModel} />
                ) : (
                  <p className="muted">No model calls in this range.</p>
                )}
              </div>
            </div>
            <div className="card">
              <div className="card-header">
                <h2>Runs by outcome</h2>
              </div>
              <div className="card-body">
                {summary.runsByOutcome.length ? (
                  <OutcomeChart outcomes={summary.runsByOutcome} />
                ) : (
                  <p className="muted">No runs started in this range.</p>
                )}
              </div>
            </div>
          </div>
        </>
      )}
    </div>
  );
}

function Total({ label, value, note, title, testId }: { label: string; value: string; note?: string; title?: string; testId: string }) {
  return (
    <div className="card card-body">
      <div className={styles.totalLabel}>{label}</div>
      <div className={styles.totalValue} title={title} data-testid={testId}>
        {value}
      </div>
      {note && <div className="small muted">{note}</div>}
    </div>
  );
}
