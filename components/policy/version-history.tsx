"use client";
// Every saved version, newest first: who, when, why. Opening one shows its
// YAML; loading it into the editor lets an admin save it again (a rollback).
// Any two versions can be compared as a line diff.
import { useState } from "react";
import { Dialog, EmptyState, ErrorState, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import type { PolicyVersionSummaryView } from "./types";
import { VersionCompareDialog, type ComparePair } from "./version-compare";
import styles from "./policy.module.css";

export function VersionHistory({
  activeVersion,
  editingVersion,
  onLoad,
}: {
  activeVersion: number | null;
  editingVersion: number | null;
  onLoad(version: number, source: string): void;
}) {
  // After the active policy has loaded: on a new installation that load stores the default as v1.
  const versions = trpc.policy.versions.useQuery(undefined, { enabled: activeVersion !== null });
  const [open, setOpen] = useState<PolicyVersionSummaryView | null>(null);
  const [compare, setCompare] = useState<ComparePair | null>(null);
  const list = versions.data ?? [];
  /** The version saved before this one, if the history still has it (newest first). */
  const previousOf = (version: number) => list.find((v) => v.version < version)?.version ?? null;
  const now = Date.now();

  let body;
  if (versions.isLoading || activeVersion === null) body = <SkeletonRows rows={3} columns={2} />;
  else if (versions.isError)
    body = <ErrorState title="Could not load the history" message={errorMessage(versions.error)} onRetry={() => versions.refetch()} />;
  else if (!versions.data?.length) body = <EmptyState icon="⟲" title="No versions yet" />;
  else
    body = (
      <>
        {list.length > 1 && (
          <div className={styles.historyActions}>
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => setCompare({ from: list[1].version, to: list[0].version })}
              data-testid="policy-compare-open"
            >
              Compare versions
            </button>
          </div>
        )}
        <ol className={styles.history} data-testid="policy-history">
          {versions.data.map((v) => (
            <li key={v.version}>
              <button
                type="button"
                className={styles.historyItem}
                onClick={() => setOpen(v)}
                data-testid="policy-version"
                data-version={v.version}
              >
                <span className="row" style={{ gap: 6 }}>
                  <strong>v{v.version}</strong>
                  {v.version === activeVersion && <span className="badge badge-ok">active</span>}
                  {v.version === editingVersion && v.version !== activeVersion && <span className="badge badge-outline">in editor</span>}
                  <span className="spacer" />
                  <span className="small muted" title={formatDateTime(v.createdAt)}>
                    {formatRelative(v.createdAt, now)}
                  </span>
                </span>
                <span className="small muted">{v.createdBy ? v.createdBy.name : "Rein (default policy)"}</span>
                {v.comment && <span className={styles.comment}>{v.comment}</span>}
              </button>
            </li>
          ))}
        </ol>
      </>
    );

  return (
    <>
      {body}
      <VersionDialog
        summary={open}
        isActive={open?.version === activeVersion}
        previous={open ? previousOf(open.version) : null}
        onCompare={(from) => {
          if (!open) return;
          setCompare({ from, to: open.version });
          setOpen(null);
        }}
        onClose={() => setOpen(null)}
        onLoad={(source) => {
          if (!open) return;
          onLoad(open.version, source);
          setOpen(null);
        }}
      />
      <VersionCompareDialog pair={compare} versions={list} onChange={setCompare} onClose={() => setCompare(null)} />
    </>
  );
}

function VersionDialog({
  summary,
  isActive,
  previous,
  onCompare,
  onClose,
  onLoad,
}: {
  summary: PolicyVersionSummaryView | null;
  isActive: boolean;
  previous: number | null;
  onCompare(from: number): void;
  onClose(): void;
  onLoad(source: string): void;
}) {
  const version = trpc.policy.get.useQuery({ version: summary?.version ?? 1 }, { enabled: summary !== null, staleTime: Infinity });
  return (
    <Dialog open={summary !== null} onClose={onClose} labelledBy="policy-version-title" testId="policy-version-dialog">
      {summary && (
        <div className="dialog-form">
          <div className="dialog-header">
            <div>
              <h2 id="policy-version-title">
                Policy version {summary.version}
                {isActive && (
                  <span className="badge badge-ok" style={{ marginLeft: 8 }}>
                    active
                  </span>
                )}
              </h2>
              <p className="small muted">
                {summary.createdBy ? `Saved by ${summary.createdBy.name}` : "Installed by Rein"} · {formatDateTime(summary.createdAt)}
                {summary.comment && <> · “{summary.comment}”</>}
              </p>
            </div>
          </div>
          <div className="dialog-body">
            {version.isLoading ? (
              <SkeletonRows rows={6} columns={1} />
            ) : version.isError ? (
              <ErrorState title="Could not load this version" message={errorMessage(version.error)} onRetry={() => version.refetch()} />
            ) : (
              <pre className={`code-block light ${styles.source}`} data-testid="policy-version-source">
                {version.data?.source}
              </pre>
            )}
          </div>
          <div className="dialog-footer">
            <span className="small muted" style={{ marginRight: "auto" }}>
              Loading it replaces the editor&apos;s text (Ctrl+Z undoes); saving it makes it the active policy as a new version.
            </span>
            <button type="button" className="btn" onClick={onClose}>
              Close
            </button>
            {previous !== null && (
              <button type="button" className="btn" onClick={() => onCompare(previous)} data-testid="policy-version-compare-previous">
                Compare with previous
              </button>
            )}
            <button
              type="button"
              className="btn btn-primary"
              disabled={!version.data}
              onClick={() => version.data && onLoad(version.data.source)}
              data-testid="policy-version-load"
            >
              Load into editor
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
