"use client";
// A hosted MCP server's OAuth authorization (docs/mcp.md#oauth): whether Rein
// holds tokens, who authorized it and until when, why an admin must act, and
// Authorize, which sends this admin's browser to the server's own login.
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { ConfirmAction, ErrorBlock } from "@/components/ui";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import type { McpServerView } from "./format";

type OAuthView = NonNullable<McpServerView["oauth"]>;

const STATUS_WORDS: Record<OAuthView["status"], string> = {
  authorized: "Authorized",
  not_authorized: "Not authorized yet",
  expired: "Authorization needed again",
};

export function OAuthCard({ server, onChanged }: { server: McpServerView; onChanged: () => void }) {
  const oauth = server.oauth!;
  const back = useSearchParams().get("oauth");
  const [forgetting, setForgetting] = useState(false);
  const authorize = trpc.mcp.authorize.useMutation({
    // The server's own login page: the browser comes back to Rein's callback, then here.
    onSuccess: ({ authorizationUrl }) => window.location.assign(authorizationUrl),
  });
  const forget = trpc.mcp.forgetAuthorization.useMutation({
    onSuccess: () => {
      setForgetting(false);
      onChanged();
    },
  });
  const authorized = oauth.status === "authorized";
  return (
    <section className="card card-body stack" aria-label="Authorization" data-testid="mcp-oauth-card">
      <div className="row" style={{ gap: 10 }}>
        <strong>OAuth</strong>
        <span className={`badge ${authorized ? "badge-ok" : "badge-error"}`} data-testid="mcp-oauth-status" data-status={oauth.status}>
          {STATUS_WORDS[oauth.status]}
        </span>
        <span className="spacer" style={{ flex: 1 }} />
        <button
          type="button"
          className={`btn ${authorized ? "" : "btn-primary"}`}
          onClick={() => authorize.mutate({ name: server.name })}
          disabled={authorize.isPending}
          title="Log in at the server's authorization server and let Rein act for you there"
          data-testid="mcp-oauth-authorize"
        >
          {authorize.isPending && <span className="spinner" aria-hidden="true" />}
          {authorized ? "Authorize again" : "Authorize"}
        </button>
        {(authorized || oauth.status === "expired") && (
          <button type="button" className="btn" onClick={() => (forget.reset(), setForgetting(true))} data-testid="mcp-oauth-forget">
            Forget tokens
          </button>
        )}
      </div>
      {back === "authorized" && authorized && (
        <div className="alert alert-success small" role="status" data-testid="mcp-oauth-done">
          Rein is authorized at this server now.
        </div>
      )}
      {oauth.problem && <ErrorBlock testId="mcp-oauth-problem">{oauth.problem}</ErrorBlock>}
      <ErrorBlock error={authorize.error} />
      <dl className="row small" style={{ gap: 24, flexWrap: "wrap", margin: 0 }}>
        {oauth.authorizedBy && (
          <div>
            <dt className="muted">Authorized by</dt>
            <dd style={{ margin: 0 }} data-testid="mcp-oauth-by">
              {oauth.authorizedBy.name}
              {oauth.authorizedAt && <span className="muted"> · {formatRelative(oauth.authorizedAt, Date.now())}</span>}
            </dd>
          </div>
        )}
        {oauth.expiresAt && authorized && (
          <div>
            <dt className="muted">Access token until</dt>
            <dd style={{ margin: 0 }} title="Rein refreshes it when the server says it ended">
              {formatDateTime(oauth.expiresAt)}
            </dd>
          </div>
        )}
        {oauth.scope && (
          <div>
            <dt className="muted">Scope</dt>
            <dd className="mono" style={{ margin: 0 }}>
              {oauth.scope}
            </dd>
          </div>
        )}
        {oauth.issuer && (
          <div>
            <dt className="muted">Authorization server</dt>
            <dd className="mono" style={{ margin: 0 }}>
              {oauth.issuer}
            </dd>
          </div>
        )}
        <div>
          <dt className="muted">Callback</dt>
          <dd className="mono" style={{ margin: 0 }} title="What to register when you bring a client of your own">
            {oauth.redirectUrl}
          </dd>
        </div>
      </dl>
      <ConfirmAction
        open={forgetting}
        title={`Forget Rein's tokens for ${server.name}?`}
        confirmLabel="Forget tokens"
        busyLabel="Forgetting…"
        action={forget}
        onConfirm={() => forget.mutate({ name: server.name })}
        onClose={() => setForgetting(false)}
      >
        Rein deletes its tokens and client registration for this server; its tools fail until an admin authorizes Rein again. To revoke
        access at the server itself, do it there as well.
      </ConfirmAction>
    </section>
  );
}
