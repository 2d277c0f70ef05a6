"use client";
// The experiment page's header: what ran (dataset, agent, model, epochs,
// team), its status and why, the live progress while it goes, and the actions.
import Link from "next/link";
import { StatusBadge } from "@/components/status-badge";
import { formatDateTime, formatDuration, formatRelative, formatCost } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { CompareWith } from "./compare-with";
import { ExperimentActions } from "./experiment-actions";
import { ExperimentProgress } from "./experiment-progress";
import { agentText, datasetHref, isActive, type ExperimentView } from "./types";
import styles from "./experiments.module.css";

export function ExperimentHeader({ experiment: e, updating }: { experiment: ExperimentView; updating: boolean }) {
  const active = isActive(e.status);
  const now = useNow(1000, active);
  const ran = e.startedAt ? (e.endedAt ?? new Date(now)).getTime() - e.startedAt.getTime() : null;
  return (
    <div className="stack" style={{ gap: 16, marginBottom: 16 }}>
      <nav className={styles.crumbs} aria-label="Breadcrumb">
        <Link href="/evals">Evals</Link>
        <span aria-hidden="true">›</span>
        <Link href="/evals/experiments">Experiments</Link>
      </nav>
      <div className={styles.header}>
        <div style={{ flex: 1, minWidth: 280 }}>
          <div className="row" style={{ flexWrap: "wrap" }}>
            <h1 data-testid="experiment-name">{e.name}</h1>
            <StatusBadge status={e.status} testId="experiment-page-status" />
          </div>
          <dl className={styles.facts}>
            <div>
              <dt>Dataset</dt>
              <dd>
                <Link href={datasetHref(e.dataset.id)} data-testid="experiment-dataset-link">
                  {e.dataset.name}
                </Link>
              </dd>
            </div>
            <div>
              <dt>Agent</dt>
              <dd className={e.agent ? "mono" : undefined} data-testid="experiment-agent">
                {agentText(e)}
              </dd>
            </div>
            <div>
              <dt>Model</dt>
              <dd>{e.model ? <span className="mono">{e.model}</span> : "the agent's own"}</dd>
            </div>
            <div>
              <dt>Epochs</dt>
              <dd>{e.epochs}</dd>
            </div>
            <div>
              <dt>Concurrency</dt>
              <dd>{e.concurrency}</dd>
            </div>
            <div>
              <dt>Team</dt>
              <dd>{e.team?.name ?? "none"}</dd>
            </div>
            {e.createdBy && (
              <div>
                <dt>Started by</dt>
                <dd>{e.createdBy.name}</dd>
              </div>
            )}
            <div>
              <dt>{e.startedAt ? "Started" : "Created"}</dt>
              <dd title={formatDateTime(e.startedAt ?? e.createdAt)}>{formatRelative(e.startedAt ?? e.createdAt, now)}</dd>
            </div>
            {ran !== null && (
              <div>
                <dt>{e.endedAt ? "Took" : "Running for"}</dt>
                <dd>{formatDuration(ran)}</dd>
              </div>
            )}
          </dl>
        </div>
        <div className="stack" style={{ gap: 8, alignItems: "flex-end" }}>
          <ExperimentActions experiment={e} />
          <CompareWith experiment={e} />
        </div>
      </div>
      {e.statusReason && (
        <div
          className={`alert ${e.status === "failed" ? "alert-error" : e.status === "canceled" ? "alert-warn" : "alert-info"}`}
          data-testid="experiment-reason"
        >
          {e.statusReason}
        </div>
      )}
      <div className="card card-body stack" style={{ gap: 8 }} data-testid="experiment-live" data-active={active}>
        <div className="row">
          <h2>{active ? "Progress" : "Trials"}</h2>
          {active && (
            <span className="small muted row" style={{ gap: 6 }}>
              {updating && <span className="spinner" aria-hidden="true" />} updating live
            </span>
          )}
          <span className="spacer" />
          <span className="small" data-testid="experiment-cost-so-far">
            {active ? "Cost so far" : "Cost"} <strong>{formatCost(e.progress.costUsd)}</strong>
          </span>
        </div>
        <ExperimentProgress progress={e.progress} large legend testId="experiment-progress" />
      </div>
    </div>
  );
}
