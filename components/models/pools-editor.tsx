"use client";
// Sensitivity pools and which team uses which: a team with a pool only ever
// uses models in that pool.
import { FieldError } from "@/components/ui";
import { newPoolName, removePool, renamePool, setTeamPool, type RoutingDraft } from "@/lib/routing-draft";
import { RefList } from "./ref-list";
import styles from "./models.module.css";

export function PoolsEditor({
  draft,
  refs,
  teams,
  issues,
  onChange,
}: {
  draft: RoutingDraft;
  refs: string[];
  teams: Array<{ id: string; name: string }>;
  issues: Record<string, string[]>;
  onChange(next: RoutingDraft): void;
}) {
  const setPool = (i: number, patch: Partial<RoutingDraft["pools"][number]>) =>
    onChange({ ...draft, pools: draft.pools.map((p, j) => (j === i ? { ...p, ...patch } : p)) });
  return (
    <>
      <div className="card-body row" style={{ borderTop: "1px solid var(--border)", gap: 8, alignItems: "center", flexWrap: "wrap" }}>
        <h3 style={{ fontSize: 14 }}>Sensitivity pools</h3>
        <span className="hint">
          A team with a pool only ever uses models in that pool, e.g. self-hosted ones for code that must not leave your machines.
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => onChange({ ...draft, pools: [...draft.pools, { name: newPoolName(draft), selfHosted: false, models: [] }] })}
          data-testid="add-pool"
        >
          + Add pool
        </button>
      </div>
      {draft.pools.length === 0 && (
        <p className="small muted" style={{ padding: "0 16px 12px" }}>
          No pools: every team may use every enabled model.
        </p>
      )}
      {draft.pools.map((p, i) => (
        <div key={i} className={styles.pool} data-testid="pool" data-pool={p.name}>
          <div className="row" style={{ gap: 12, alignItems: "center", flexWrap: "wrap" }}>
            <label className="small" htmlFor={`pool-${i}-name`}>
              Name
            </label>
            <input
              id={`pool-${i}-name`}
              className="input"
              style={{ width: 220 }}
              value={p.name}
              onChange={(e) => onChange(renamePool(draft, i, e.target.value))}
              data-testid="pool-name"
            />
            <label className="checkbox">
              <input
                type="checkbox"
                checked={p.selfHosted}
                onChange={(e) => setPool(i, { selfHosted: e.target.checked })}
                data-testid="pool-self-hosted"
              />
              All self-hosted models
            </label>
            <span className="hint">Every model of a provider marked self-hosted, now and later.</span>
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-sm btn-danger"
              onClick={() => onChange(removePool(draft, i))}
              aria-label={`Remove the pool ${p.name}`}
            >
              Remove pool
            </button>
          </div>
          <RefList
            items={p.models}
            options={refs}
            ordered={false}
            label={`pool ${p.name}`}
            empty={p.selfHosted ? "Only the self-hosted models." : "No models listed: the pool holds nothing yet."}
            onChange={(models) => setPool(i, { models })}
            testId={`pool-${i}-models`}
          />
          {issues[`pools.${i}`]?.map((m) => (
            <FieldError key={m} message={m} />
          ))}
        </div>
      ))}
      <div className="card-body" style={{ borderTop: "1px solid var(--border)" }}>
        <h3 style={{ fontSize: 14, marginBottom: 4 }}>Teams</h3>
        <p className="hint" style={{ marginBottom: 8 }}>
          Each team&apos;s pool. No pool: the team may use every enabled model.
        </p>
        {teams.length === 0 ? (
          <p className="small muted">No teams yet.</p>
        ) : (
          <table className="table" style={{ maxWidth: 560 }} data-testid="team-pools">
            <tbody>
              {teams.map((t) => (
                <tr key={t.id}>
                  <td>
                    <label htmlFor={`team-pool-${t.id}`}>{t.name}</label>
                  </td>
                  <td>
                    <select
                      id={`team-pool-${t.id}`}
                      className="select"
                      value={draft.teamPools[t.id] ?? ""}
                      onChange={(e) => onChange(setTeamPool(draft, t.id, e.target.value))}
                      data-testid="team-pool"
                    >
                      <option value="">No pool (every model)</option>
                      {draft.pools.map((p, i) => (
                        <option key={i} value={p.name}>
                          {p.name}
                        </option>
                      ))}
                    </select>
                    {issues[`teamPools.${t.id}`]?.map((m) => (
                      <FieldError key={m} message={m} />
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
