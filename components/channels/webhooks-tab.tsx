"use client";
// Settings › Channels › Webhooks: the endpoints with what they receive and
// how their deliveries went, Add a webhook (its secret shown once), and the
// private hosts webhooks may reach.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { AllowedHostsCard } from "./allowed-hosts-card";
import styles from "./channels.module.css";
import { endpointHref, type Endpoint } from "./format";
import { SecretDialog } from "./secret-dialog";
import { EndpointBadge } from "./state-badges";
import { WebhookDialog } from "./webhook-dialog";

export function WebhooksTab() {
  const router = useRouter();
  const list = trpc.webhooks.list.useQuery(undefined, { refetchInterval: 30_000 });
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ endpoint: Endpoint; secret: string } | null>(null);
  const endpoints = list.data ?? [];

  const addButton = (
    <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} data-testid="webhook-add">
      <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
        +
      </span>
      Add a webhook
    </button>
  );

  return (
    <>
      <div className="card" data-testid="webhooks-card">
        <div className="card-header">
          <h2>Webhooks</h2>
          <span className="spacer" />
          {endpoints.length > 0 && addButton}
        </div>
        <PageShell query={list} loading={<SkeletonRows rows={3} columns={5} />} failed="Could not load the webhooks">
          {() =>
            endpoints.length === 0 ? (
              <EmptyState icon="↗" title="No webhooks yet" action={addButton}>
                A webhook sends what happens in Rein — runs changing state, requests waiting for a person, budgets running out — to a URL of
                yours as a JSON POST. Each request is signed with the Standard Webhooks headers (webhook-id, webhook-timestamp,
                webhook-signature), so your receiver can check it came from Rein; failed deliveries are retried for days.
              </EmptyState>
            ) : (
              <EndpointTable endpoints={endpoints} />
            )
          }
        </PageShell>
      </div>
      <AllowedHostsCard />
      <WebhookDialog
        open={adding}
        onClose={() => setAdding(false)}
        onSaved={(r) => {
          setAdding(false);
          if (r.secret) setCreated({ endpoint: r.endpoint, secret: r.secret });
        }}
      />
      <SecretDialog
        secret={created?.secret ?? null}
        title="The webhook's signing secret"
        onDone={() => {
          const id = created?.endpoint.id;
          setCreated(null);
          if (id) router.push(endpointHref(id));
        }}
      />
    </>
  );
}

function EndpointTable({ endpoints }: { endpoints: Endpoint[] }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="webhooks-table">
        <thead>
          <tr>
            <th>URL</th>
            <th>Events</th>
            <th>Runs of</th>
            <th>State</th>
            <th>Deliveries</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((e) => (
            <tr key={e.id} data-testid="webhook-row" data-url={e.url}>
              <td>
                <Link href={endpointHref(e.id)} className="mono" style={{ wordBreak: "break-all" }}>
                  {e.url}
                </Link>
                {e.description && <div className="small muted">{e.description}</div>}
              </td>
              <td>
                <div className={styles.chips}>
                  {e.eventTypes.map((t) => (
                    <span key={t} className="tag">
                      {t === "*" ? "all events" : t}
                    </span>
                  ))}
                </div>
              </td>
              <td>{e.team?.name ?? <span className="muted">every team</span>}</td>
              <td>
                <EndpointBadge endpoint={e} />
              </td>
              <td>
                <DeliveryCounts counts={e.counts} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function DeliveryCounts({ counts }: { counts: Endpoint["counts"] }) {
  return (
    <span className={styles.counts} data-testid="webhook-counts">
      <span title="Delivered">{counts.succeeded} delivered</span>
      <span title="Waiting for their next attempt">{counts.pending} pending</span>
      <span className={counts.failed ? styles.countFailed : undefined} title="Given up on">
        {counts.failed} failed
      </span>
    </span>
  );
}
