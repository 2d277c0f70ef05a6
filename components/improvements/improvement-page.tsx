"use client";
// One improvement: what it is and how far it is trusted, its source (and the
// change from the previous version), what it is tested on, where it was used,
// the friction it came from and the hack cycle that made it.
import Link from "next/link";
import { JsonBlock } from "@/components/json-block";
import { EmptyState, ErrorState, Skeleton } from "@/components/ui";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime, formatDuration, formatCost, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { ImprovementActions } from "./improvement-actions";
import { KIND_LABELS, improvementHref, runHref, scopeText, spanHref, trustText, type ImprovementDetail } from "./format";
import { SourceView } from "./source-view";
import { VersionedTitle } from "./versioned-title";
import { ImprovementStateBadge } from "./state-badge";
import styles from "./improvements.module.css";

export function ImprovementPage({ id }: { id: string }) {
  const q = trpc.improvements.get.useQuery({ id }, { refetchInterval: 10_000, retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2 });
  if (q.isLoading)
    return (
      <div className="page page-wide">
        <Skeleton width={280} height={28} />
      </div>
    );
  if (q.isError || !q.data)
    return (
      <div className="page page-wide">
        {errorCode(q.error) === "NOT_FOUND" ? (
          <EmptyState
            icon="?"
            title="No such improvement"
            action={
              <Link href="/improvements" className="btn">
                All improvements
              </Link>
            }
          >
            It was deleted, or it was made for a team you are not in.
          </EmptyState>
        ) : (
          <ErrorState
            title="Could not load the improvement"
            message={q.error ? errorMessage(q.error) : "No data"}
            onRetry={() => q.refetch()}
          />
        )}
      </div>
    );
  const i = q.data;
  return (
    <div className="page page-wide" data-testid="improvement-page" data-name={i.name} data-state={i.state}>
      <Header improvement={i} />
      <SourceView improvement={i} />
      <div className={`${styles.grid} ${styles.section}`}>
        <Cases improvement={i} />
        <Friction improvement={i} />
        <Cycle improvement={i} />
        <Uses improvement={i} />
      </div>
    </div>
  );
}

function Header({ improvement: i }: { improvement: ImprovementDetail }) {
  return (
    <div className="page-header">
      <div className="page-title-block" style={{ flex: 1 }}>
        <VersionedTitle
          back={{ href: "/improvements", label: "Improvements" }}
          name={i.name}
          version={i.version}
          badges={
            <>
              <ImprovementStateBadge state={i.state} />
              {i.promoted && <span className="badge badge-outline">promoted</span>}
            </>
          }
          description={i.description}
          stateReason={i.stateReason}
          testId="improvement-title"
        />
        <dl className={styles.facts}>
          <div>
            <dt>Tier</dt>
            <dd>
              {i.tier} · {KIND_LABELS[i.kind] ?? i.kind}
            </dd>
          </div>
          <div title={`${i.successes} of ${i.useCount} uses succeeded; trust = successes / (uses + 1)`}>
            <dt>Trust</dt>
            <dd data-testid="improvement-trust">{trustText(i.trust, i.useCount)}</dd>
          </div>
          <div>
            <dt>Uses</dt>
            <dd data-testid="improvement-uses-count">{i.useCount}</dd>
          </div>
          <div>
            <dt>Cost to make</dt>
            <dd>{formatCost(i.costUsd)}</dd>
          </div>
          <div>
            <dt>Agents</dt>
            <dd>{scopeText(i.scopeAgents)}</dd>
          </div>
          <div>
            <dt>{i.promoted ? "Promoted" : "Expires"}</dt>
            <dd>{i.promoted ? "kept for good" : i.expiresAt ? formatDateTime(i.expiresAt) : "never"}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDateTime(i.createdAt)}</dd>
          </div>
          {i.versions.length > 1 && (
            <div>
              <dt>Versions</dt>
              <dd>
                {i.versions.map((v, n) => (
                  <span key={v.id}>
                    {n > 0 && ", "}
                    {v.id === i.id ? <strong>v{v.version}</strong> : <Link href={improvementHref(v.id)}>v{v.version}</Link>}
                  </span>
                ))}
              </dd>
            </div>
          )}
        </dl>
      </div>
      <ImprovementActions improvement={i} />
    </div>
  );
}

function Cases({ improvement: i }: { improvement: ImprovementDetail }) {
  const run = i.caseResults;
  const cases = i.cases as { name?: string; args?: unknown }[];
  return (
    <section className="card" aria-labelledby="cases-title" data-testid="improvement-cases">
      <div className="card-header">
        <h2 id="cases-title">Trigger cases</h2>
        {run && (
          <span className="small muted" data-testid="cases-summary">
            {run.summary}
          </span>
        )}
      </div>
      <div className={styles.cardBody}>
        {!run ? (
          <p className="small muted">{cases.length ? `${pluralize(cases.length, "case")}, not run yet.` : "No trigger cases."}</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <tbody>
                {run.results.map((r) => (
                  <tr key={r.name} data-testid="case-row" data-passed={r.passed}>
                    <td className={r.passed ? styles.caseOk : styles.caseFail}>{r.passed ? "✓ pass" : "✗ fail"}</td>
                    <td>
                      <strong>{r.name}</strong>
                      <div className="small muted">{r.message}</div>
                    </td>
                    <td className="num small">{formatDuration(r.durationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {i.argsSchema != null && <JsonBlock value={i.argsSchema} summary="Arguments (JSON schema)" testId="improvement-args-schema" />}
        {cases.length > 0 && <JsonBlock value={cases} summary={`The ${pluralize(cases.length, "case")} as written`} />}
      </div>
    </section>
  );
}

function Friction({ improvement: i }: { improvement: ImprovementDetail }) {
  const f = i.friction;
  return (
    <section className="card" aria-labelledby="friction-title" data-testid="improvement-friction">
      <div className="card-header">
        <h2 id="friction-title">Origin friction</h2>
      </div>
      <div className={styles.cardBody}>
        {!f ? (
          <p className="small muted">Made by a person, or its friction was deleted.</p>
        ) : (
          <>
            <p>
              <strong data-testid="friction-title">{f.title}</strong>
            </p>
            <p className="small muted">
              {f.kind.replace(/_/g, " ")}
              {f.tool ? ` · ${f.tool}` : ""} · {pluralize(f.occurrences, "occurrence")} in {pluralize(f.runCount, "run")} · last seen{" "}
              {formatDateTime(f.lastSeenAt)}
            </p>
            <ul className="stack" style={{ gap: 4, paddingLeft: 18 }}>
              {f.items.map((item) => {
                const spans = (item.evidence as { spanId?: string; toolCallId?: string; step?: number }[])
                  .filter((e) => e.spanId)
                  .slice(0, 3);
                return (
                  <li key={item.runId} className="small" data-testid="friction-run">
                    <Link href={runHref(item.runId)}>Run {item.runId.slice(0, 8)}</Link> · {pluralize(item.count, "time")}
                    {spans.map((e, n) => (
                      <span key={e.spanId}>
                        {" · "}
                        <Link href={spanHref(item.runId, e.spanId!)}>
                          {e.step != null ? `step ${e.step}` : `call ${n + 1}`} in the trace
                        </Link>
                      </span>
                    ))}
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </div>
    </section>
  );
}

function Cycle({ improvement: i }: { improvement: ImprovementDetail }) {
  const c = i.cycle;
  return (
    <section className="card" aria-labelledby="cycle-title" data-testid="improvement-cycle">
      <div className="card-header">
        <h2 id="cycle-title">Hack cycle</h2>
      </div>
      <div className={styles.cardBody}>
        {!c ? (
          <p className="small muted">No hack cycle made this version.</p>
        ) : (
          <dl className={styles.facts}>
            <div>
              <dt>State</dt>
              <dd data-testid="cycle-state">{c.state}</dd>
            </div>
            <div>
              <dt>Attempts</dt>
              <dd>{c.attempts}</dd>
            </div>
            {c.reason && (
              <div>
                <dt>Reason</dt>
                <dd>{c.reason}</dd>
              </div>
            )}
            {c.improverRunId && (
              <div>
                <dt>Improver</dt>
                <dd>
                  <Link href={runHref(c.improverRunId)} data-testid="cycle-improver-run">
                    the improver run
                  </Link>
                </dd>
              </div>
            )}
            {c.sessionRunId && (
              <div>
                <dt>Started by</dt>
                <dd>
                  <Link href={runHref(c.sessionRunId)}>the run that struggled</Link>
                </dd>
              </div>
            )}
            <div>
              <dt>Started</dt>
              <dd>{formatDateTime(c.createdAt)}</dd>
            </div>
            {c.endedAt && (
              <div>
                <dt>Ended</dt>
                <dd>{formatDateTime(c.endedAt)}</dd>
              </div>
            )}
          </dl>
        )}
      </div>
    </section>
  );
}

function Uses({ improvement: i }: { improvement: ImprovementDetail }) {
  return (
    <section className="card" aria-labelledby="uses-title" data-testid="improvement-uses">
      <div className="card-header">
        <h2 id="uses-title">Recent uses</h2>
        <span className="small muted">
          {i.successes} of {pluralize(i.useCount, "use")} succeeded
        </span>
      </div>
      {i.uses.length === 0 ? (
        <p className={`${styles.cardBody} small muted`}>
          Not used yet. Runs of {scopeText(i.scopeAgents)} see it in their tool list while it is active.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <tbody>
              {i.uses.map((u) => (
                <tr key={u.id} data-testid="use-row" data-ok={u.ok}>
                  <td>
                    <Link href={runHref(u.runId)}>Run {u.runId.slice(0, 8)}</Link>
                  </td>
                  <td>
                    {u.ok ? (
                      <span className="badge badge-ok">ok</span>
                    ) : (
                      <span className="badge badge-error" title={u.error ?? undefined}>
                        error
                      </span>
                    )}
                  </td>
                  <td className="small muted">{u.error ?? ""}</td>
                  <td className="num small">{formatDuration(u.durationMs)}</td>
                  <td className="nowrap small">{formatDateTime(u.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
