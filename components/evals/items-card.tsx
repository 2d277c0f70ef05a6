"use client";
// A dataset's items now (each key's latest version): add and edit them in a
// dialog, remove them (their versions are kept), and read each one's history.
import Link from "next/link";
import { useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { expectedSummary, scenarioLabel, scenarioTurns } from "@/lib/dataset-draft";
import { trpc } from "@/lib/trpc";
import { ItemDialog } from "./item-dialog";
import { ItemHistoryDialog } from "./item-history-dialog";
import type { DatasetView, ItemView } from "./types";
import styles from "./evals.module.css";

function ItemRow({
  item,
  readOnly,
  onEdit,
  onHistory,
  onRemove,
}: {
  item: ItemView;
  readOnly: boolean;
  onEdit(): void;
  onHistory(): void;
  onRemove(): void;
}) {
  return (
    <tr data-testid="item-row" data-key={item.key}>
      <td>
        <div className={styles.key}>{item.key}</div>
        {item.sourceRunId && (
          <Link href={`/runs/${encodeURIComponent(item.sourceRunId)}`} className="small nowrap" title="The run this item was added from">
            from a run
          </Link>
        )}
      </td>
      <td>
        <span className={styles.goal} title={item.goal}>
          {item.goal}
        </span>
      </td>
      <td className="mono nowrap">{item.agent ?? <span className="muted">any</span>}</td>
      <td className="nowrap" data-testid="item-scenario">
        {scenarioLabel(scenarioTurns(item.scenario))}
      </td>
      <td>
        <span className={styles.expected} title={JSON.stringify(item.expected, null, 2)} data-testid="item-expected">
          {expectedSummary(item.expected)}
        </span>
      </td>
      <td className="num" data-testid="item-version">
        v{item.version}
      </td>
      <td>
        <div className={styles.actions}>
          <button type="button" className="btn btn-sm" onClick={onHistory} aria-label={`History of ${item.key}`} data-testid="item-history">
            History
          </button>
          {!readOnly && (
            <>
              <button type="button" className="btn btn-sm" onClick={onEdit} aria-label={`Edit ${item.key}`} data-testid="item-edit">
                Edit
              </button>
              <button
                type="button"
                className="btn btn-sm btn-danger"
                onClick={onRemove}
                aria-label={`Remove ${item.key}`}
                data-testid="item-remove"
              >
                Remove
              </button>
            </>
          )}
        </div>
      </td>
    </tr>
  );
}

export function ItemsCard({
  dataset,
  readOnly,
  readOnlyReason,
}: {
  dataset: DatasetView;
  readOnly: boolean;
  readOnlyReason: string | null;
}) {
  const utils = trpc.useUtils();
  const items = trpc.evals.items.useQuery({ datasetId: dataset.id });
  const remove = trpc.evals.removeItem.useMutation();
  const [editing, setEditing] = useState<ItemView | "new" | null>(null);
  const [history, setHistory] = useState<string | null>(null);
  const [removing, setRemoving] = useState<ItemView | null>(null);
  const list = items.data ?? [];

  function changed() {
    void utils.evals.items.invalidate({ datasetId: dataset.id });
    void utils.evals.itemHistory.invalidate({ datasetId: dataset.id });
    void utils.evals.datasets.get.invalidate({ id: dataset.id });
    void utils.evals.datasets.list.invalidate();
  }

  return (
    <section className="card" aria-labelledby="items-title" data-testid="items-card">
      <div className="card-header">
        <h2 id="items-title">Items</h2>
        {items.data && <span className="muted small">{list.length}</span>}
        <span className="spacer" />
        {!readOnly ? (
          <button type="button" className="btn btn-sm btn-primary" onClick={() => setEditing("new")} data-testid="item-add">
            + Add item
          </button>
        ) : (
          <button type="button" className="btn btn-sm" disabled title={readOnlyReason ?? undefined}>
            + Add item
          </button>
        )}
      </div>
      <PageShell query={items} loading={<SkeletonRows rows={4} columns={6} />} failed="Could not load the items">
        {() =>
          list.length === 0 ? (
            <EmptyState icon="▤" title="No items yet">
              {readOnly
                ? "Items appear here once someone who may change this dataset adds them."
                : "Add an item by hand, import a JSONL file, or open a finished run and press Add to dataset."}
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="items-table">
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Goal</th>
                    <th scope="col">Agent</th>
                    <th scope="col">Scenario</th>
                    <th scope="col">Expected</th>
                    <th scope="col" className="num">
                      Version
                    </th>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((item) => (
                    <ItemRow
                      key={item.key}
                      item={item}
                      readOnly={readOnly}
                      onEdit={() => setEditing(item)}
                      onHistory={() => setHistory(item.key)}
                      onRemove={() => {
                        remove.reset();
                        setRemoving(item);
                      }}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </PageShell>
      <ItemDialog
        open={editing !== null}
        dataset={dataset}
        item={editing === "new" ? null : editing}
        onClose={() => setEditing(null)}
        onSaved={changed}
      />
      <ItemHistoryDialog open={history !== null} datasetId={dataset.id} itemKey={history} onClose={() => setHistory(null)} />
      <ConfirmAction
        open={removing !== null}
        title={`Remove ${removing?.key ?? "the item"}?`}
        confirmLabel="Remove"
        action={remove}
        onClose={() => setRemoving(null)}
        onConfirm={() =>
          removing &&
          remove.mutate(
            { datasetId: dataset.id, key: removing.key },
            {
              onSuccess() {
                setRemoving(null);
                changed();
              },
            },
          )
        }
      >
        It leaves the dataset. Its versions are kept for the experiments that ran it; adding an item with the same key brings it back as its
        next version.
      </ConfirmAction>
    </section>
  );
}
