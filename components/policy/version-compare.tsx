"use client";
// Two saved versions side by side as a line diff: added lines green, removed
// lines red, long unchanged stretches folded. Any two versions can be chosen.
import { useMemo } from "react";
import { Dialog, ErrorState, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { diffLines, foldUnchanged } from "@/lib/line-diff";
import { trpc } from "@/lib/trpc";
import type { PolicyVersionSummaryView } from "./types";
import styles from "./policy.module.css";

export interface ComparePair {
  from: number;
  to: number;
}

export function VersionCompareDialog({
  pair,
  versions,
  onChange,
  onClose,
}: {
  pair: ComparePair | null;
  versions: PolicyVersionSummaryView[];
  onChange(pair: ComparePair): void;
  onClose(): void;
}) {
  return (
    <Dialog open={pair !== null} onClose={onClose} labelledBy="policy-compare-title" testId="policy-compare-dialog">
      {pair && (
        <div className="dialog-form">
          <div className="dialog-header">
            <div>
              <h2 id="policy-compare-title">Compare policy versions</h2>
              <div className="row" style={{ gap: 8, marginTop: 6 }}>
                <label className="small muted row" style={{ gap: 4 }}>
                  From
                  <select
                    value={pair.from}
                    onChange={(e) => onChange({ ...pair, from: Number(e.target.value) })}
                    data-testid="policy-compare-from"
                  >
                    {versions.map((v) => (
                      <option key={v.version} value={v.version}>
                        v{v.version}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="small muted row" style={{ gap: 4 }}>
                  to
                  <select
                    value={pair.to}
                    onChange={(e) => onChange({ ...pair, to: Number(e.target.value) })}
                    data-testid="policy-compare-to"
                  >
                    {versions.map((v) => (
                      <option key={v.version} value={v.version}>
                        v{v.version}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
            </div>
          </div>
          <div className="dialog-body">
            <CompareBody pair={pair} />
          </div>
          <div className="dialog-footer">
            <button type="button" className="btn" onClick={onClose}>
              Close
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

function CompareBody({ pair }: { pair: ComparePair }) {
  const from = trpc.policy.get.useQuery({ version: pair.from }, { staleTime: Infinity });
  const to = trpc.policy.get.useQuery({ version: pair.to }, { staleTime: Infinity });
  const fromSource = from.data?.source;
  const toSource = to.data?.source;
  const diff = useMemo(
    () => (fromSource === undefined || toSource === undefined ? null : diffLines(fromSource, toSource)),
    [fromSource, toSource],
  );

  if (from.isError || to.isError) {
    const failed = from.isError ? from : to;
    return <ErrorState title="Could not load a version" message={errorMessage(failed.error)} onRetry={() => failed.refetch()} />;
  }
  if (!diff) return <SkeletonRows rows={6} columns={1} />;
  if (!diff.ok)
    return (
      <p className="muted" data-testid="policy-compare-too-large">
        {diff.message}
      </p>
    );
  if (pair.from === pair.to || (diff.added === 0 && diff.removed === 0)) {
    return (
      <p className="muted" data-testid="policy-compare-same">
        {pair.from === pair.to ? "Choose two different versions to see what changed." : `v${pair.from} and v${pair.to} have the same text.`}
      </p>
    );
  }
  return (
    <>
      <p className="small muted" data-testid="policy-compare-summary">
        From v{pair.from} to v{pair.to}: {diff.added === 1 ? "1 line added" : `${diff.added} lines added`},{" "}
        {diff.removed === 1 ? "1 line removed" : `${diff.removed} lines removed`}.
      </p>
      <div
        className={`code-block light ${styles.diff}`}
        data-testid="policy-diff"
        role="table"
        aria-label={`Changes from v${pair.from} to v${pair.to}`}
      >
        {foldUnchanged(diff.lines).map((row, i) =>
          row.kind === "skipped" ? (
            <div key={i} role="row" className={styles.diffSkipped}>
              <span role="cell">⋯ {row.count === 1 ? "1 unchanged line" : `${row.count} unchanged lines`}</span>
            </div>
          ) : (
            <div key={i} role="row" className={styles[`diff_${row.kind}`]} data-testid={`policy-diff-${row.kind}`}>
              <span role="cell" className={styles.diffNo}>
                {row.oldNo ?? ""}
              </span>
              <span role="cell" className={styles.diffNo}>
                {row.newNo ?? ""}
              </span>
              <span role="cell" className={styles.diffSign} aria-label={row.kind === "same" ? "unchanged" : row.kind}>
                {row.kind === "added" ? "+" : row.kind === "removed" ? "−" : " "}
              </span>
              <span role="cell" className={styles.diffText}>
                {row.text}
              </span>
            </div>
          ),
        )}
      </div>
    </>
  );
}
