"use client";
// One delivery in a side panel: its payload and every attempt (what went
// out, what came back, how long it took, when the next retry is), and Resend
// — the same webhook-id again, so a receiver can tell it is a repeat.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { JsonBlock } from "@/components/json-block";
import { ErrorBlock, ErrorState, Skeleton } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { AttemptCard } from "./attempt-card";
import styles from "./channels.module.css";
import { prettyBody, stillMoving } from "./format";
import { DeliveryBadge } from "./state-badges";
import { deliveriesKey } from "./use-deliveries";

export function DeliveryDrawer({
  deliveryId,
  endpointId,
  enabled,
  onClose,
}: {
  deliveryId: string;
  endpointId: string;
  enabled: boolean;
  onClose(): void;
}) {
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const ref = useRef<HTMLDivElement>(null);
  const delivery = trpc.webhooks.delivery.useQuery(
    { id: deliveryId },
    { refetchInterval: (q) => (q.state.data && stillMoving(q.state.data) ? 2000 : false) },
  );
  const resend = trpc.webhooks.resend.useMutation({
    onSettled: () => {
      void utils.webhooks.delivery.invalidate({ id: deliveryId });
      void utils.webhooks.get.invalidate({ id: endpointId });
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(endpointId) });
    },
  });
  const resetResend = resend.reset;
  useEffect(() => resetResend(), [deliveryId, resetResend]);

  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !document.querySelector("dialog[open]")) onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [deliveryId, onClose]);

  const d = delivery.data;
  return (
    <aside
      ref={ref}
      tabIndex={-1}
      className={styles.drawer}
      role="dialog"
      aria-modal="false"
      aria-labelledby="delivery-title"
      data-testid="delivery-drawer"
    >
      <div className={styles.drawerHead}>
        <div style={{ flex: 1, minWidth: 0 }}>
          <h2 id="delivery-title" style={{ margin: 0, fontSize: 16 }}>
            {d ? <code>{d.type}</code> : "Delivery"}
          </h2>
          {d && (
            <div
              className="small muted mono"
              data-testid="delivery-message-id"
              title="The webhook-id header: the same on every attempt and resend"
            >
              webhook-id {d.messageId}
            </div>
          )}
        </div>
        {d && <DeliveryBadge state={d.state} />}
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          aria-label="Close the delivery"
          onClick={onClose}
          data-testid="delivery-close"
        >
          ✕
        </button>
      </div>
      <div className={styles.drawerBody}>
        {delivery.isLoading ? (
          <div className="stack" role="status" aria-label="Loading the delivery">
            <Skeleton width="60%" />
            <Skeleton height={120} />
            <Skeleton height={120} />
          </div>
        ) : delivery.isError || !d ? (
          <ErrorState
            title="Could not load the delivery"
            message={delivery.error ? errorMessage(delivery.error) : "No data"}
            onRetry={() => delivery.refetch()}
          />
        ) : (
          <>
            <div className="row" style={{ gap: 8, flexWrap: "wrap" }}>
              <button
                type="button"
                className="btn btn-primary"
                onClick={() => resend.mutate({ id: d.id })}
                disabled={resend.isPending || !enabled}
                title={enabled ? undefined : "Turn the webhook on to resend"}
                data-testid="delivery-resend"
              >
                {resend.isPending && <span className="spinner" aria-hidden="true" />}
                {resend.isPending ? "Sending…" : "Resend"}
              </button>
              <span className="small muted">Sends it again now with the same webhook-id, whatever became of it.</span>
            </div>
            {resend.isError && <ErrorBlock error={resend.error} />}
            <JsonBlock value={prettyBody(d.body)} summary="Payload" open testId="delivery-payload" />
            <div className="panel-title">{d.log.length === 1 ? "1 attempt" : `${d.log.length} attempts`}, newest first</div>
            {d.log.length === 0 && <p className="muted small">Not tried yet: the first attempt is on its way.</p>}
            {d.log.map((a) => (
              <AttemptCard key={a.id} attempt={a} />
            ))}
          </>
        )}
      </div>
    </aside>
  );
}
