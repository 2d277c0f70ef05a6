"use client";
import Link from "next/link";
import { ErrorBlock } from "@/components/ui";
import { ModelLabel } from "@/components/model-label";
import { HostedBadge } from "@/components/hosted/hosted-badge";
import { StatusBadge } from "@/components/status-badge";
import { formatAgentVersion } from "@/lib/agent-draft";
import { formatDateTime, formatDuration, formatNumber, formatRelative, formatCost } from "@/lib/format";
import { durationTicks, runDuration } from "@/lib/run-duration";
import { tierLabel } from "@/lib/tier-draft";
import type { Run, RunState } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { useRoleIn } from "@/lib/access";
import { codeSpans } from "@/lib/markdown";
import { personName } from "@/lib/people";
import type { RunHolder } from "@/lib/run-holder";
import styles from "./run-header.module.css";
import { Lineage } from "./lineage";
import { RunControls } from "./run-controls";
import { PinButton, PrunedNote } from "./retention-note";

export function RunHeader({
  run,
  status,
  reason,
  failure,
  pausing,
  holder = null,
  tier,
  seen,
}: {
  run: Run;
  /** The run's compute tier now (its latest tier change, else the summary's). */
  tier: string;
  status: RunState;
  reason: string | null;
  failure: { code: string; message: string } | null;
  pausing: boolean;
  /** Who has taken over the terminal or desktop: only their Hand back resumes the run. */
  holder?: RunHolder | null;
  /** What the event log already shows, ahead of the summary: its last step, when the run ended, whether its last tool call failed. */
  seen: {
    lastStep: number;
    endedAt: string | Date | null;
    lastCallFailed: boolean;
    cachedTokens: number;
    /** The models that answered so far (the log's model turns). */
    answeredBy: Array<{ model: string; scripted: boolean }>;
  };
}) {
  const { role } = useRoleIn(run.teamId);
  // Until it ends, a started run's duration is the time since it started (the Runs list shows the same figure).
  const open = durationTicks({ status, startedAt: run.startedAt });
  const now = useNow(1000, open);
  const endedAt = seen.endedAt ?? run.endedAt;
  const duration = open
    ? runDuration({ ...run, status }, now)
    : (run.durationMs ?? (endedAt && run.startedAt ? new Date(endedAt).getTime() - new Date(run.startedAt).getTime() : null));
  const steps = Math.max(run.stepCount, seen.lastStep);

  return (
    <header className="run-header">
      <div className="row small muted">
        <Link href="/runs">← Runs</Link>
        <span aria-hidden="true">/</span>
        <span className="mono" title="Run ID">
          {run.id}
        </span>
      </div>
      <div className="row" style={{ alignItems: "flex-start", gap: 16 }}>
        <h1 className="run-goal" title={run.goal} data-testid="run-goal" style={{ flex: 1, minWidth: 0 }}>
          {codeSpans(run.goal).map((part, i) => (part.code ? <code key={i}>{part.text}</code> : part.text))}
        </h1>
        <RunControls run={run} status={status} pausing={pausing} holder={holder} />
      </div>
      <div className="row" style={{ flexWrap: "wrap" }}>
        <StatusBadge status={status} testId="run-status" />
        {status === "succeeded" && seen.lastCallFailed && (
          <span
            className={`badge ${styles.warnChip}`}
            data-testid="run-end-warning"
            title="The agent ended the run as a success, but the last tool call it made failed: check its result in the timeline"
          >
            Succeeded — last tool call failed
          </span>
        )}
        <span
          className="badge badge-tier"
          data-testid="run-tier"
          data-tier={tier}
          title="Compute tier: where the agent works (Settings › Tiers)"
        >
          {tierLabel(tier)}
        </span>
        {pausing && status === "running" && (
          <span className="small" style={{ color: "var(--amber)" }} data-testid="pausing-note">
            Pausing after the current step…
          </span>
        )}
        {reason && !failure && (
          <span className="small muted" data-testid="run-status-reason">
            {reason}
          </span>
        )}
        <span style={{ marginLeft: "auto" }}>
          <PinButton run={run} />
        </span>
      </div>
      <Lineage run={run} />
      <PrunedNote run={run} />
      {failure && (
        <ErrorBlock testId="run-error">
          <span>
            {failure.message}
            <code className="muted" style={{ marginLeft: 8 }}>
              {failure.code}
            </code>
          </span>
        </ErrorBlock>
      )}
      <dl className="run-meta">
        <div>
          <dt>Agent</dt>
          <dd data-testid="run-agent">
            {run.agentName}{" "}
            {run.agentVersion < 0 ? (
              <span
                className="badge badge-outline"
                title="Tried from the agent editor: the spec it ran was not saved as a version"
                data-testid="run-agent-draft"
              >
                {formatAgentVersion(run.agentVersion)}
              </span>
            ) : (
              <span className="muted">{formatAgentVersion(run.agentVersion)}</span>
            )}
            {run.hostedProgram && (
              <>
                {" "}
                <HostedBadge program={run.hostedProgram.name} testId="run-hosted-badge" />
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd data-testid="run-model">
            {/* The model that actually answered; what was asked for ("auto", a failed-over one) is said beside it. */}
            {seen.answeredBy.length === 0 || (seen.answeredBy.length === 1 && seen.answeredBy[0].model === run.model) ? (
              <ModelLabel model={run.model} scripted={run.scripted} />
            ) : (
              <span className="row" style={{ gap: 6, flexWrap: "wrap" }} data-testid="run-model-answered">
                {seen.answeredBy.map((m) => (
                  <ModelLabel key={m.model} model={m.model} scripted={m.scripted} />
                ))}
                {!run.scripted && (
                  <span className="muted small" data-testid="run-model-asked" title="The model the run was started with">
                    asked for {run.model}
                  </span>
                )}
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Steps</dt>
          <dd data-testid="run-steps">{formatNumber(steps)}</dd>
        </div>
        <div>
          <dt>Tokens in / out</dt>
          <dd
            data-testid="run-tokens"
            title={seen.cachedTokens > 0 ? `${formatNumber(seen.cachedTokens)} input tokens were cached` : undefined}
          >
            {formatNumber(run.inputTokens)} / {formatNumber(run.outputTokens)}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd data-testid="run-cost" title={`${run.costUsd} USD, priced from the model price table`}>
            {formatCost(run.costUsd)}
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="run-duration">{formatDuration(duration)}</dd>
        </div>
        <div>
          <dt>Created by</dt>
          <dd data-testid="run-created-by" title={run.createdBy?.email}>
            {run.createdBy ? personName(run.createdBy) : "—"}
          </dd>
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
