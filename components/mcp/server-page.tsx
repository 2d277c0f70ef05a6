"use client";
// One MCP server (admins): its health and why, the end of its stderr when it
// failed, what it says it is, Test (restart), turn off or on, remove, and its
// tools with what each may do and who gets it.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmAction, EmptyState, ErrorBlock, ErrorState, Skeleton } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { tokens, transportWords, type McpServerView } from "./format";
import { HealthBadge } from "./health-badge";
import { OAuthCard } from "./oauth-card";
import { ToolsTable } from "./tools-table";

export function McpServerPage({ name }: { name: string }) {
  return (
    <RequireRole
      role="admin"
      title="MCP servers need the admin role"
      why="Only admins attach MCP servers and choose which of their tools agents get."
    >
      {() => <ServerDetail name={name} />}
    </RequireRole>
  );
}

function ServerDetail({ name }: { name: string }) {
  const server = trpc.mcp.get.useQuery(
    { name },
    {
      refetchInterval: (q) => (q.state.data?.health === "starting" ? 1000 : false),
      retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2,
    },
  );
  return (
    <div className="page" data-testid="mcp-server-page">
      <div className="small" style={{ marginBottom: 8 }}>
        <Link href="/settings/mcp">← MCP servers</Link>
      </div>
      {server.isLoading ? (
        <div className="stack">
          <Skeleton width={260} height={28} />
          <Skeleton height={120} />
        </div>
      ) : server.isError || !server.data ? (
        errorCode(server.error) === "NOT_FOUND" ? (
          <EmptyState icon="?" title={`There is no MCP server named ${name}`}>
            It may have been removed. <Link href="/settings/mcp">See the servers</Link>.
          </EmptyState>
        ) : (
          <ErrorState
            title="Could not load the server"
            message={server.error ? errorMessage(server.error) : "No data"}
            onRetry={() => server.refetch()}
          />
        )
      ) : (
        <Loaded server={server.data} />
      )}
    </div>
  );
}

function Loaded({ server }: { server: McpServerView }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const [removing, setRemoving] = useState(false);
  const refresh = (s?: McpServerView) => {
    if (s) utils.mcp.get.setData({ name: server.name }, s);
    void utils.mcp.list.invalidate();
    void utils.mcp.pendingReviews.invalidate();
  };
  const test = trpc.mcp.test.useMutation({ onSuccess: refresh });
  const toggle = trpc.mcp.update.useMutation({ onSuccess: refresh });
  const remove = trpc.mcp.remove.useMutation({
    onSuccess: () => {
      void utils.mcp.list.invalidate();
      router.push("/settings/mcp");
    },
  });
  const info = server.info;
  const tools = server.tools ?? [];
  const failure = test.error ?? toggle.error;

  return (
    <div className="stack" style={{ gap: 16 }}>
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1 className="row" style={{ gap: 10 }}>
            <span className="mono" style={{ fontSize: "inherit" }}>
              {server.name}
            </span>
            <HealthBadge health={server.health} />
            {!server.enabled && <span className="badge badge-outline">turned off</span>}
          </h1>
          <p>
            {transportWords(server.transport)} · {server.enabledCount} of {server.toolCount} tools on · {tokens(server.enabledTokens)}{" "}
            tokens · a call may take up to {server.config.callTimeoutSec} s
            {server.lastSeenAt && <> · last ready {formatRelative(server.lastSeenAt, Date.now())}</>}
          </p>
        </div>
        <div className="row" style={{ gap: 8 }}>
          <button
            type="button"
            className="btn"
            onClick={() => test.mutate({ name: server.name })}
            disabled={test.isPending || !server.enabled}
            title={server.enabled ? "Restart the server now and read its tools" : "Turn it on to test it"}
            data-testid="mcp-test"
          >
            {test.isPending && <span className="spinner" aria-hidden="true" />}
            {test.isPending ? "Restarting…" : "Test (restart)"}
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => toggle.mutate({ name: server.name, patch: { enabled: !server.enabled } })}
            disabled={toggle.isPending}
            data-testid="mcp-toggle"
          >
            {toggle.isPending && <span className="spinner" aria-hidden="true" />}
            {server.enabled ? "Turn off" : "Turn on"}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => (remove.reset(), setRemoving(true))} data-testid="mcp-remove">
            Remove
          </button>
        </div>
      </div>
      <ErrorBlock error={failure} />
      <section className="card card-body stack" aria-label="Health" data-testid="mcp-health-card">
        {server.health === "ready" ? (
          <div>The server is running and answered Rein&apos;s handshake.</div>
        ) : server.health === "starting" ? (
          <div role="status">Starting the server and reading its tools…</div>
        ) : server.health === "failed" ? (
          <ErrorBlock testId="mcp-reason">{server.reason ?? "The server failed."}</ErrorBlock>
        ) : (
          <div className="muted" data-testid="mcp-reason">
            {server.reason ?? "The server is not running."}
          </div>
        )}
        {server.health === "failed" && server.stderrTail && (
          <div className="field">
            <span className="label">The end of its stderr</span>
            <pre className="code-block mono" data-testid="mcp-stderr">
              {server.stderrTail}
            </pre>
          </div>
        )}
        {info && (
          <dl className="row small" style={{ gap: 24, flexWrap: "wrap", margin: 0 }} data-testid="mcp-server-info">
            <div>
              <dt className="muted">Server</dt>
              <dd className="mono" style={{ margin: 0 }}>
                {info.name}
              </dd>
            </div>
            <div>
              <dt className="muted">Version</dt>
              <dd className="mono" style={{ margin: 0 }}>
                {info.version}
              </dd>
            </div>
            <div>
              <dt className="muted">Protocol</dt>
              <dd className="mono" style={{ margin: 0 }}>
                {info.protocolVersion ?? "—"}
                {info.era && (
                  <span className="muted"> · {info.era === "modern" ? "server/discover, no session" : "initialize handshake"}</span>
                )}
              </dd>
            </div>
          </dl>
        )}
      </section>
      {server.oauth && <OAuthCard server={server} onChanged={() => void utils.mcp.get.invalidate({ name: server.name })} />}
      <ToolsTable server={server.name} tools={tools} onChanged={() => refresh()} />
      <ConfirmAction
        open={removing}
        title={`Remove the MCP server ${server.name}?`}
        confirmLabel="Remove server"
        busyLabel="Removing…"
        action={remove}
        onConfirm={() => remove.mutate({ name: server.name })}
        onClose={() => setRemoving(false)}
      >
        It stops, and its tools leave every agent at once: runs that call them get an error. Its pinned definitions are forgotten; adding it
        again starts with every tool off.
      </ConfirmAction>
    </div>
  );
}
