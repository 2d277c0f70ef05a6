"use client";
// Webhooks reach only public addresses (a guard against a URL aimed at
// Rein's own network); a receiver inside the network is reached once its host
// and port are allowed here.
import { useId, useState, type FormEvent } from "react";
import { ErrorState, FieldError, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";
import styles from "./channels.module.css";

export function AllowedHostsCard() {
  const id = useId();
  const utils = trpc.useUtils();
  const hosts = trpc.webhooks.allowHosts.useQuery();
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const save = trpc.webhooks.setAllowHosts.useMutation({
    onSuccess: (r) => {
      utils.webhooks.allowHosts.setData(undefined, r.hosts);
      setDraft("");
      setProblem(null);
    },
    onError: (err) =>
      setProblem(
        issuesOf(err)
          ?.map((i) => i.message)
          .join("; ") || errorMessage(err),
      ),
  });
  const current = hosts.data ?? [];

  function add(e: FormEvent) {
    e.preventDefault();
    const host = draft.trim().toLowerCase();
    if (!host) return setProblem("Type a host name or an address, and its port if it is not 443 or 80");
    if (current.includes(host)) return setProblem(`${host} is already allowed`);
    save.mutate({ hosts: [...current, host] });
  }

  return (
    <div className="card" data-testid="webhook-allowed-hosts">
      <div className="card-header">
        <h2>Allowed private hosts</h2>
      </div>
      <div className="card-body stack" style={{ gap: 12 }}>
        <p className="muted" style={{ margin: 0 }}>
          Webhooks only reach public addresses: Rein refuses a URL whose host is this machine, a private network or a link-local address, so
          a webhook cannot be pointed at services inside your network. To reach a receiver inside the network, allow its host name or
          address here, with its port when it is not the default (hooks.internal:8443); a host without a port is allowed on 443 (https) and
          80 (http) only.
        </p>
        {hosts.isLoading ? (
          <SkeletonRows rows={1} columns={3} />
        ) : hosts.isError ? (
          <ErrorState title="Could not load the allowed hosts" message={errorMessage(hosts.error)} onRetry={() => hosts.refetch()} />
        ) : (
          <div className={styles.hostList} data-testid="webhook-allowed-host-list">
            {current.length === 0 && <span className="muted small">None: webhooks reach public addresses only.</span>}
            {current.map((h) => (
              <span key={h} className={`tag ${styles.hostTag}`} data-testid="webhook-allowed-host" data-host={h}>
                {h}
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  aria-label={`Stop allowing ${h}`}
                  disabled={save.isPending}
                  onClick={() => save.mutate({ hosts: current.filter((x) => x !== h) })}
                >
                  ✕
                </button>
              </span>
            ))}
          </div>
        )}
        <form className="form-inline" onSubmit={add} noValidate>
          <div className="field" style={{ flex: 1, minWidth: 220, maxWidth: 420 }}>
            <label htmlFor={`${id}-host`}>Allow a host</label>
            <input
              id={`${id}-host`}
              className="input mono"
              placeholder="hooks.internal or 10.0.4.12:9000"
              spellCheck={false}
              autoComplete="off"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${id}-host-help`}
              data-testid="webhook-allow-host-input"
            />
          </div>
          <button type="submit" className="btn" disabled={save.isPending || !hosts.data} data-testid="webhook-allow-host-add">
            {save.isPending && <span className="spinner" aria-hidden="true" />}
            Allow
          </button>
        </form>
        {problem ? (
          <FieldError id={`${id}-host-help`} message={problem} testId="webhook-allow-host-error" live />
        ) : (
          <span className="hint" id={`${id}-host-help`}>
            A host name or an IP address, without a scheme or port.
          </span>
        )}
      </div>
    </div>
  );
}
