"use client";
// Every change request I may see (docs/changes.md), newest first,
// filtered by state and repository; operators start one from here.
import Link from "next/link";
import { useState } from "react";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { CHANGE_STATES, DEMO_AGENT, DEMO_REPOSITORY, changeHref, changeStateLabel, type ChangeState, type ChangeSummary } from "./format";
import { NewChangeButton } from "./new-change";
import { ChangeStateBadge } from "./state-badge";
import styles from "./changes.module.css";

export function ChangesList() {
  const [state, setState] = useState<ChangeState | "">("");
  const [repositoryId, setRepositoryId] = useState("");
  const input = { limit: 200, ...(state ? { state: [state] } : {}), ...(repositoryId ? { repositoryId } : {}) };
  const list = trpc.changes.list.useQuery(input, {
    refetchInterval: (q) => (q.state.data?.some((c) => c.state === "draft" || c.state === "checks_running") ? 3_000 : 15_000),
  });
  const repositories = trpc.repositories.list.useQuery(undefined, { staleTime: 60_000 });
  const now = useNow(30_000);
  const filtered = !!(state || repositoryId);
  const clear = () => (setState(""), setRepositoryId(""));

  return (
    <section className="card" aria-labelledby="changes-title" data-testid="changes-list">
      <div className="card-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h2 id="changes-title">Change requests</h2>
          <span className="small muted">
            An agent changes a repository on a branch of its own; the tests run, and an approver merges it. A merge can be reverted.
          </span>
        </div>
        <NewChangeButton />
      </div>
      <div className={styles.toolbar} role="search" aria-label="Filter change requests">
        <select
          className="select"
          aria-label="State"
          value={state}
          onChange={(e) => setState(e.target.value as ChangeState | "")}
          data-testid="changes-state-filter"
        >
          <option value="">All states</option>
          {CHANGE_STATES.map((s) => (
            <option key={s} value={s}>
              {changeStateLabel(s)}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Repository"
          value={repositoryId}
          onChange={(e) => setRepositoryId(e.target.value)}
          data-testid="changes-repository-filter"
        >
          <option value="">All repositories</option>
          {repositories.data?.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
        {filtered && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={clear} data-testid="changes-clear">
            Clear filters
          </button>
        )}
      </div>
      <PageShell query={list} loading={<SkeletonRows rows={4} columns={7} />} failed="Could not load the change requests">
        {(data) =>
          data.length === 0 ? (
            filtered ? (
              <EmptyState
                icon="⌕"
                title="No change request matches these filters"
                action={
                  <button type="button" className="btn" onClick={clear}>
                    Clear filters
                  </button>
                }
              />
            ) : (
              <NoChanges />
            )
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="changes-table">
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">Repository</th>
                    <th scope="col">State</th>
                    <th scope="col">Review</th>
                    <th scope="col">Agent</th>
                    <th scope="col" className="num">
                      Files
                    </th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((c) => (
                    <Row key={c.id} change={c} now={now} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </PageShell>
    </section>
  );
}

function Row({ change: c, now }: { change: ChangeSummary; now: number }) {
  return (
    <tr data-testid="change-row" data-change={c.id} data-state={c.state}>
      <td>
        <Link href={changeHref(c.id)} className={styles.titleLink} data-testid="change-open">
          {c.title}
        </Link>
        {c.stateReason && <div className="small muted">{c.stateReason}</div>}
      </td>
      <td className="mono small">{c.repository.name}</td>
      <td>
        <ChangeStateBadge state={c.state} testId="change-row-state" />
      </td>
      <td className="small" data-testid="change-row-review" data-review={c.review?.state ?? ""}>
        <ReviewWords review={c.review} />
      </td>
      <td className="small">{c.authorRun?.agentName ?? <span className="muted">—</span>}</td>
      <td className="num small nowrap" title={`${c.diffStat.files} files changed`}>
        {c.headCommit ? (
          <>
            {c.diffStat.files} · <span className={styles.plus}>+{c.diffStat.insertions}</span>{" "}
            <span className={styles.minus}>−{c.diffStat.deletions}</span>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="nowrap small">
        <span title={formatDateTime(c.updatedAt)}>{formatRelative(c.updatedAt, now)}</span>
      </td>
    </tr>
  );
}

/** A change's review decision in words: who approved or rejected it, or that it waits. */
function ReviewWords({ review }: { review: ChangeSummary["review"] }) {
  if (!review) return <span className="muted">—</span>;
  const by = review.byName ? ` by ${review.byName}` : "";
  switch (review.state) {
    case "APPROVED":
      return <span className={styles.plus}>✔ approved{by}</span>;
    case "REJECTED":
      return <span className={styles.minus}>✕ rejected{by}</span>;
    case "PENDING":
    case "ESCALATED":
      return <span>waiting for an approver</span>;
    case "EXPIRED":
      return <span className="muted">no one decided in time</span>;
    default:
      return <span className="muted">withdrawn</span>;
  }
}

function NoChanges() {
  return (
    <EmptyState icon="⎇" title="No change requests yet" action={<NewChangeButton demo />}>
      A change request is an agent&apos;s change to a registered repository, on a branch of its own. Rein runs the repository&apos;s tests
      on it, and an approver (not the person who started it) merges it; a merge can be reverted. To see one, choose New change with the
      repository <code>{DEMO_REPOSITORY}</code> and the agent <code>{DEMO_AGENT}</code> (no provider key needed): it fixes a failing test
      and proposes the fix.
    </EmptyState>
  );
}
