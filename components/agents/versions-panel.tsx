"use client";
// An agent's saved versions, newest first (number, change note, who, when).
// Pick any two to compare; roll back to one (a new version equal to it).
import { useEffect, useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import type { AgentView } from "./types";
import { VersionDiff } from "./version-diff";
import styles from "./agents.module.css";

export function VersionsPanel({
  name,
  latest,
  canRollBack,
  dirty,
  onRolledBack,
}: {
  name: string;
  latest: number;
  /** Why not, when rolling back is not allowed; null when it is. */
  canRollBack: string | null;
  dirty: boolean;
  onRolledBack(agent: AgentView): void;
}) {
  const utils = trpc.useUtils();
  const versions = trpc.agents.versions.useQuery({ name });
  const rollback = trpc.agents.rollback.useMutation();
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [confirm, setConfirm] = useState<number | null>(null);

  // Start with the last change: the version before the newest → the newest.
  const list = versions.data;
  useEffect(() => {
    if (!list?.length || from !== null) return;
    setTo(list[0].version);
    setFrom(list[1]?.version ?? list[0].version);
  }, [list, from]);

  return (
    <PageShell query={versions} loading={<SkeletonRows rows={4} columns={4} />} failed="Could not load the versions">
      {(list) => {
        if (list.length === 0) return <EmptyState icon="⟲" title="No versions yet" />;
        const now = Date.now();

        return (
          <div className="stack" style={{ gap: 16 }}>
            <div className="card">
              <div className="card-header">
                <h2 style={{ flex: 1 }}>Versions</h2>
                <span className="hint">Pick a “from” and a “to” version to compare them.</span>
              </div>
              <ol className={styles.versions} data-testid="agent-versions">
                {list.map((v) => (
                  <li key={v.version} className={styles.versionRow} data-testid="agent-version" data-version={v.version}>
                    <span className={styles.versionPick}>
                      <label title="Compare from this version">
                        <input
                          type="radio"
                          name="diff-from"
                          checked={from === v.version}
                          onChange={() => setFrom(v.version)}
                          aria-label={`Compare from version ${v.version}`}
                          data-testid="diff-from"
                        />
                        from
                      </label>
                      <label title="Compare to this version">
                        <input
                          type="radio"
                          name="diff-to"
                          checked={to === v.version}
                          onChange={() => setTo(v.version)}
                          aria-label={`Compare to version ${v.version}`}
                          data-testid="diff-to"
                        />
                        to
                      </label>
                    </span>
                    <span className="row" style={{ gap: 6 }}>
                      <strong>v{v.version}</strong>
                      {v.version === latest && <span className="badge badge-ok">current</span>}
                    </span>
                    <span className="stack" style={{ gap: 0, minWidth: 0 }}>
                      <span className={styles.note}>{v.changeNote || <span className="muted">No note</span>}</span>
                      <span className="small muted">
                        {v.createdBy ?? "Rein"} · <span title={formatDateTime(v.createdAt)}>{formatRelative(v.createdAt, now)}</span>
                      </span>
                    </span>
                    {v.version !== latest ? (
                      <button
                        type="button"
                        className="btn btn-sm"
                        disabled={!!canRollBack}
                        title={canRollBack ?? `Save a new version equal to version ${v.version}`}
                        onClick={() => setConfirm(v.version)}
                        data-testid="agent-rollback"
                      >
                        Roll back to this version
                      </button>
                    ) : (
                      <span />
                    )}
                  </li>
                ))}
              </ol>
            </div>
            {from !== null && to !== null && from !== to ? (
              <div className="card card-body">
                <VersionDiff name={name} from={from} to={to} />
              </div>
            ) : (
              list.length > 1 && <p className="hint">Pick two different versions to see what changed.</p>
            )}
            <ConfirmAction
              open={confirm !== null}
              title={`Roll back to version ${confirm}?`}
              confirmLabel={`Roll back to v${confirm}`}
              action={rollback}
              onClose={() => {
                setConfirm(null);
                rollback.reset();
              }}
              onConfirm={() => {
                if (confirm === null) return;
                rollback.mutate(
                  { name, version: confirm },
                  {
                    onSuccess(agent) {
                      setConfirm(null);
                      setFrom(confirm);
                      setTo(agent.version);
                      void utils.agents.versions.invalidate({ name });
                      void utils.agents.list.invalidate();
                      onRolledBack(agent);
                    },
                  },
                );
              }}
            >
              This saves version {latest + 1}, equal to version {confirm}; versions in between stay in the history. New runs use it.
              {dirty && " Your unsaved edits in the editor are replaced by it."}
            </ConfirmAction>
          </div>
        );
      }}
    </PageShell>
  );
}
