"use client";
// The change's check runs (its repository's test command on a clean checkout),
// newest first; the chosen one's log below (the newest until another is
// chosen). Operators run them again.
import { useEffect, useRef, useState } from "react";
import { ErrorBlock, PageShell, Skeleton } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatDuration, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import type { ChangeDetail } from "./format";
import styles from "./changes.module.css";

const CHECK_STATES: Record<string, { label: string; badge: string }> = {
  running: { label: "running", badge: "status-running" },
  passed: { label: "passed", badge: "badge-ok" },
  failed: { label: "failed", badge: "badge-error" },
  timed_out: { label: "timed out", badge: "badge-error" },
  error: { label: "could not run", badge: "badge-error" },
};

/** The kinds of check run, in words. */
const KIND_WORDS: Record<string, string> = { tests: "tests", before: "tests on the base", eval: "eval" };

export function ChangeChecks({ change, onChanged }: { change: ChangeDetail; onChanged(): void }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const checks = change.checkRuns;
  const check = checks.find((c) => c.id === chosen) ?? checks[0];
  const rerun = trpc.changes.rerunChecks.useMutation({
    onMutate: () => setError(null),
    onError: (err) => setError(errorMessage(err)),
    onSettled: onChanged,
  });
  const canRerun = change.you.mayRerun && !rerun.isPending;
  const now = useNow(30_000);

  return (
    <section className="card" aria-labelledby="change-checks-title" data-testid="change-checks">
      <div className="card-header">
        <h2 id="change-checks-title" style={{ flex: 1 }}>
          Checks <span className="small muted mono">{change.repository.testCommand}</span>
        </h2>
        {(change.state === "checks_failed" || change.state === "awaiting_review") && (
          <button
            type="button"
            className="btn btn-sm"
            disabled={!canRerun}
            title={
              change.you.mayRerun
                ? "Run the tests again on the proposed commit"
                : "Running the checks again needs the operator role in its team"
            }
            onClick={() => rerun.mutate({ id: change.id })}
            data-testid="change-rerun"
          >
            {rerun.isPending && <span className="spinner" aria-hidden="true" />}
            {rerun.isPending ? "Running…" : "Re-run checks"}
          </button>
        )}
      </div>
      <ErrorBlock message={error} style={{ margin: "0 16px 12px" }} testId="change-rerun-error" />
      {change.fix && (
        <p
          className={`${styles.fix} small alert ${change.fix.verdict === "shown" ? "alert-success" : change.fix.verdict === "pending" ? "alert-info" : "alert-warn"}`}
          role="status"
          data-testid="change-fix"
          data-verdict={change.fix.verdict}
        >
          <span>
            <strong>Before and after:</strong> {change.fix.words}
          </span>
        </p>
      )}
      {change.evalGate.note && (
        <p className="small muted" style={{ margin: "0 16px 12px" }} data-testid="change-eval-gate">
          {change.evalGate.note}
        </p>
      )}
      {checks.length === 0 ? (
        <p className={`${styles.cardBody} small muted`}>
          {change.headCommit ? "No check has run yet." : "The checks run once the agent proposes its change."}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">State</th>
                  <th scope="col" className="num">
                    Exit
                  </th>
                  <th scope="col" className="num">
                    Took
                  </th>
                  <th scope="col">Started</th>
                </tr>
              </thead>
              <tbody>
                {checks.map((c) => {
                  const s = CHECK_STATES[c.state] ?? { label: c.state, badge: "" };
                  return (
                    <tr key={c.id} className={styles.checkRow} data-selected={c === check} data-testid="check-run" data-state={c.state}>
                      <td>
                        <button
                          type="button"
                          className="btn-link"
                          aria-pressed={c === check}
                          aria-label={`Show the log of the ${c.kind} started ${formatDateTime(c.startedAt)}`}
                          onClick={() => setChosen(c.id)}
                          data-testid="check-run-open"
                        >
                          {KIND_WORDS[c.kind] ?? c.kind}
                        </button>
                      </td>
                      <td>
                        <span className={`badge ${s.badge}`} data-testid="check-run-state">
                          {s.label}
                        </span>
                      </td>
                      <td className="num mono">{c.exitCode ?? "—"}</td>
                      <td className="num small">{c.state === "running" ? "…" : formatDuration(c.durationMs)}</td>
                      <td className="small nowrap" title={formatDateTime(c.startedAt)}>
                        {formatRelative(c.startedAt, now)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {check && <CheckLog changeId={change.id} checkId={check.id} running={check.state === "running"} />}
        </>
      )}
    </section>
  );
}

function CheckLog({ changeId, checkId, running }: { changeId: string; checkId: string; running: boolean }) {
  const log = trpc.changes.checkLog.useQuery({ id: changeId, checkId }, { refetchInterval: running ? 1_500 : false });
  // The check ended since the log was last read: read it once more, for its last lines.
  const wasRunning = useRef(running);
  const { refetch } = log;
  useEffect(() => {
    if (wasRunning.current && !running) void refetch();
    wasRunning.current = running;
  }, [running, refetch]);
  return (
    <PageShell
      query={log}
      loading={
        <div className={styles.cardBody} role="status" aria-label="Loading the log">
          <Skeleton height={80} />
        </div>
      }
      failed="Could not load the log"
    >
      {(data) => (
        <pre className={`code-block ${styles.log}`} tabIndex={0} aria-label="Check log" data-testid="check-log">
          {data.log || (running ? "Waiting for output…" : "(no output)")}
        </pre>
      )}
    </PageShell>
  );
}
