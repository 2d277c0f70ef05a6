"use client";
// Settings › Prices: the model price table (docs/traces-and-costs.md#prices).
// Admins edit it; everyone else reads it, to see where the Costs page's figures
// come from.
import Link from "next/link";
import { useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { PRICE_FIELDS } from "@/lib/price-draft";
import { trpc } from "@/lib/trpc";
import { NewPriceRow, PriceRow, type PriceView } from "./price-row";
import styles from "./prices.module.css";

export function PricesPage() {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const prices = trpc.prices.list.useQuery();
  const utils = trpc.useUtils();
  const [deleting, setDeleting] = useState<PriceView | null>(null);
  const [prefill, setPrefill] = useState<{ model: string; at: number } | null>(null);
  const remove = trpc.prices.delete.useMutation({
    onSuccess: () => {
      setDeleting(null);
      void utils.prices.list.invalidate();
      void utils.costs.summary.invalidate();
    },
  });

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Model prices</h1>
          <p>USD per million tokens, used to cost every model call on the run page, in traces and on the Costs page.</p>
        </div>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        <div className="alert alert-info" data-testid="prices-note">
          <div>
            Cached input tokens are charged at the cache-read price and cache writes at the cache-write price; the rest of the input at the
            input price. The <strong>scripted</strong> models (<code>scripted/…</code>) are free unless you price them here. A model with no
            price counts as <strong>$0</strong> and is flagged on the <Link href="/costs">Costs</Link> page. A change applies to calls made
            after it; calls already made keep their cost.
          </div>
        </div>
        {!isAdmin && me && <div className="alert alert-warn">Only admins can change prices. You are {me.role}.</div>}
        {prices.data && prices.data.unpriced.length > 0 && (
          <div className="alert alert-warn" data-testid="unpriced-models">
            <div>
              Used without a price (counted as $0):{" "}
              {prices.data.unpriced.map((m, i) => (
                <span key={m}>
                  {i > 0 && ", "}
                  {isAdmin ? (
                    <button
                      type="button"
                      className="btn-link"
                      onClick={() => setPrefill({ model: m, at: Date.now() })}
                      title="Put it in the new row"
                    >
                      {m}
                    </button>
                  ) : (
                    <code>{m}</code>
                  )}
                </span>
              ))}
            </div>
          </div>
        )}
        <div className="card">
          <PageShell query={prices} loading={<SkeletonRows rows={3} columns={6} />} failed="Could not load the prices">
            {(data) =>
              data.prices.length === 0 && !isAdmin ? (
                <EmptyState icon="$" title="No prices yet">
                  Every model call counts as $0 until an admin sets prices here.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className={`table ${styles.table}`} data-testid="prices-table">
                    <thead>
                      <tr>
                        <th>Model</th>
                        {PRICE_FIELDS.map((f) => (
                          <th key={f.key} className={styles.num}>
                            {f.label}
                            <div className={styles.unit}>$ / 1M tokens</div>
                          </th>
                        ))}
                        <th>Updated</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {data.prices.map((p) =>
                        isAdmin ? (
                          <PriceRow key={p.model} price={p} onDelete={(price) => (remove.reset(), setDeleting(price))} />
                        ) : (
                          <tr key={p.model} data-testid="price-row" data-model={p.model}>
                            <td>
                              <code className={styles.model}>{p.model}</code>
                            </td>
                            {PRICE_FIELDS.map((f) => (
                              <td key={f.key} className={styles.num}>
                                {p[f.key]}
                              </td>
                            ))}
                            <td className="small muted">{p.updatedBy?.name ?? ""}</td>
                            <td />
                          </tr>
                        ),
                      )}
                      {isAdmin && data.prices.length === 0 && (
                        <tr>
                          <td colSpan={7} className="muted small">
                            No prices yet: every model call counts as $0. Add the models you use below.
                          </td>
                        </tr>
                      )}
                      {isAdmin && <NewPriceRow prefill={prefill} />}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
        </div>
      </div>
      <ConfirmAction
        open={deleting !== null}
        title={`Delete the price of ${deleting?.model ?? ""}?`}
        confirmLabel="Delete price"
        busyLabel="Deleting…"
        action={remove}
        onConfirm={() => deleting && remove.mutate({ model: deleting.model })}
        onClose={() => setDeleting(null)}
      >
        Its calls from now on count as $0 and are flagged on the Costs page. Calls already made keep their cost.
      </ConfirmAction>
    </div>
  );
}
