"use client";
// The run a "Try it" started, beside the editor: its status and the live
// timeline (the run page's own), with a link to the full run page.
import Link from "next/link";
import { useCallback, useMemo, useRef } from "react";
import { Timeline } from "@/components/run/timeline";
import { ErrorState, Skeleton } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { errorMessage } from "@/lib/errors";
import { latest, type TimelineEvent } from "@/lib/run-events";
import { trpc } from "@/lib/trpc";
import { useRunEvents } from "@/lib/use-run-events";
import styles from "./agents.module.css";

/** Events after which the run's summary (status, steps) has changed. */
const SUMMARY_EVENTS = new Set(["run.state", "model.turn", "run.control", "run.resumed", "human.decided"]);

export function TryRunPane({ runId, onClose }: { runId: string; onClose(): void }) {
  const utils = trpc.useUtils();
  const run = trpc.runs.get.useQuery({ id: runId });
  const refetch = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onNew = useCallback(
    (events: TimelineEvent[]) => {
      if (!events.some((e) => SUMMARY_EVENTS.has(e.type)) || refetch.current) return;
      refetch.current = setTimeout(() => {
        refetch.current = null;
        void utils.runs.get.invalidate({ id: runId });
      }, 200);
    },
    [runId, utils],
  );
  const live = useRunEvents(runId, onNew);
  const lastState = useMemo(() => latest(live.events, "run.state"), [live.events]);
  const status = lastState?.payload.to ?? run.data?.status;

  return (
    <section className={`card ${styles.runPane}`} aria-label="Draft run" data-testid="try-run-pane" data-status={status}>
      <div className={styles.runPaneHead}>
        <strong>Run</strong>
        {status && <StatusBadge status={status} testId="try-run-status" />}
        <span className={styles.draftNote} data-testid="try-run-draft-note">
          Draft — not saved as a version
        </span>
        <span className="spacer" />
        <Link href={`/runs/${encodeURIComponent(runId)}`} target="_blank" rel="noopener" className="btn btn-sm" data-testid="try-run-open">
          Open run page ↗
        </Link>
        <button
          type="button"
          className="btn btn-sm btn-ghost"
          onClick={onClose}
          aria-label="Close the run pane"
          title="Close (the run goes on)"
        >
          ✕
        </button>
      </div>
      {run.data?.goal && (
        <p className="small muted" style={{ padding: "6px 14px 0" }}>
          Goal: {run.data.goal}
        </p>
      )}
      <div className={styles.runPaneBody}>
        {run.isLoading ? (
          <div className="stack" style={{ padding: 12 }}>
            <Skeleton width="50%" />
            <Skeleton width="80%" height={40} />
          </div>
        ) : run.isError || !run.data || !status ? (
          <ErrorState
            title="Could not load the run"
            message={run.error ? errorMessage(run.error) : "No data"}
            onRetry={() => run.refetch()}
          />
        ) : (
          <Timeline run={run.data} status={status} live={live} />
        )}
      </div>
    </section>
  );
}
