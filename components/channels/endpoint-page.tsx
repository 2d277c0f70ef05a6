"use client";
// One webhook (admins): its URL and state, what it receives, the actions
// (test ping, rotate, turn off or on, edit, recover, remove) and its delivery
// log with every attempt.
import Link from "next/link";
import { EmptyState, ErrorState, Skeleton } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import styles from "./channels.module.css";
import { DeliveryLog } from "./delivery-log";
import { EndpointActions } from "./endpoint-actions";
import { CHANNELS_HREF, type Endpoint } from "./format";
import { EndpointBadge } from "./state-badges";
import { DeliveryCounts } from "./webhooks-tab";

export function EndpointPage({ id }: { id: string }) {
  return (
    <RequireRole role="admin" title="Webhooks need the admin role" why="Only admins add webhooks and read what was sent to them.">
      {() => <EndpointDetail id={id} />}
    </RequireRole>
  );
}

function EndpointDetail({ id }: { id: string }) {
  const endpoint = trpc.webhooks.get.useQuery({ id }, { retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2 });
  return (
    <div className="page" data-testid="webhook-page">
      <div className="small" style={{ marginBottom: 8 }}>
        <Link href={CHANNELS_HREF}>← Channels</Link>
      </div>
      {endpoint.isLoading ? (
        <div className="stack" role="status" aria-label="Loading the webhook">
          <Skeleton width={360} height={28} />
          <Skeleton width={240} />
          <Skeleton height={160} />
        </div>
      ) : endpoint.isError || !endpoint.data ? (
        errorCode(endpoint.error) === "NOT_FOUND" ? (
          <EmptyState icon="?" title="There is no such webhook">
            It may have been removed. <Link href={CHANNELS_HREF}>See the webhooks</Link>.
          </EmptyState>
        ) : (
          <ErrorState
            title="Could not load the webhook"
            message={endpoint.error ? errorMessage(endpoint.error) : "No data"}
            onRetry={() => endpoint.refetch()}
          />
        )
      ) : (
        <Loaded endpoint={endpoint.data} />
      )}
    </div>
  );
}

function Loaded({ endpoint }: { endpoint: Endpoint }) {
  return (
    <div className="stack" style={{ gap: 16 }}>
      <div className={styles.headerRow}>
        <div className="page-title-block" style={{ flex: 1, minWidth: 280 }}>
          <h1 className={styles.url} data-testid="webhook-url-heading">
            {endpoint.url}
          </h1>
          <div className="row" style={{ gap: 10, flexWrap: "wrap", marginTop: 6 }}>
            <EndpointBadge endpoint={endpoint} />
            <DeliveryCounts counts={endpoint.counts} />
          </div>
          {endpoint.description && <p>{endpoint.description}</p>}
        </div>
      </div>
      {!endpoint.enabled && (
        <div className="alert alert-warn" data-testid="webhook-off-reason">
          Off since {formatDateTime(endpoint.disabledAt)}: {endpoint.disabledReason ?? "turned off"}. Nothing is sent to it; turn it on,
          then Recover what it missed.
        </div>
      )}
      {endpoint.rotatingUntil && (
        <div className="alert alert-info" data-testid="webhook-rotating">
          The secret was rotated: the previous secret also signs every request until {formatDateTime(endpoint.rotatingUntil)}, so receivers
          can switch over.
        </div>
      )}
      <div className="card">
        <div className="card-body">
          <dl className="facts">
            <dt>Events</dt>
            <dd>
              <div className="tag-list">
                {endpoint.eventTypes.map((t) => (
                  <span key={t} className="tag">
                    {t === "*" ? "all events" : t}
                  </span>
                ))}
              </div>
            </dd>
            <dt>Runs of</dt>
            <dd>{endpoint.team?.name ?? "every team"}</dd>
            <dt>Added</dt>
            <dd>{formatDateTime(endpoint.createdAt)}</dd>
          </dl>
          <EndpointActions endpoint={endpoint} />
        </div>
      </div>
      <DeliveryLog endpoint={endpoint} />
    </div>
  );
}
