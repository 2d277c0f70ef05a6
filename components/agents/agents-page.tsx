"use client";
// Agents (/agents): every agent the caller may see, with its version, model,
// team and last change; operators create, copy, import, export and archive.
import Link from "next/link";
import { useState } from "react";
import { ModelLabel } from "@/components/model-label";
import { NewRunButton } from "@/components/new-run";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { formatDateTime, formatRelative, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { AgentActions } from "./agent-actions";
import { ImportDialog } from "./import-dialog";
import type { AgentListItem } from "./types";
import styles from "./agents.module.css";

export function AgentModel({ model, taskClass }: { model: string; taskClass: string }) {
  if (model === "auto") {
    return (
      <span className="model-label" title="Routing rules pick a model for each call">
        <span className="mono">auto</span> <span className="muted small">by task class {taskClass}</span>
      </span>
    );
  }
  return <ModelLabel model={model} scripted={model.startsWith("scripted")} />;
}

function AgentRow({ agent, canOperate, now }: { agent: AgentListItem; canOperate: boolean; now: number }) {
  const href = `/agents/${encodeURIComponent(agent.name)}`;
  return (
    <tr className={agent.archived ? styles.archivedRow : undefined} data-testid="agent-row" data-list-row data-agent={agent.name}>
      <td>
        <div className={styles.nameCell}>
          <span className="row" style={{ gap: 6, flexWrap: "wrap" }}>
            <Link href={href} className={styles.nameLink}>
              {agent.name}
            </Link>
            {agent.builtIn && (
              <span className="badge badge-role" title="Comes with Rein; copy it to change it">
                Built-in
              </span>
            )}
            {agent.archived && <span className="badge">Archived</span>}
          </span>
        </div>
      </td>
      <td>
        <span className={styles.description} title={agent.description}>
          {agent.description || <span className="muted">No description</span>}
        </span>
      </td>
      <td className="num">v{agent.version}</td>
      <td>
        <AgentModel model={agent.model} taskClass={agent.taskClass} />
      </td>
      <td>{agent.team ? agent.team.name : <span className="muted">Everyone</span>}</td>
      <td className="nowrap">
        <span title={formatDateTime(agent.updatedAt)}>{formatRelative(agent.updatedAt, now)}</span>
        {agent.updatedBy && <div className="small muted">{agent.updatedBy}</div>}
      </td>
      <td>
        <div className={styles.actions}>
          <Link href={href} className="btn btn-sm" data-testid={`agent-open-${agent.name}`}>
            Open
          </Link>
          {!agent.archived && <NewRunButton agent={agent.name} label="Run" testId={`launch-${agent.name}`} primary={false} small />}
          <AgentActions agent={agent} canOperate={canOperate} small />
        </div>
      </td>
    </tr>
  );
}

export function AgentsPage() {
  const [showArchived, setShowArchived] = useState(false);
  const [importing, setImporting] = useState(false);
  const agents = trpc.agents.list.useQuery({ includeArchived: showArchived }, { staleTime: 30_000 });
  const { canOperate, isLoading: meLoading } = useMe();
  const now = Date.now();
  const list = agents.data ?? [];

  return (
    <div className="page page-wide" data-testid="agents-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>Agents</h1>
          <p>
            Agent specs: instructions, model, tools, guardrails and who they may hand off to. Each save is a version; runs record the
            version they used.
          </p>
        </div>
        {canOperate && (
          <button type="button" className="btn" onClick={() => setImporting(true)} data-testid="agent-import">
            Import YAML
          </button>
        )}
        {canOperate ? (
          <Link href="/agents/new" className="btn btn-primary" data-testid="agent-new">
            <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
              +
            </span>{" "}
            New agent
          </Link>
        ) : (
          !meLoading && (
            <button type="button" className="btn btn-primary" disabled title="Creating agents needs the operator role; you are a viewer">
              + New agent
            </button>
          )
        )}
      </div>
      <div className="card">
        <div className={styles.toolbar}>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={showArchived}
              onChange={(e) => setShowArchived(e.target.checked)}
              data-testid="agents-show-archived"
            />
            Show archived
          </label>
          <span className="spacer" />
          {agents.data && <span className="small muted">{pluralize(list.length, "agent")}</span>}
        </div>
        <PageShell query={agents} loading={<SkeletonRows rows={5} columns={6} />} failed="Could not load the agents">
          {() =>
            list.length === 0 ? (
              <EmptyState
                title={showArchived ? "No agents at all" : "No agents yet"}
                action={
                  canOperate ? (
                    <Link href="/agents/new" className="btn btn-primary">
                      Create the first agent
                    </Link>
                  ) : undefined
                }
              >
                {canOperate
                  ? "The built-in demo agents are added when the server starts; create your own or import one from YAML."
                  : `${OPERATOR_HINT}; agents appear here once an operator creates them.`}
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="agents-table">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Description</th>
                      <th scope="col" className="num">
                        Version
                      </th>
                      <th scope="col">Model</th>
                      <th scope="col">Team</th>
                      <th scope="col">Updated</th>
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((a) => (
                      <AgentRow key={a.name} agent={a} canOperate={canOperate} now={now} />
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </PageShell>
      </div>
      <ImportDialog open={importing} onClose={() => setImporting(false)} />
    </div>
  );
}
