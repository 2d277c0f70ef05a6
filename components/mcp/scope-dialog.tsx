"use client";
// Who gets one MCP tool: agent names and teams, "*" for any. A tool is given
// to an agent when both its name and its team are in scope. Teams are kept by
// id: names are shown and typed here, ids are sent.
import { useId, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock } from "@/components/ui";
import { teamScopeIds, teamScopeNames } from "@/lib/team-scope";
import { trpc } from "@/lib/trpc";
import { scopeList, type McpToolView } from "./format";

export function ScopeDialog({
  server,
  tool,
  onClose,
  onSaved,
}: {
  server: string;
  tool: McpToolView | null;
  onClose(): void;
  onSaved(): void;
}) {
  return (
    <Dialog open={tool !== null} onClose={onClose} size="sm" labelledBy="mcp-scope-title" testId="mcp-scope-dialog">
      {tool && <ScopeForm server={server} tool={tool} onClose={onClose} onSaved={onSaved} />}
    </Dialog>
  );
}

function ScopeForm({ server, tool, onClose, onSaved }: { server: string; tool: McpToolView; onClose(): void; onSaved(): void }) {
  const id = useId();
  const agentNames = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const teamNames = trpc.teams.list.useQuery(undefined, { staleTime: 60_000 });
  const [allAgents, setAllAgents] = useState(tool.allowedAgents.includes("*") || tool.allowedAgents.length === 0);
  const [agents, setAgents] = useState(tool.allowedAgents.filter((a) => a !== "*").join(", "));
  const [allTeams, setAllTeams] = useState(tool.allowedTeams.includes("*") || tool.allowedTeams.length === 0);
  const [teams, setTeams] = useState(
    teamScopeNames(
      tool.allowedTeams.filter((t) => t !== "*"),
      tool.teams,
      { dropRemoved: true },
    ).join(", "),
  );
  const save = trpc.mcp.setTool.useMutation({ onSuccess: onSaved });

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({
      server,
      tool: tool.name,
      patch: {
        allowedAgents: allAgents ? ["*"] : scopeList(agents),
        allowedTeams: allTeams ? ["*"] : teamScopeIds(scopeList(teams), teamNames.data ?? []),
      },
    });
  }

  return (
    <form className="dialog-form" onSubmit={submit}>
      <div className="dialog-header">
        <div>
          <h2 id="mcp-scope-title">Who gets {tool.exposedName}</h2>
          <p>An agent gets the tool when its name and its team are both in scope.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label className="row" style={{ gap: 8, fontWeight: 600 }}>
            <input type="checkbox" className="checkbox" checked={allAgents} onChange={(e) => setAllAgents(e.target.checked)} />
            All agents
          </label>
          {!allAgents && (
            <>
              <label htmlFor={`${id}-agents`} className="small">
                Agents (comma-separated)
              </label>
              <input
                className="input mono"
                id={`${id}-agents`}
                list={`${id}-agent-names`}
                value={agents}
                onChange={(e) => setAgents(e.target.value)}
                placeholder="demo-mcp, support-bot"
              />
              <datalist id={`${id}-agent-names`}>
                {agentNames.data?.map((a) => (
                  <option key={a.name} value={a.name} />
                ))}
              </datalist>
            </>
          )}
        </div>
        <div className="field">
          <label className="row" style={{ gap: 8, fontWeight: 600 }}>
            <input type="checkbox" className="checkbox" checked={allTeams} onChange={(e) => setAllTeams(e.target.checked)} />
            All teams
          </label>
          {!allTeams && (
            <>
              <label htmlFor={`${id}-teams`} className="small">
                Teams (comma-separated names)
              </label>
              <input
                className="input"
                id={`${id}-teams`}
                list={`${id}-team-names`}
                value={teams}
                onChange={(e) => setTeams(e.target.value)}
              />
              <datalist id={`${id}-team-names`}>
                {teamNames.data?.map((t) => (
                  <option key={t.id} value={t.name} />
                ))}
              </datalist>
            </>
          )}
        </div>
        <ErrorBlock error={save.error} />
      </div>
      <DialogFooter onClose={onClose} busy={save.isPending} label="Save" testId="mcp-scope-save" />
    </form>
  );
}
