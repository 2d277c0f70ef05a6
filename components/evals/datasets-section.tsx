"use client";
// The Evals page's datasets: each with its team (or everyone), item count and
// badges; archived ones on request; New dataset for operators.
import Link from "next/link";
import { useState } from "react";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { useMe } from "@/lib/access";
import { formatDateTime, formatRelative, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { DatasetDialog } from "./dataset-dialog";
import type { DatasetView } from "./types";
import styles from "./evals.module.css";

const CREATE_HINT = "Creating datasets needs the operator role in a team; you are a viewer";

function DatasetRow({ dataset, now }: { dataset: DatasetView; now: number }) {
  const href = `/evals/datasets/${encodeURIComponent(dataset.id)}`;
  return (
    <tr className={dataset.archived ? styles.archivedRow : undefined} data-testid="dataset-row" data-list-row data-dataset={dataset.name}>
      <td>
        <span className="row" style={{ gap: 6, flexWrap: "wrap" }}>
          <Link href={href} className={styles.nameLink} data-testid="dataset-link">
            {dataset.name}
          </Link>
          {dataset.builtIn && (
            <span className="badge badge-role" title="Comes with Rein; export it to make your own">
              Built-in
            </span>
          )}
          {dataset.archived && <span className="badge">Archived</span>}
        </span>
      </td>
      <td>
        <span className={styles.description} title={dataset.description}>
          {dataset.description || <span className="muted">No description</span>}
        </span>
      </td>
      <td>{dataset.team ? dataset.team.name : <span className="muted">Everyone</span>}</td>
      <td className="num" data-testid="dataset-item-count">
        {dataset.itemCount}
      </td>
      <td className="nowrap">
        <span title={formatDateTime(dataset.updatedAt)}>{formatRelative(dataset.updatedAt, now)}</span>
      </td>
    </tr>
  );
}

export function DatasetsSection() {
  const [showArchived, setShowArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const datasets = trpc.evals.datasets.list.useQuery({ includeArchived: showArchived }, { staleTime: 30_000 });
  const { canOperate, isLoading: meLoading } = useMe();
  const list = datasets.data ?? [];
  const now = Date.now();

  const newButton = canOperate ? (
    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)} data-testid="dataset-new">
      <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
        +
      </span>{" "}
      New dataset
    </button>
  ) : (
    !meLoading && (
      <button type="button" className="btn btn-primary" disabled title={CREATE_HINT}>
        + New dataset
      </button>
    )
  );

  return (
    <section className={styles.section} aria-labelledby="datasets-title" data-testid="datasets-section">
      <div className={styles.sectionHead}>
        <h2 id="datasets-title">Datasets</h2>
        {newButton}
      </div>
      <div className="card">
        <div className={styles.toolbar}>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={showArchived}
              onChange={(e) => setShowArchived(e.target.checked)}
              data-testid="datasets-show-archived"
            />
            Show archived
          </label>
          <span className="spacer" />
          {datasets.data && <span className="small muted">{pluralize(list.length, "dataset")}</span>}
        </div>
        <PageShell query={datasets} loading={<SkeletonRows rows={4} columns={5} />} failed="Could not load the datasets">
          {() =>
            list.length === 0 ? (
              <EmptyState
                icon="▤"
                title={showArchived ? "No datasets at all" : "No datasets yet"}
                action={
                  canOperate ? (
                    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                      Create the first dataset
                    </button>
                  ) : undefined
                }
              >
                {canOperate
                  ? "A dataset is a set of goals with expected outcomes. Create one, then add items by hand, from a JSONL file, or from a finished run (Add to dataset on its page)."
                  : `${CREATE_HINT}; datasets appear here once an operator of your team creates one.`}
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="datasets-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Description</th>
                      <th scope="col">Visible to</th>
                      <th scope="col" className="num">
                        Items
                      </th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((d) => (
                      <DatasetRow key={d.id} dataset={d} now={now} />
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </PageShell>
      </div>
      <DatasetDialog open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}
