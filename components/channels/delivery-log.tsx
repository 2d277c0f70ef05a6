"use client";
// The delivery log of one webhook: newest first, filtered by state, a page
// at a time; a click opens the delivery with every attempt.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { EmptyState, ErrorState, SkeletonRows, PagedFooter } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import styles from "./channels.module.css";
import { DeliveryDrawer } from "./delivery-drawer";
import { DELIVERY_STATES, statusWords, type DeliveryState, type Endpoint } from "./format";
import { DeliveryBadge } from "./state-badges";
import { deliveriesKey, useDeliveries } from "./use-deliveries";

const FILTERS: Array<{ value: DeliveryState | null; label: string }> = [
  { value: null, label: "All" },
  { value: "pending", label: DELIVERY_STATES.pending.label },
  { value: "succeeded", label: DELIVERY_STATES.succeeded.label },
  { value: "failed", label: DELIVERY_STATES.failed.label },
];

export function DeliveryLog({ endpoint }: { endpoint: Endpoint }) {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const [state, setState] = useState<DeliveryState | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const log = useDeliveries(endpoint.id, state);
  const deliveries = log.data?.pages.flatMap((p) => p.deliveries) ?? [];
  // The header's counts follow the log.
  const updatedAt = log.dataUpdatedAt;
  useEffect(() => {
    if (updatedAt) void utils.webhooks.get.invalidate({ id: endpoint.id });
  }, [updatedAt, endpoint.id, utils]);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: deliveriesKey(endpoint.id) });
    void utils.webhooks.get.invalidate({ id: endpoint.id });
  };

  return (
    <div className="card" data-testid="delivery-log">
      <div className="card-header">
        <h2>Deliveries</h2>
      </div>
      <div className={styles.toolbar}>
        <div className="row" style={{ gap: 6 }} role="group" aria-label="Show deliveries">
          {FILTERS.map((f) => (
            <button
              key={f.label}
              type="button"
              className="chip"
              aria-pressed={state === f.value}
              onClick={() => setState(f.value)}
              data-testid={`delivery-filter-${f.value ?? "all"}`}
            >
              {f.label}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <button type="button" className="btn btn-ghost btn-sm" onClick={refresh} disabled={log.isFetching} data-testid="delivery-refresh">
          {log.isFetching && !log.isFetchingNextPage && <span className="spinner" aria-hidden="true" />}
          Refresh
        </button>
      </div>
      {log.isLoading ? (
        <SkeletonRows rows={4} columns={6} />
      ) : log.isError && deliveries.length === 0 ? (
        <ErrorState title="Could not load the deliveries" message={errorMessage(log.error)} onRetry={() => log.refetch()} />
      ) : deliveries.length === 0 ? (
        <EmptyState icon="↗" title={state ? `No ${DELIVERY_STATES[state].label} deliveries` : "Nothing sent yet"}>
          {state
            ? "Choose another state above."
            : "Each event this webhook receives appears here as it is sent, with every attempt. Send a test ping to see one now."}
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="delivery-table">
            <thead>
              <tr>
                <th>Time</th>
                <th>Event</th>
                <th>State</th>
                <th className="num">Attempts</th>
                <th>Last answer</th>
                <th>Next retry</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr
                  key={d.id}
                  className={open === d.id ? styles.selected : undefined}
                  data-testid="delivery-row"
                  data-type={d.type}
                  data-state={d.state}
                  data-id={d.id}
                >
                  <td className="nowrap">
                    <button
                      type="button"
                      className={styles.rowButton}
                      onClick={() => setOpen(d.id)}
                      title={formatDateTime(d.createdAt)}
                      data-testid="delivery-open"
                    >
                      {formatDateTime(d.createdAt)}
                    </button>
                  </td>
                  <td>
                    <code>{d.type}</code>
                  </td>
                  <td>
                    <DeliveryBadge state={d.state} />
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td className="small" data-testid="delivery-last-status">
                    {d.attempts === 0 ? <span className="muted">—</span> : statusWords(d.lastStatus, d.lastError)}
                  </td>
                  <td className="small">
                    {d.nextAttemptAt ? (
                      formatDateTime(d.nextAttemptAt)
                    ) : (
                      <span className="muted">{d.state === "pending" && d.attempts > 0 ? "none: sent by hand" : "—"}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <PagedFooter query={log} failed={deliveries.length > 0 ? "Could not refresh the log" : null} testId="delivery-load-more" small />
      {open && <DeliveryDrawer deliveryId={open} endpointId={endpoint.id} enabled={endpoint.enabled} onClose={() => setOpen(null)} />}
    </div>
  );
}
