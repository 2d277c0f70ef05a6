"use client";
import { useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type ApiTokenView } from "@/lib/trpc";
import { CreateToken } from "./create-token";

function tokenState(t: ApiTokenView, now: number): { label: string; className: string } {
  if (t.revokedAt) return { label: "revoked", className: "status-canceled" };
  if (t.expiresAt && new Date(t.expiresAt).getTime() <= now) return { label: "expired", className: "status-paused" };
  return { label: "active", className: "status-succeeded" };
}

export function TokensPage() {
  const tokens = trpc.identity.tokens.useQuery();
  const utils = trpc.useUtils();
  const [revoking, setRevoking] = useState<ApiTokenView | null>(null);
  const revoke = trpc.identity.revokeToken.useMutation({
    onSuccess: () => {
      setRevoking(null);
      void utils.identity.tokens.invalidate();
    },
  });
  const now = Date.now();

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>API tokens</h1>
          <p>Tokens let scripts, CI and the CLI call Rein&apos;s REST API as you, with your role.</p>
        </div>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        <CreateToken />
        <div className="card">
          <div className="card-header">
            <h2>Your tokens</h2>
          </div>
          <PageShell query={tokens} loading={<SkeletonRows rows={3} columns={5} />} failed="Could not load your tokens">
            {(data) =>
              data.length === 0 ? (
                <EmptyState icon="⚷" title="No API tokens yet">
                  Create one above to call the REST API from scripts or CI.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className="table" data-testid="tokens-table">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>Token</th>
                        <th>Created</th>
                        <th>Last used</th>
                        <th>Expires</th>
                        <th>Status</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {data.map((t) => {
                        const state = tokenState(t, now);
                        return (
                          <tr key={t.id} data-testid="token-row" data-token-id={t.id}>
                            <td style={{ fontWeight: 500 }}>{t.name}</td>
                            <td>
                              <code>{t.prefix}…</code>
                            </td>
                            <td title={formatDateTime(t.createdAt)}>{formatRelative(t.createdAt, now)}</td>
                            <td title={t.lastUsedAt ? formatDateTime(t.lastUsedAt) : undefined}>
                              {t.lastUsedAt ? formatRelative(t.lastUsedAt, now) : <span className="muted">never</span>}
                            </td>
                            <td>{t.expiresAt ? formatDateTime(t.expiresAt) : <span className="muted">never</span>}</td>
                            <td>
                              <span className={`badge ${state.className}`} data-testid="token-status">
                                {state.label}
                              </span>
                              {t.revokedAt && <div className="small muted">{formatRelative(t.revokedAt, now)}</div>}
                            </td>
                            <td style={{ textAlign: "right" }}>
                              {!t.revokedAt && (
                                <button
                                  type="button"
                                  className="btn btn-danger btn-sm"
                                  onClick={() => {
                                    revoke.reset();
                                    setRevoking(t);
                                  }}
                                  data-testid="revoke-token"
                                >
                                  Revoke
                                </button>
                              )}
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
        </div>
      </div>
      <ConfirmAction
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ""}"?`}
        confirmLabel="Revoke token"
        busyLabel="Revoking…"
        cancelLabel="Keep it"
        action={revoke}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        Programs using this token get 401 Unauthorized from now on. This cannot be undone.
      </ConfirmAction>
    </div>
  );
}
