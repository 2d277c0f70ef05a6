"use client";
// Settings › Gateway keys (docs/gateway.md#team-keys): a team's keys for
// programs outside Rein to call the model gateway with. A key is shown once,
// with how to use it; revoking it refuses its next request.
import { useEffect, useState, type FormEvent } from "react";
import { ConfirmAction, EmptyState, ErrorBlock, PageShell, SkeletonRows } from "@/components/ui";
import { formatCost, formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { CopyField } from "./create-token";

type KeyView = RouterOutputs["gatewayKeys"]["list"][number];
type Created = RouterOutputs["gatewayKeys"]["create"];

const STATE_CLASS: Record<KeyView["state"], string> = { active: "status-succeeded", expired: "status-paused", revoked: "status-canceled" };

function HowToUse({ created, origin }: { created: Created; origin: string }) {
  const base = `${origin}/api/gateway/v1`;
  return (
    <div className="token-reveal" data-testid="new-gateway-key">
      <div>
        <strong>
          Key &quot;{created.gatewayKey.name}&quot; for team {created.gatewayKey.team.name} created.
        </strong>{" "}
        Copy it now: it is shown only this once.
      </div>
      <CopyField value={created.key} testId="new-gateway-key-value" />
      <div className="small">
        Call the gateway with it:
        <pre className="code-block" style={{ marginTop: 6 }}>{`curl ${base}/chat/completions \\
  -H "Authorization: Bearer ${created.key}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "rein", "messages": [{"role": "user", "content": "Hello"}]}'`}</pre>
        OpenAI&apos;s and Anthropic&apos;s SDKs read these variables:
        <pre className="code-block" style={{ marginTop: 6 }}>{`OPENAI_BASE_URL=${base}
OPENAI_API_KEY=${created.key}
ANTHROPIC_BASE_URL=${origin}/api/gateway
ANTHROPIC_API_KEY=${created.key}`}</pre>
      </div>
    </div>
  );
}

function CreateGatewayKey({ onCreated }: { onCreated(created: Created): void }) {
  const utils = trpc.useUtils();
  const teams = trpc.teams.list.useQuery();
  const managed = (teams.data ?? []).filter((t) => t.myRole === "admin" && !t.archivedAt);
  const [teamId, setTeamId] = useState("");
  const [name, setName] = useState("");
  const [budget, setBudget] = useState("");
  const [model, setModel] = useState("");
  const [days, setDays] = useState("");
  const create = trpc.gatewayKeys.create.useMutation({
    onSuccess: (created) => {
      onCreated(created);
      setName("");
      setBudget("");
      setModel("");
      setDays("");
      void utils.gatewayKeys.list.invalidate();
    },
  });
  const team = teamId || managed[0]?.id || "";

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim() || !team) return;
    create.mutate({
      teamId: team,
      name: name.trim(),
      budgetUsd: budget.trim() ? Number(budget) : null,
      model: model.trim() || null,
      expiresInDays: days.trim() ? Number(days) : undefined,
    });
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit}>
      <h2>Create a key</h2>
      <div className="form-inline">
        <div className="field" style={{ minWidth: 160 }}>
          <label htmlFor="gk-team">Team</label>
          <select id="gk-team" className="input" value={team} onChange={(e) => setTeamId(e.target.value)} data-testid="gateway-key-team">
            {managed.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field" style={{ flex: 1, minWidth: 200 }}>
          <label htmlFor="gk-name">Name</label>
          <input
            id="gk-name"
            className="input"
            placeholder="e.g. nightly scripts"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="gateway-key-name"
          />
        </div>
        <div className="field" style={{ width: 150 }}>
          <label htmlFor="gk-budget">Budget a month (USD)</label>
          <input
            id="gk-budget"
            className="input"
            type="number"
            min={0}
            step="any"
            placeholder="the team's"
            value={budget}
            onChange={(e) => setBudget(e.target.value)}
          />
        </div>
        <div className="field" style={{ width: 190 }}>
          <label htmlFor="gk-model">Model</label>
          <input
            id="gk-model"
            className="input"
            placeholder="auto"
            maxLength={256}
            value={model}
            onChange={(e) => setModel(e.target.value)}
          />
        </div>
        <div className="field" style={{ width: 140 }}>
          <label htmlFor="gk-days">Expires after (days)</label>
          <input
            id="gk-days"
            className="input"
            type="number"
            min={1}
            max={3650}
            placeholder="never"
            value={days}
            onChange={(e) => setDays(e.target.value)}
          />
        </div>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!name.trim() || !team || create.isPending}
          data-testid="create-gateway-key"
        >
          {create.isPending && <span className="spinner" aria-hidden="true" />}
          Create key
        </button>
      </div>
      <ErrorBlock error={create.error ?? teams.error} />
      <p className="hint">
        The key&apos;s calls count against its own budget and its team&apos;s monthly budget, and show in Costs. The model answers a request
        that names no model Rein knows.
      </p>
    </form>
  );
}

export function GatewayKeysPage() {
  const keys = trpc.gatewayKeys.list.useQuery({});
  const utils = trpc.useUtils();
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  const revoke = trpc.gatewayKeys.revoke.useMutation({
    onSuccess: () => {
      setRevoking(null);
      void utils.gatewayKeys.list.invalidate();
    },
  });
  const now = Date.now();

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Gateway keys</h1>
          <p>
            A team&apos;s own scripts, IDEs and agents call Rein&apos;s OpenAI- and Anthropic-compatible endpoints with a key: Rein picks
            the model, keeps the vendor&apos;s key, enforces budgets before each call and records every call.
          </p>
        </div>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        {created && (
          <div className="card card-body stack">
            <HowToUse created={created} origin={origin} />
            <div>
              <button type="button" className="btn btn-sm" onClick={() => setCreated(null)}>
                I have copied it
              </button>
            </div>
          </div>
        )}
        <CreateGatewayKey onCreated={setCreated} />
        <div className="card">
          <div className="card-header">
            <h2>Keys</h2>
          </div>
          <PageShell query={keys} loading={<SkeletonRows rows={3} columns={8} />} failed="Could not load the gateway keys">
            {(data) =>
              data.length === 0 ? (
                <EmptyState icon="⚷" title="No gateway keys yet">
                  Create one above for a team&apos;s programs to call the model gateway.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className="table" data-testid="gateway-keys-table">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>Key</th>
                        <th>Team</th>
                        <th>Spent this month</th>
                        <th>Last used</th>
                        <th>Created by</th>
                        <th>State</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {data.map((k) => (
                        <tr key={k.id} data-testid="gateway-key-row" data-key-id={k.id}>
                          <td style={{ fontWeight: 500 }}>
                            {k.name}
                            {k.model && <div className="small muted">{k.model}</div>}
                          </td>
                          <td>
                            <code>{k.prefix}…</code>
                          </td>
                          <td>{k.team.name}</td>
                          <td>
                            {formatCost(k.spentThisMonthUsd)}
                            <span className="muted">{k.budgetUsd === null ? " (team budget)" : ` of ${formatCost(k.budgetUsd)}`}</span>
                          </td>
                          <td title={k.lastUsedAt ? formatDateTime(k.lastUsedAt) : undefined}>
                            {k.lastUsedAt ? formatRelative(k.lastUsedAt, now) : <span className="muted">never</span>}
                          </td>
                          <td title={formatDateTime(k.createdAt)}>{k.createdBy?.name ?? <span className="muted">unknown</span>}</td>
                          <td>
                            <span className={`badge ${STATE_CLASS[k.state]}`} data-testid="gateway-key-state">
                              {k.state}
                            </span>
                            {k.expiresAt && k.state === "active" && <div className="small muted">until {formatDateTime(k.expiresAt)}</div>}
                          </td>
                          <td style={{ textAlign: "right" }}>
                            {k.state === "active" && (
                              <button
                                type="button"
                                className="btn btn-danger btn-sm"
                                onClick={() => {
                                  revoke.reset();
                                  setRevoking(k);
                                }}
                                data-testid="revoke-gateway-key"
                              >
                                Revoke
                              </button>
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
      </div>
      <ConfirmAction
        open={revoking !== null}
        title={`Revoke "${revoking?.name ?? ""}"?`}
        confirmLabel="Revoke key"
        busyLabel="Revoking…"
        cancelLabel="Keep it"
        action={revoke}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        Programs using this key get 401 from their next request on, in every Rein process. This cannot be undone.
      </ConfirmAction>
    </div>
  );
}
