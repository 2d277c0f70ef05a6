"use client";
// Experiments (Evals): every experiment I may see, or one dataset's, with its
// live progress; pick two or more of one dataset, one the baseline, to
// Compare them; operators start new ones.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { percent } from "@/components/costs/chart-format";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { compareHref, trialPassRate } from "@/lib/eval-format";
import { formatDateTime, formatRelative, formatCost, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { ExperimentProgress } from "./experiment-progress";
import { NewExperimentDialog } from "./new-experiment-dialog";
import { agentText, datasetHref, experimentHref, isActive, type ExperimentView } from "./types";
import styles from "./experiments.module.css";

/** What the server compares at once (server/evals/compare.ts MAX_COMPARED). */
const MAX_COMPARED = 5;
const DEMO_DATASET = "demo-coding";

export function ExperimentsSection({ datasetId }: { datasetId?: string }) {
  const router = useRouter();
  const { canOperate, isLoading: meLoading } = useMe();
  const list = trpc.evals.experiments.list.useQuery(
    { datasetId, limit: 100 },
    { refetchInterval: (q) => (q.state.data?.some((e) => isActive(e.status)) ? 2000 : false) },
  );
  const [dialog, setDialog] = useState<{ open: boolean; datasetId?: string }>({ open: false });
  const [selected, setSelected] = useState<string[]>([]);
  const [baseline, setBaseline] = useState<string | null>(null);
  const now = useNow(30_000);
  const experiments = list.data ?? [];
  const chosen = experiments.filter((e) => selected.includes(e.id));
  const marked = baseline && selected.includes(baseline) ? baseline : null;
  // Unmarked, the baseline is the oldest selected, as Compare takes it.
  const oldest = [...chosen].sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime())[0]?.id ?? null;
  const baselineId = marked ?? oldest;
  const compareProblem =
    chosen.length < 2
      ? "Select two or more experiments of one dataset"
      : chosen.length > MAX_COMPARED
        ? `Compare takes at most ${MAX_COMPARED} experiments at once`
        : new Set(chosen.map((e) => e.dataset.id)).size > 1
          ? "Only experiments of one dataset compare; select experiments of the same dataset"
          : null;

  function toggle(id: string) {
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  }

  const newButton = canOperate ? (
    <button type="button" className="btn btn-primary" onClick={() => setDialog({ open: true, datasetId })} data-testid="experiment-new">
      <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
        +
      </span>{" "}
      New experiment
    </button>
  ) : (
    !meLoading && (
      <button type="button" className="btn btn-primary" disabled title={`${OPERATOR_HINT}; you are a viewer`}>
        + New experiment
      </button>
    )
  );

  return (
    <section className="card" aria-labelledby="experiments-title" data-testid="experiments-section">
      <div className="card-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h2 id="experiments-title">{datasetId ? "Experiments of this dataset" : "Experiments"}</h2>
          <span className="small muted">Each runs a dataset&apos;s items with one agent version and model, and scores every run.</span>
        </div>
        {newButton}
      </div>
      {experiments.length > 0 && (
        <div className={styles.toolbar} data-testid="experiments-toolbar">
          {selected.length === 0 ? (
            <span className="small muted">
              Select two or more experiments of one dataset to compare them; the others are measured against the baseline, the oldest unless
              you mark another.
            </span>
          ) : (
            <span className="small">
              {pluralize(selected.length, "experiment")} selected
              {baselineId && chosen.length > 0 && (
                <>
                  {" "}
                  · baseline <strong>{experiments.find((e) => e.id === baselineId)?.name}</strong>
                  {marked ? "" : " (the oldest)"}
                </>
              )}
            </span>
          )}
          <span className="spacer" />
          {selected.length > 0 && (
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setSelected([])}>
              Clear
            </button>
          )}
          <button
            type="button"
            className="btn btn-sm"
            disabled={!!compareProblem || !baselineId}
            title={compareProblem ?? "Compare the selected experiments with the baseline"}
            onClick={() => router.push(compareHref(selected, marked))}
            data-testid="experiments-compare"
          >
            Compare
          </button>
        </div>
      )}
      <PageShell query={list} loading={<SkeletonRows rows={4} columns={7} />} failed="Could not load the experiments">
        {() =>
          experiments.length === 0 ? (
            <NoExperiments
              canOperate={canOperate}
              forDataset={!!datasetId}
              onStart={(id) => setDialog({ open: true, datasetId: id ?? datasetId })}
            />
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="experiments-table">
                <thead>
                  <tr>
                    <th scope="col">
                      <span className="sr-only">Select to compare</span>
                    </th>
                    <th scope="col">Name</th>
                    {!datasetId && <th scope="col">Dataset</th>}
                    <th scope="col">Agent</th>
                    <th scope="col">Model</th>
                    <th scope="col">Status</th>
                    <th scope="col">Progress</th>
                    <th scope="col" className="num">
                      Pass rate
                    </th>
                    <th scope="col" className="num">
                      Cost
                    </th>
                    <th scope="col">Started</th>
                  </tr>
                </thead>
                <tbody>
                  {experiments.map((e) => (
                    <ExperimentRow
                      key={e.id}
                      experiment={e}
                      showDataset={!datasetId}
                      selected={selected.includes(e.id)}
                      isBaseline={marked === e.id}
                      onToggle={() => toggle(e.id)}
                      onBaseline={() => setBaseline(e.id)}
                      now={now}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </PageShell>
      <NewExperimentDialog
        open={dialog.open}
        datasetId={dialog.datasetId}
        onClose={() => setDialog({ open: false })}
        onStarted={(id) => {
          setDialog({ open: false });
          router.push(experimentHref(id));
        }}
      />
    </section>
  );
}

function ExperimentRow({
  experiment: e,
  showDataset,
  selected,
  isBaseline,
  onToggle,
  onBaseline,
  now,
}: {
  experiment: ExperimentView;
  showDataset: boolean;
  selected: boolean;
  isBaseline: boolean;
  onToggle(): void;
  onBaseline(): void;
  now: number;
}) {
  const rate = trialPassRate(e.progress);
  const started = e.startedAt ?? e.createdAt;
  return (
    <tr
      className={selected ? styles.selectedRow : undefined}
      data-testid="experiment-row"
      data-list-row
      data-experiment={e.id}
      data-status={e.status}
    >
      <td className="nowrap">
        <label className="checkbox" title="Select to compare">
          <input
            type="checkbox"
            checked={selected}
            onChange={onToggle}
            aria-label={`Select ${e.name} to compare`}
            data-testid="experiment-select"
          />
        </label>
        {selected && (
          <label className="checkbox small" style={{ marginLeft: 10 }}>
            <input type="radio" name="experiments-baseline" checked={isBaseline} onChange={onBaseline} data-testid="experiment-baseline" />
            Baseline
          </label>
        )}
      </td>
      <td>
        <Link href={experimentHref(e.id)} className={styles.nameLink} data-list-open data-testid="experiment-open">
          {e.name}
        </Link>
        {e.team && <div className="small muted">{e.team.name}</div>}
      </td>
      {showDataset && (
        <td>
          <Link href={datasetHref(e.dataset.id)}>{e.dataset.name}</Link>
        </td>
      )}
      <td className={e.agent ? "mono" : "muted"}>{agentText(e)}</td>
      <td>{e.model ? <span className="mono">{e.model}</span> : <span className="muted">agent&apos;s own</span>}</td>
      <td>
        <StatusBadge status={e.status} testId="experiment-status" />
      </td>
      <td>
        <ExperimentProgress progress={e.progress} />
      </td>
      <td className="num" title="Trials that passed, of those scored">
        {rate === null ? <span className="muted">—</span> : percent(rate)}
      </td>
      <td className="num">{formatCost(e.progress.costUsd)}</td>
      <td className="nowrap">
        <span title={formatDateTime(started)}>{formatRelative(started, now)}</span>
        {e.createdBy && <div className="small muted">{e.createdBy.name}</div>}
      </td>
    </tr>
  );
}

function NoExperiments({
  canOperate,
  forDataset,
  onStart,
}: {
  canOperate: boolean;
  forDataset: boolean;
  onStart(datasetId?: string): void;
}) {
  const datasets = trpc.evals.datasets.list.useQuery(undefined, { staleTime: 60_000, enabled: canOperate && !forDataset });
  const demo = datasets.data?.find((d) => d.name === DEMO_DATASET && !d.archived);
  return (
    <EmptyState
      icon="⚗"
      title="No experiments yet"
      action={
        canOperate ? (
          <div className="row" style={{ justifyContent: "center", flexWrap: "wrap" }}>
            {demo && (
              <button type="button" className="btn btn-primary" onClick={() => onStart(demo.id)} data-testid="experiment-try-demo">
                Run the {DEMO_DATASET} dataset
              </button>
            )}
            <button type="button" className={demo ? "btn" : "btn btn-primary"} onClick={() => onStart()}>
              {forDataset ? "Run this dataset" : "Pick a dataset"}
            </button>
          </div>
        ) : undefined
      }
    >
      An experiment runs every item of a dataset as a real run, with one agent version and model (or each item&apos;s own agent), as many
      times as you ask, and scores each run. Its results say how often the agent passes, what it costs and which items are flaky; Compare
      puts two experiments side by side.
      {canOperate
        ? ` The built-in ${DEMO_DATASET} dataset needs no provider key.`
        : ` ${OPERATOR_HINT}; experiments appear here once an operator starts one.`}
    </EmptyState>
  );
}
