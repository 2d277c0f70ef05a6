"use client";
import Link from "next/link";
import { ModelLabel } from "@/components/model-label";
import { StatusBadge } from "@/components/status-badge";
import { formatAgentVersion } from "@/lib/agent-draft";
import { formatDateTime, formatDuration, formatNumber, formatRelative, formatCost } from "@/lib/format";
import { tierLabel } from "@/lib/tier-draft";
import type { Run, RunState } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { useRoleIn } from "@/lib/access";
import { Lineage } from "./lineage";
import { RunControls } from "./run-controls";

export function RunHeader({
  run,
  status,
  reason,
  failure,
  pausing,
  tier,
}: {
  run: Run;
  /** The run's compute tier now (its latest tier change, else the summary's). */
  tier: string;
  status: RunState;
  reason: string | null;
  failure: { code: string; message: string } | null;
  pausing: boolean;
}) {
  const { role } = useRoleIn(run.teamId);
  // Until it ends, a started run's duration is the time since it started (paused time included).
  const open = !["succeeded", "failed", "canceled"].includes(status) && !!run.startedAt;
  const now = useNow(1000, open);
  const duration = open && run.startedAt ? now - new Date(run.startedAt).getTime() : run.durationMs;

  return (
    <header className="run-header">
      <div className="row small muted">
        <Link href="/runs">← Runs</Link>
        <span aria-hidden="true">/</span>
        <span className="mono" title="Run ID">{run.id}</span>
      </div>
      <div className="row" style={{ alignItems: "flex-start", gap: 16 }}>
        <h1 className="run-goal" title={run.goal} data-testid="run-goal" style={{ flex: 1, minWidth: 0 }}>
          {run.goal}
        </h1>
        <RunControls run={run} status={status} pausing={pausing} />
      </div>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <StatusBadge status={status} testId="run-status" />
        <span className="badge badge-tier" data-testid="run-tier" data-tier={tier} title="Compute tier: where the agent works (Settings › Tiers)">
          {tierLabel(tier)}
        </span>
        {pausing && status === "running" && (
          <span className="small" style={{ color: "var(--amber)" }} data-testid="pausing-note">
            Pausing after the current step…
          </span>
        )}
        {reason && !failure && <span className="small muted" data-testid="run-status-reason">{reason}</span>}
      </div>
      <Lineage run={run} />
      {failure && (
        <div className="alert alert-error" role="alert" data-testid="run-error">
          <span>
            <code style={{ fontWeight: 700, marginRight: 8 }}>{failure.code}</code>
            {failure.message}
          </span>
        </div>
      )}
      <dl className="run-meta">
        <div>
          <dt>Agent</dt>
          <dd data-testid="run-agent">
            {run.agentName}{" "}
            {run.agentVersion < 0 ? (
              <span className="badge badge-outline" title="Tried from the agent editor: the spec it ran was not saved as a version" data-testid="run-agent-draft">
                {formatAgentVersion(run.agentVersion)}
              </span>
            ) : (
              <span className="muted">{formatAgentVersion(run.agentVersion)}</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd data-testid="run-model">
            <ModelLabel model={run.model} scripted={run.scripted} />
          </dd>
        </div>
        <div>
          <dt>Steps</dt>
          <dd data-testid="run-steps">{formatNumber(run.stepCount)}</dd>
        </div>
        <div>
          <dt>Tokens in / out</dt>
          <dd data-testid="run-tokens">
            {formatNumber(run.inputTokens)} / {formatNumber(run.outputTokens)}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="run-cost" title={`${run.costUsd} USD, priced from the model price table`}>{formatCost(run.costUsd)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="run-duration">{formatDuration(duration)}</dd>
        </div>
        <div>
          <dt>Created by</dt>
          <dd>{run.createdBy?.name || run.createdBy?.email}</dd>
        </div>
        <div>
          <dt>Team</dt>
          <dd data-testid="run-team" title={role ? `Your role in this run's team: ${role}` : undefined}>
            {run.team?.name ?? "none"}
            {role && <span className="muted"> · you are {role}</span>}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd title={formatDateTime(run.createdAt)}>{formatRelative(run.createdAt, now)}</dd>
        </div>
      </dl>
    </header>
  );
}
