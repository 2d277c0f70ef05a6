"use client";
// One change request (docs/changes.md): what the agent changed and
// why, where (repository, branch, base → head, the merge and revert commits),
// the run that wrote it, the files by risk, the diff, the checks and the
// review. It polls while the agent works or the checks run.
import Link from "next/link";
import { useState } from "react";
import { ConfirmAction, EmptyState, PageShell, RequiredMark, Skeleton } from "@/components/ui";
import { ModelLabel } from "@/components/model-label";
import { StatusBadge } from "@/components/status-badge";
import { errorCode } from "@/lib/errors";
import { formatDateTime, formatCost, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { ChangeChecks } from "./change-checks";
import { ChangeConversation } from "./change-conversation";
import { ChangeDiff, diffHref } from "./change-diff";
import { ChangeReview } from "./change-review";
import { diffStatText, isChangeBusy, modelText, runHref, shortSha, type ChangeDetail } from "./format";
import { ChangeStateBadge } from "./state-badge";
import styles from "./changes.module.css";

const POLL_BUSY_MS = 1_500;
const POLL_IDLE_MS = 10_000;

export function ChangePage({ id }: { id: string }) {
  const utils = trpc.useUtils();
  const q = trpc.changes.get.useQuery(
    { id },
    {
      refetchInterval: (query) => (query.state.data && isChangeBusy(query.state.data.state) ? POLL_BUSY_MS : POLL_IDLE_MS),
      retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2,
    },
  );
  const refresh = () => {
    void utils.changes.get.invalidate({ id });
    void utils.changes.list.invalidate();
  };
  return (
    <PageShell
      query={q}
      loading={
        <div className="page page-wide" role="status" aria-label="Loading the change request">
          <Skeleton width={320} height={28} />
          <div style={{ height: 12 }} />
          <Skeleton height={160} />
        </div>
      }
      failed="Could not load the change request"
      notFound={() => (
        <EmptyState
          icon="?"
          title="No such change request"
          action={
            <Link href="/improvements/changes" className="btn">
              All changes
            </Link>
          }
        >
          It does not exist, or it belongs to a team you are not in.
        </EmptyState>
      )}
      frame={(problem) => <div className="page page-wide">{problem}</div>}
    >
      {(c) => (
        <div className="page page-wide" data-testid="change-page" data-change={c.id} data-state={c.state}>
          <Header change={c} onChanged={refresh} />
          <div className={`${styles.grid} ${styles.section}`}>
            <ChangeReview change={c} onChanged={refresh} />
            <ChangeChecks change={c} onChanged={refresh} />
            <Files change={c} />
            <AuthorRun change={c} />
            {c.friction && <Friction change={c} />}
          </div>
          <ChangeConversation change={c} onChanged={refresh} />
          <ChangeDiff change={c} />
        </div>
      )}
    </PageShell>
  );
}

function Header({ change: c, onChanged }: { change: ChangeDetail; onChanged(): void }) {
  return (
    <div className="page-header">
      <div className="page-title-block" style={{ flex: 1, minWidth: 0 }}>
        <span className="small muted">
          <Link href="/improvements">Improvements</Link> › <Link href="/improvements/changes">Changes</Link> ›
        </span>
        <h1 className="row" style={{ gap: 10, flexWrap: "wrap" }}>
          <span data-testid="change-title">{c.title}</span>
          <ChangeStateBadge state={c.state} />
        </h1>
        {c.stateReason && (
          <p className="small" data-testid="change-state-reason">
            {c.stateReason}
          </p>
        )}
        <BusyNote change={c} />
        {c.hypothesis && (
          <blockquote className={styles.hypothesis} data-testid="change-hypothesis">
            <span className="small muted">The agent&apos;s hypothesis: </span>
            {c.hypothesis}
          </blockquote>
        )}
        <dl className={styles.facts}>
          <div>
            <dt>Repository</dt>
            <dd className="mono" data-testid="change-repository">
              {c.repository.name}
            </dd>
          </div>
          <div>
            <dt>Into</dt>
            <dd className="mono">{c.repository.defaultBranch}</dd>
          </div>
          <div>
            <dt>Branch</dt>
            <dd className="mono">{c.branch}</dd>
          </div>
          <div>
            <dt>Commits</dt>
            <dd className="mono" title={`${c.baseCommit} → ${c.headCommit ?? "not proposed yet"}`} data-testid="change-commits">
              {shortSha(c.baseCommit)} → {c.headCommit ? shortSha(c.headCommit) : "…"}
            </dd>
          </div>
          {c.mergeCommit && (
            <div>
              <dt>Merge commit</dt>
              <dd className="mono" title={c.mergeCommit} data-testid="change-merge-commit">
                {shortSha(c.mergeCommit)}
              </dd>
            </div>
          )}
          {c.revertCommit && (
            <div>
              <dt>Revert commit</dt>
              <dd className="mono" title={c.revertCommit} data-testid="change-revert-commit">
                {shortSha(c.revertCommit)}
              </dd>
            </div>
          )}
          {c.headCommit && (
            <div>
              <dt>Changed</dt>
              <dd>{diffStatText(c.diffStat)}</dd>
            </div>
          )}
          <div>
            <dt>Updated</dt>
            <dd>{formatDateTime(c.updatedAt)}</dd>
          </div>
        </dl>
      </div>
      <RevertAction change={c} onChanged={onChanged} />
    </div>
  );
}

function BusyNote({ change: c }: { change: ChangeDetail }) {
  if (c.state === "draft")
    return (
      <p className="alert alert-info" role="status" data-testid="change-busy">
        <span className="spinner" aria-hidden="true" />
        <span>
          The agent is working on it — {c.authorRun ? <Link href={runHref(c.authorRun.id)}>watch its run</Link> : "watch its run"}.
        </span>
      </p>
    );
  if (c.state === "checks_running")
    return (
      <p className="alert alert-info" role="status" data-testid="change-busy">
        <span className="spinner" aria-hidden="true" />
        <span>The checks are running on a clean checkout of the proposed commit.</span>
      </p>
    );
  return null;
}

function RevertAction({ change: c, onChanged }: { change: ChangeDetail; onChanged(): void }) {
  const [confirm, setConfirm] = useState(false);
  const [reason, setReason] = useState("");
  const revert = trpc.changes.revert.useMutation({ onSuccess: () => (setConfirm(false), setReason("")), onSettled: onChanged });
  if (c.state !== "merged") return null;
  const why = c.you.mayRevert ? null : "Reverting needs the approver role in its team";
  return (
    <div className={styles.actions}>
      <button
        type="button"
        className="btn btn-danger"
        disabled={!!why || revert.isPending}
        title={why ?? `Undo the merge with a revert commit on ${c.repository.defaultBranch}`}
        onClick={() => (revert.reset(), setConfirm(true))}
        data-testid="change-revert"
      >
        Revert
      </button>
      {why && <span className={styles.why}>{why}</span>}
      <ConfirmAction
        open={confirm}
        title={`Revert “${c.title}”?`}
        confirmLabel="Revert"
        busyLabel="Reverting…"
        action={revert}
        confirmDisabled={!reason.trim()}
        onConfirm={() => revert.mutate({ id: c.id, reason: reason.trim() })}
        onClose={() => setConfirm(false)}
      >
        <p>
          A new commit on {c.repository.defaultBranch} undoes merge commit {shortSha(c.mergeCommit)}. The branch and its history stay; the
          change request ends as reverted.
        </p>
        <div className="field">
          <label htmlFor="change-revert-reason">
            Why <RequiredMark />
          </label>
          <textarea
            id="change-revert-reason"
            className="textarea"
            rows={3}
            required
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            maxLength={4000}
            placeholder="What went wrong after the merge; kept with the change and in the revert commit"
            data-testid="change-revert-reason"
          />
        </div>
      </ConfirmAction>
    </div>
  );
}

const RISKS = [
  { key: "high", label: "High risk", hint: "what builds or runs the system", className: styles.riskHigh },
  { key: "medium", label: "Medium risk", hint: "code", className: styles.riskMedium },
  { key: "low", label: "Low risk", hint: "tests and docs", className: styles.riskLow },
] as const;

function Files({ change: c }: { change: ChangeDetail }) {
  const byPath = new Map(c.files.map((f) => [f.path, f]));
  return (
    <section className="card" aria-labelledby="change-files-title" data-testid="change-files">
      <div className="card-header">
        <h2 id="change-files-title">Files by risk</h2>
        {c.files.length > 0 && <span className="small muted">{pluralize(c.files.length, "file")}</span>}
      </div>
      <div className={styles.cardBody}>
        {c.files.length === 0 ? (
          <p className="small muted">{c.headCommit ? "No file changed." : "None yet: the agent has not proposed its change."}</p>
        ) : (
          RISKS.filter((r) => c.filesByRisk[r.key].length > 0).map((r) => (
            <div key={r.key} className={styles.risk} data-testid={`change-files-${r.key}`}>
              <h3 className={r.className}>
                {r.label} <span className="small muted">({r.hint})</span>
              </h3>
              <ul>
                {c.filesByRisk[r.key].map((p) => {
                  const f = byPath.get(p);
                  return (
                    <li key={p} data-testid="change-file" data-path={p}>
                      {c.headCommit ? (
                        <a href={diffHref(p)} className="mono" title={`Show the changes to ${p}`} data-testid="change-file-link">
                          {p}
                        </a>
                      ) : (
                        <span className="mono">{p}</span>
                      )}{" "}
                      {f && (
                        <span className="small">
                          <span className="muted">{f.status.replace("_", " ")}</span>{" "}
                          {f.insertions === null ? (
                            <span className="muted">binary</span>
                          ) : (
                            <>
                              <span className={styles.plus}>+{f.insertions}</span> <span className={styles.minus}>−{f.deletions}</span>
                            </>
                          )}
                        </span>
                      )}
                    </li>
                  );
                })}
              </ul>
            </div>
          ))
        )}
      </div>
    </section>
  );
}

function AuthorRun({ change: c }: { change: ChangeDetail }) {
  const r = c.authorRun;
  const model = r ? modelText(r.model) : null;
  return (
    <section className="card" aria-labelledby="change-author-title" data-testid="change-author">
      <div className="card-header">
        <h2 id="change-author-title">Written by</h2>
      </div>
      <div className={styles.cardBody}>
        {!r ? (
          <p className="small muted">The run that wrote it is gone.</p>
        ) : (
          <dl className={styles.facts}>
            <div>
              <dt>Run</dt>
              <dd>
                <Link href={runHref(r.id)} data-testid="change-author-run">
                  {r.id.slice(0, 10)}
                </Link>{" "}
                <StatusBadge status={r.status} />
              </dd>
            </div>
            <div>
              <dt>Agent</dt>
              <dd data-testid="change-author-agent">{r.agentName}</dd>
            </div>
            <div>
              <dt>Model</dt>
              <dd data-testid="change-author-model">{model && <ModelLabel model={r.model} scripted={model.scripted} />}</dd>
            </div>
            <div>
              <dt>Cost</dt>
              <dd>{formatCost(r.costUsd)}</dd>
            </div>
            <div>
              <dt>Launched by</dt>
              <dd data-testid="change-launched-by">{r.launchedBy ?? "—"}</dd>
            </div>
          </dl>
        )}
      </div>
    </section>
  );
}

function Friction({ change: c }: { change: ChangeDetail }) {
  const f = c.friction!;
  return (
    <section className="card" aria-labelledby="change-friction-title" data-testid="change-friction">
      <div className="card-header">
        <h2 id="change-friction-title">Motivating friction</h2>
      </div>
      <div className={styles.cardBody}>
        <p>
          <strong>{f.title}</strong>
        </p>
        <p className="small muted">
          {f.kind.replace(/_/g, " ")} · {pluralize(f.occurrences, "occurrence")} in {pluralize(f.runCount, "run")} ·{" "}
          <Link href={`/improvements?friction=${encodeURIComponent(f.id)}`}>its improvements</Link>
        </p>
      </div>
    </section>
  );
}
