"use client";
// Settings › MCP servers (admins, docs/mcp.md): the Model Context Protocol
// servers whose tools agents may call through Rein's policy gate. Attach one
// (or the offline demo), see each one's health, and open it to turn its tools on.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { RequireRole } from "@/components/require-role";
import { EmptyState, ErrorBlock, PageShell, SkeletonRows } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { AddServerDialog } from "./add-server-dialog";
import { BudgetCard } from "./budget-card";
import { tokens, transportWords } from "./format";
import { HealthBadge } from "./health-badge";

export function McpPage() {
  return (
    <RequireRole
      role="admin"
      title="MCP servers need the admin role"
      why="Only admins attach MCP servers and choose which of their tools agents get."
    >
      {() => <McpServers />}
    </RequireRole>
  );
}

export const serverHref = (name: string) => `/settings/mcp/${encodeURIComponent(name)}`;

function McpServers() {
  const router = useRouter();
  const utils = trpc.useUtils();
  const [adding, setAdding] = useState(false);
  const list = trpc.mcp.list.useQuery(undefined, {
    refetchInterval: (q) => (q.state.data?.servers.some((s) => s.health === "starting") ? 1000 : false),
  });
  const demo = trpc.mcp.addDemo.useMutation({
    onSuccess: (server) => {
      void utils.mcp.list.invalidate();
      router.push(serverHref(server.name));
    },
  });
  const servers = list.data?.servers ?? [];
  const hasDemo = servers.some((s) => s.name === "everything");

  const addButtons = (
    <div className="row" style={{ gap: 8, justifyContent: "center" }}>
      {!hasDemo && (
        <button type="button" className="btn" onClick={() => demo.mutate()} disabled={demo.isPending} data-testid="mcp-add-demo">
          {demo.isPending && <span className="spinner" aria-hidden="true" />}
          {demo.isPending ? "Starting the demo…" : "Add the demo server"}
        </button>
      )}
      <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} data-testid="mcp-add">
        <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
          +
        </span>
        Add a server
      </button>
    </div>
  );

  return (
    <div className="page" data-testid="mcp-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>MCP servers</h1>
          <p>
            Model Context Protocol servers give agents more tools. Each call goes through Rein&apos;s policy gate like any other tool (its
            policy name is <code>mcp:&lt;server&gt;/&lt;tool&gt;</code>); a server runs in the sandbox over stdio, or is reached over
            Streamable HTTP. A tool reaches agents only once you turn it on, and one whose definition changes is turned off until you review
            the change.
          </p>
        </div>
        {servers.length > 0 && addButtons}
      </div>
      <div className="stack" style={{ gap: 16 }}>
        <ErrorBlock error={demo.error} testId="mcp-demo-error" />
        <div className="card">
          <div className="card-header">
            <h2>Servers</h2>
          </div>
          <PageShell query={list} loading={<SkeletonRows rows={3} columns={6} />} failed="Could not load the MCP servers">
            {() =>
              servers.length === 0 ? (
                <EmptyState icon="ƒ" title="No MCP servers yet" action={addButtons}>
                  An MCP server is a program or web service that offers tools through the Model Context Protocol. The demo is the
                  protocol&apos;s reference server (echo, sums, a long operation with progress); it runs in the sandbox and needs no
                  network.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className="table" data-testid="mcp-servers">
                    <thead>
                      <tr>
                        <th>Server</th>
                        <th>Transport</th>
                        <th>Health</th>
                        <th className="num">Tools on</th>
                        <th className="num">Tokens</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {servers.map((s) => (
                        <tr key={s.name} data-testid="mcp-server-row" data-server={s.name}>
                          <td>
                            <Link href={serverHref(s.name)} className="mono">
                              {s.name}
                            </Link>
                            {!s.enabled && (
                              <span className="badge badge-outline" style={{ marginLeft: 6 }}>
                                off
                              </span>
                            )}
                          </td>
                          <td>{transportWords(s.transport)}</td>
                          <td>
                            <HealthBadge health={s.health} />
                            {s.health === "failed" && s.reason && (
                              <div className="small muted" style={{ maxWidth: 360 }}>
                                {s.reason}
                              </div>
                            )}
                          </td>
                          <td className="num">
                            {s.enabledCount} / {s.toolCount}
                          </td>
                          <td className="num">{tokens(s.enabledTokens)}</td>
                          <td style={{ textAlign: "right" }}>
                            {s.changedCount > 0 && (
                              <Link href={serverHref(s.name)} className="badge status-paused" data-testid="mcp-changed-count">
                                {s.changedCount} changed — review
                              </Link>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
        </div>
        {list.data && <BudgetCard key={list.data.budget.tokens} budget={list.data.budget} />}
      </div>
      <AddServerDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(server) => {
          setAdding(false);
          router.push(serverHref(server.name));
        }}
      />
    </div>
  );
}
