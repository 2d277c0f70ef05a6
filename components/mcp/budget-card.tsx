"use client";
// The token budget of the MCP tools one agent gets: what their definitions
// cost in every model call. Tools beyond it are left out of a run, and the
// run's timeline says which.
import { useId, useState, type FormEvent } from "react";
import { ErrorBlock } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { tokens, type McpBudgetView } from "./format";

export function BudgetCard({ budget }: { budget: McpBudgetView }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState(String(budget.tokens));
  const [saved, setSaved] = useState(false);
  const save = trpc.mcp.setTokenBudget.useMutation({
    onSuccess: () => {
      setSaved(true);
      void utils.mcp.list.invalidate();
    },
  });
  const over = new Set(budget.overBudget.map((a) => a.agent));

  function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    save.mutate({ tokens: Number(draft) });
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="mcp-budget">
      <div className="card-header">
        <h2 id={`${id}-title`}>Token budget</h2>
      </div>
      <div className="card-body stack">
        <p className="muted">
          The definitions of the MCP tools an agent gets are sent with every model call. When they need more than the budget, the tools
          beyond it are left out of the run and its timeline says which.
        </p>
        <form className="row" style={{ gap: 8, alignItems: "flex-end" }} onSubmit={submit}>
          <div className="field">
            <label htmlFor={`${id}-tokens`}>Tokens per agent</label>
            <input
              className="input"
              id={`${id}-tokens`}
              inputMode="numeric"
              value={draft}
              onChange={(e) => (setDraft(e.target.value), setSaved(false))}
              style={{ width: 140 }}
              data-testid="mcp-budget-input"
            />
          </div>
          <button type="submit" className="btn" disabled={save.isPending || draft === String(budget.tokens)}>
            {save.isPending && <span className="spinner" aria-hidden="true" />}
            Save
          </button>
          <span className="hint">Default {tokens(budget.default)}.</span>
          {saved && (
            <span className="small" role="status" style={{ color: "var(--green)" }}>
              Saved.
            </span>
          )}
        </form>
        <ErrorBlock error={save.error} />
        {budget.agents.length === 0 ? (
          <p className="hint">No agent gets an MCP tool yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="mcp-budget-agents">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th className="num">MCP tools</th>
                  <th className="num">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {budget.agents.map((a) => (
                  <tr
                    key={a.agent}
                    data-over={over.has(a.agent) || undefined}
                    style={over.has(a.agent) ? { color: "var(--amber)" } : undefined}
                  >
                    <td>{a.agent}</td>
                    <td className="num">{a.tools}</td>
                    <td className="num">
                      {tokens(a.tokens)}
                      {over.has(a.agent) && <span className="small"> — over the budget: some of its tools are left out of its runs</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
