"use client";
// The models of Settings › Models: what runs may use, with their prices,
// capabilities and strength.
import { useState } from "react";
import { ConfirmAction, EmptyState, ErrorState, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatTokens } from "@/lib/format";
import { NEW_MODEL, modelDraftOf } from "@/lib/model-draft";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import type { ModelFormState } from "./model-dialog";
import styles from "./models.module.css";

type ModelRow = RouterOutputs["models"]["list"][number];

const usd = (n: number) => `$${n}`;

export function ModelsSection({ hasProviders, onOpen }: { hasProviders: boolean; onOpen(state: ModelFormState): void }) {
  const models = trpc.models.list.useQuery();
  // Models failing since they last answered: auto tries them only after every other candidate.
  const health = trpc.models.health.useQuery(undefined, { refetchInterval: 15_000 });
  const failing = new Map((health.data ?? []).map((h) => [h.ref, h]));
  const utils = trpc.useUtils();
  const [deleting, setDeleting] = useState<ModelRow | null>(null);
  const remove = trpc.models.delete.useMutation({
    onSuccess: async () => {
      setDeleting(null);
      await Promise.all([utils.models.list.invalidate(), utils.models.providers.invalidate(), utils.models.options.invalidate()]);
    },
  });
  const list = models.data ?? [];
  return (
    <section className="card" aria-labelledby="models-title" data-testid="models-section">
      <div className="card-header">
        <h2 id="models-title">Models</h2>
        <span className="spacer" />
        {!hasProviders && <span className="small muted">Add a provider first.</span>}
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={!hasProviders}
          onClick={() => onOpen({ draft: NEW_MODEL, editing: false })}
          data-testid="add-model"
        >
          + Add model
        </button>
      </div>
      {models.isLoading ? (
        <SkeletonRows rows={2} columns={7} />
      ) : models.isError ? (
        <ErrorState title="Could not load the models" message={errorMessage(models.error)} onRetry={() => models.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState icon="✳" title="No models yet">
          {hasProviders
            ? "Add one here, or press Test on a provider and add models from its list."
            : "Add a provider, then the models of it that runs may use."}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className={`table ${styles.table}`} data-testid="models-table">
            <thead>
              <tr>
                <th>Model</th>
                <th>Family</th>
                <th className="num">Context</th>
                <th className="num">
                  Price in / out
                  <div className="small muted" style={{ textTransform: "none", fontWeight: 400 }}>
                    $ / 1M tokens
                  </div>
                </th>
                <th>Capabilities</th>
                <th className="num">Strength</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.ref} data-testid="model-row" data-model={m.ref}>
                  <td>
                    <code className={styles.ref}>{m.ref}</code>
                  </td>
                  <td>{m.family}</td>
                  <td className="num">{formatTokens(m.contextWindow)}</td>
                  <td className="num" data-testid="model-prices">
                    {m.prices ? (
                      `${usd(m.prices.inputPerMTok)} / ${usd(m.prices.outputPerMTok)}`
                    ) : (
                      <span className="muted" title="Calls count as $0">
                        no price
                      </span>
                    )}
                  </td>
                  <td>
                    <span className={styles.badges}>
                      {m.tools && <span className="badge badge-outline">tools</span>}
                      {m.vision && <span className="badge badge-outline">vision</span>}
                      {m.streaming && <span className="badge badge-outline">streaming</span>}
                    </span>
                  </td>
                  <td className="num">{m.strength}</td>
                  <td>
                    <span className={`badge ${m.enabled ? "badge-ok" : ""}`}>{m.enabled ? "enabled" : "disabled"}</span>
                    <FailingNote health={failing.get(m.ref)} />
                  </td>
                  <td className={styles.actions}>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => onOpen({ draft: modelDraftOf(m), editing: true })}
                      aria-label={`Edit ${m.ref}`}
                      data-testid="model-edit"
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="btn btn-sm btn-danger"
                      onClick={() => (remove.reset(), setDeleting(m))}
                      aria-label={`Delete ${m.ref}`}
                      data-testid="model-delete"
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmAction
        open={deleting !== null}
        title={`Delete the model ${deleting?.ref ?? ""}?`}
        confirmLabel="Delete model"
        busyLabel="Deleting…"
        action={remove}
        onConfirm={() => deleting && remove.mutate({ ref: deleting.ref })}
        onClose={() => setDeleting(null)}
      >
        Runs that name it will be refused and routing rules skip it. Its price stays in Settings › Prices; runs already made keep their
        history.
      </ConfirmAction>
    </section>
  );
}

type Health = RouterOutputs["models"]["health"][number];

/** A model that failed since it last answered: how often, why in words, and until when auto tries it last. */
function FailingNote({ health: h }: { health?: Health }) {
  if (!h) return null;
  const until = h.coolingUntil
    ? new Date(h.coolingUntil).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    : null;
  return (
    <div className={`small ${styles.failing}`} data-testid="model-failing" title={h.words}>
      <span className="badge badge-error">
        failed {h.failures} time{h.failures === 1 ? "" : "s"} in a row
      </span>{" "}
      {until ? `Auto tries it only after the other models until ${until}.` : "Auto tries it again; it rests longer after each failure."}
      <div className="muted">{h.words}</div>
    </div>
  );
}
