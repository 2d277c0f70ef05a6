"use client";
import { ModelLabel } from "@/components/model-label";
import { NewRunButton } from "@/components/new-run";
import { EmptyState, ErrorState, Skeleton } from "@/components/states";
import { errorMessage } from "@/lib/errors";
import { trpc, type AgentSpecView } from "@/lib/trpc";

function AgentCard({ agent }: { agent: AgentSpecView }) {
  return (
    <article className="card agent-card" data-testid="agent-card" data-agent={agent.name}>
      <div className="row" style={{ alignItems: "flex-start" }}>
        <div style={{ flex: 1, minWidth: 0 }}>
          <div className="row">
            <h2>{agent.name}</h2>
            <span className="badge badge-outline">v{agent.version}</span>
            {agent.builtIn && <span className="badge">built-in</span>}
          </div>
          <p className="muted" style={{ marginTop: 4 }}>{agent.description || "No description."}</p>
        </div>
        <NewRunButton agent={agent.name} label="Launch" testId={`launch-${agent.name}`} primary={false} />
      </div>
      <dl className="facts">
        <dt>Model</dt>
        <dd><ModelLabel model={agent.model} scripted={agent.model.startsWith("scripted")} /></dd>
        <dt>Task class</dt>
        <dd>{agent.taskClass}</dd>
        <dt>Tier</dt>
        <dd>{agent.tier}</dd>
        <dt>Tools</dt>
        <dd>{agent.toolCount}</dd>
        <dt>Team</dt>
        <dd>{agent.team ? agent.team.name : <span className="muted">everyone</span>}</dd>
      </dl>
    </article>
  );
}

export function AgentsPage() {
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Agents</h1>
          <p>Agent specs: instructions, model, tools and who they may hand off to. Launch one on a goal.</p>
        </div>
      </div>
      {agents.isLoading ? (
        <div className="agent-grid" aria-busy="true">
          {[0, 1, 2].map((i) => (
            <div key={i} className="card agent-card">
              <Skeleton width="40%" height={18} />
              <Skeleton width="90%" />
              <Skeleton width="70%" />
            </div>
          ))}
        </div>
      ) : agents.isError || !agents.data ? (
        <div className="card">
          <ErrorState title="Could not load the agents" message={agents.error ? errorMessage(agents.error) : "No data"} onRetry={() => agents.refetch()} />
        </div>
      ) : agents.data.length === 0 ? (
        <div className="card">
          <EmptyState title="No agents yet">The built-in demo agents are added when the server starts.</EmptyState>
        </div>
      ) : (
        <div className="agent-grid">
          {agents.data.map((a) => (
            <AgentCard key={a.name} agent={a} />
          ))}
        </div>
      )}
    </div>
  );
}
