"use client";
// An MCP server's tools: each one's names (for agents and for policy rules),
// what it says it does, its annotations and replay class, its token cost,
// who gets it, and the switch that turns it on. A changed tool waits for a
// review; a removed one is shown greyed.
import { useState } from "react";
import { EmptyState, ErrorBlock } from "@/components/ui";
import { teamScopeNames } from "@/lib/team-scope";
import { trpc } from "@/lib/trpc";
import { REPLAY_CLASSES, REPLAY_WORDS, annotationChips, scopeText, tokens, type McpToolView, type ReplayClass } from "./format";
import { ReviewDialog } from "./review-dialog";
import { ScopeDialog } from "./scope-dialog";

export function ToolsTable({ server, tools, onChanged }: { server: string; tools: McpToolView[]; onChanged(): void }) {
  const utils = trpc.useUtils();
  const [scoping, setScoping] = useState<McpToolView | null>(null);
  const [reviewing, setReviewing] = useState<McpToolView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const changed = () => {
    void utils.mcp.get.invalidate({ name: server });
    onChanged();
  };
  const setTool = trpc.mcp.setTool.useMutation({ onSuccess: changed, onSettled: () => setBusy(null) });
  const patch = (tool: McpToolView, p: { enabled?: boolean; replayOverride?: ReplayClass | null }) => {
    setBusy(tool.name);
    setTool.mutate({ server, tool: tool.name, patch: p });
  };
  const waiting = tools.filter((t) => t.state === "changed").length;

  return (
    <section className="card" aria-labelledby="mcp-tools-title" data-testid="mcp-tools">
      <div className="card-header">
        <h2 id="mcp-tools-title" style={{ flex: 1 }}>
          Tools
        </h2>
        {waiting > 0 && (
          <span className="badge status-paused" data-testid="mcp-tools-changed">
            {waiting} changed — review
          </span>
        )}
      </div>
      <ErrorBlock error={setTool.error} style={{ margin: "12px 16px 0" }} />
      {tools.length === 0 ? (
        <EmptyState icon="ƒ" title="No tools">
          The server has listed no tools yet. Once it is ready its tools appear here, all turned off.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="mcp-tools-table">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Description</th>
                <th>Annotations</th>
                <th>Replay</th>
                <th className="num">Tokens</th>
                <th>Who gets it</th>
                <th>On</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((t) => {
                const removed = t.state === "removed";
                return (
                  <tr
                    key={t.name}
                    data-testid="mcp-tool-row"
                    data-tool={t.name}
                    data-state={t.state}
                    style={removed ? { opacity: 0.55 } : undefined}
                  >
                    <td style={{ minWidth: 200 }}>
                      <strong>{t.title ?? t.name}</strong>
                      <div className="mono small" title="The name agents call it by">
                        {t.exposedName}
                      </div>
                      <div className="mono small muted" title="The name policy rules match">
                        {t.policyName}
                      </div>
                    </td>
                    <td className="small" style={{ maxWidth: 320 }}>
                      <span title={t.description}>
                        {t.description.length > 180
                          ? `${t.description.slice(0, 180)}…`
                          : t.description || <span className="muted">no description</span>}
                      </span>
                      {removed && (
                        <div className="muted" data-testid="mcp-tool-removed">
                          The server no longer lists it.
                        </div>
                      )}
                    </td>
                    <td>
                      <div className="row" style={{ gap: 4, flexWrap: "wrap" }}>
                        {annotationChips(t.annotations).map((c) => (
                          <span key={c.label} className={`badge ${c.warn ? "status-paused" : "badge-outline"}`} style={{ fontSize: 11 }}>
                            {c.label}
                          </span>
                        ))}
                      </div>
                    </td>
                    <td>
                      <select
                        className="select"
                        aria-label={`Replay class of ${t.name}`}
                        value={t.replayOverride ?? ""}
                        disabled={removed || busy === t.name}
                        onChange={(e) => patch(t, { replayOverride: (e.target.value || null) as ReplayClass | null })}
                        title={REPLAY_WORDS[t.replayClass]}
                        style={{ minWidth: 200 }}
                      >
                        <option value="">{t.replayOverride ? "from annotations" : `${t.replayClass} (annotations)`}</option>
                        {REPLAY_CLASSES.map((c) => (
                          <option key={c} value={c}>
                            {c}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td className="num">{tokens(t.tokens)}</td>
                    <td className="small">
                      <div data-testid="mcp-tool-scope">
                        {t.state !== "enabled" && !t.allowedAgents.length && !t.allowedTeams.length
                          ? "Everyone, once turned on"
                          : `${scopeText(t.allowedAgents, "All agents", "No agent")} · ${scopeText(teamScopeNames(t.allowedTeams, t.teams), "All teams", "no team")}`}
                      </div>
                      <button
                        type="button"
                        className="btn-link small"
                        onClick={() => setScoping(t)}
                        disabled={removed}
                        aria-label={`Change who gets ${t.name}`}
                      >
                        Change
                      </button>
                    </td>
                    <td>
                      {t.state === "changed" ? (
                        <button type="button" className="btn btn-sm btn-primary" onClick={() => setReviewing(t)} data-testid="mcp-review">
                          Review change
                        </button>
                      ) : (
                        <label className="row" style={{ gap: 6 }}>
                          <input
                            type="checkbox"
                            role="switch"
                            className="checkbox"
                            aria-label={`Enable ${t.name}`}
                            checked={t.state === "enabled"}
                            disabled={removed || busy === t.name}
                            onChange={(e) => patch(t, { enabled: e.target.checked })}
                            data-testid="mcp-tool-enable"
                          />
                          <span className="small">{t.state === "enabled" ? "on" : "off"}</span>
                        </label>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ScopeDialog server={server} tool={scoping} onClose={() => setScoping(null)} onSaved={() => (setScoping(null), changed())} />
      <ReviewDialog server={server} tool={reviewing} onClose={() => setReviewing(null)} onDone={() => (setReviewing(null), changed())} />
    </section>
  );
}
