"use client";
// Every version of an item, newest first: what it asked and expected then,
// and whether it was removed. Nothing is ever overwritten.
import Link from "next/link";
import { useId } from "react";
import { Dialog, PageShell, SkeletonRows } from "@/components/ui";
import { JsonBlock } from "@/components/json-block";
import { expectedSummary, scenarioLabel, scenarioTurns } from "@/lib/dataset-draft";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import styles from "./evals.module.css";

export function ItemHistoryDialog({
  open,
  datasetId,
  itemKey,
  onClose,
}: {
  open: boolean;
  datasetId: string;
  itemKey: string | null;
  onClose(): void;
}) {
  const titleId = useId();
  return (
    <Dialog open={open} onClose={onClose} labelledBy={titleId} testId="item-history-dialog">
      {itemKey && <History titleId={titleId} datasetId={datasetId} itemKey={itemKey} onClose={onClose} />}
    </Dialog>
  );
}

function History({ titleId, datasetId, itemKey, onClose }: { titleId: string; datasetId: string; itemKey: string; onClose(): void }) {
  const history = trpc.evals.itemHistory.useQuery({ datasetId, key: itemKey });
  const now = Date.now();
  return (
    <div className="dialog-form">
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>
            History of <span className="mono">{itemKey}</span>
          </h2>
          <p>Every version, newest first. Experiments keep pointing at the version they ran.</p>
        </div>
      </div>
      <div className="dialog-body">
        <PageShell query={history} loading={<SkeletonRows rows={3} columns={3} />} failed="Could not load the history">
          {(data) => (
            <ol className={styles.history} data-testid="item-versions">
              {data.map((v) => (
                <li
                  key={v.version}
                  className={`${styles.historyEntry}${v.deleted ? ` ${styles.historyRemoved}` : ""}`}
                  data-testid="item-version-entry"
                  data-version={v.version}
                >
                  <div className="row" style={{ flexWrap: "wrap" }}>
                    <strong>Version {v.version}</strong>
                    {v.deleted && (
                      <span className="badge" title="The item was removed from the dataset at this version">
                        Removed
                      </span>
                    )}
                    <span className="small muted" title={formatDateTime(v.createdAt)}>
                      {formatRelative(v.createdAt, now)}
                    </span>
                    {v.sourceRunId && (
                      <Link href={`/runs/${encodeURIComponent(v.sourceRunId)}`} className="small">
                        from a run
                      </Link>
                    )}
                  </div>
                  <div className="small">{v.goal}</div>
                  <div className="small muted">
                    Agent {v.agent ?? "any"} · scenario {scenarioLabel(scenarioTurns(v.scenario))} · expected: {expectedSummary(v.expected)}
                  </div>
                  <JsonBlock value={v.expected} summary="Expected outcome" />
                </li>
              ))}
            </ol>
          )}
        </PageShell>
      </div>
      <div className="dialog-footer">
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </div>
  );
}
