"use client";
// One request in full, with the answer form: the inbox's right pane and the
// resume page (signed links) both show it.
import Link from "next/link";
import type { ReactNode } from "react";
import { LockIcon } from "@/components/icons";
import { JsonBlock } from "@/components/json-block";
import { Skeleton } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { formatDateTime, formatRelative } from "@/lib/format";
import { CompactTimeline } from "./compact-timeline";
import { DecisionForm } from "./decision-form";
import { DecisionOutcome } from "./decision-outcome";
import { InlineCode } from "./inline-code";
import styles from "./inbox.module.css";
import { EscalatedMarker, KindChip, RequestStateBadge, TimeLeft } from "./request-badges";
import { isOpen, type Decision, type HumanRequestView, type RequestTimeline } from "./types";

/** The change request an approval of slot "change" is about. */
function changeIdOf(payload: unknown): string | null {
  const id = (payload as { args?: { changeRequestId?: unknown } } | null)?.args?.changeRequestId;
  return typeof id === "string" ? id : null;
}

const SLOT_WORDS = {
  policy: "the policy, before a tool call",
  ask_human: "the agent (ask_human)",
  replay: "Rein, after an interrupted call",
  loop: "the loop guard, after the same call repeated",
  consent: "the compute tier's consent rule (Settings › Tiers)",
  promote: "Rein, for a runtime tool that earned trust",
  change: "Rein, for a change request an agent wrote (Improvements › Changes)",
  extension: "Rein, for an extension whose tests passed (Extensions)",
  elicitation: "an MCP server, during a tool call (Settings › MCP servers)",
  memory: "the agent, for a memory it saved (its spec asks for confirmation; Memory page)",
} as const;

export interface DecideControl {
  pending: boolean;
  error: string | null;
  onDecide(decision: Decision): void;
}

function shellCommand(args: unknown): string | null {
  const c = (args as { command?: unknown } | null)?.command;
  return typeof c === "string" ? c : null;
}

export function RequestDetail({
  request,
  timeline,
  now,
  decide,
  canDecide,
  readOnlyNote,
  shortcuts,
  actions,
}: {
  request: HumanRequestView;
  /** undefined while it loads. */
  timeline: RequestTimeline | undefined;
  now: number;
  decide: DecideControl;
  canDecide: boolean;
  /** Why this person cannot decide (shown instead of the form). */
  readOnlyNote?: string;
  shortcuts: boolean;
  actions?: ReactNode;
}) {
  const open = isOpen(request);
  const { payload } = request;
  const command = payload.tool === "shell" ? shellCommand(payload.args) : null;

  return (
    <article
      className={styles.detail}
      aria-labelledby={`request-title-${request.id}`}
      data-testid="request-detail"
      data-id={request.id}
      data-state={request.state}
    >
      <div className={styles.detailHead}>
        <div className="row" style={{ flexWrap: "wrap", flex: 1 }}>
          <KindChip kind={request.kind} />
          <RequestStateBadge request={request} />
          <EscalatedMarker level={request.level} />
          <TimeLeft request={request} now={now} />
        </div>
        {actions}
      </div>
      <div className="stack" style={{ gap: 6 }}>
        <h2 className={styles.detailTitle} id={`request-title-${request.id}`} data-testid="request-title">
          <InlineCode text={request.title} />
        </h2>
        {request.detail && (
          <p className={styles.detailText} data-testid="request-detail-text">
            {request.detail}
          </p>
        )}
      </div>

      <dl className={styles.facts}>
        <dt>Run</dt>
        <dd>
          {request.run ? (
            <>
              <Link href={`/runs/${encodeURIComponent(request.runId)}`} data-testid="request-run-link">
                {request.run.goal}
              </Link>
              <StatusBadge status={request.run.status} />
            </>
          ) : (
            <span className="mono">{request.runId}</span>
          )}
        </dd>
        {request.run && (
          <>
            <dt>Agent</dt>
            <dd>{request.run.agentName}</dd>
          </>
        )}
        {request.teamName && (
          <>
            <dt>Team</dt>
            <dd data-testid="request-team">{request.teamName}</dd>
          </>
        )}
        <dt>Launched by</dt>
        <dd data-testid="request-launched-by">{request.requestedBy?.name ?? "—"}</dd>
        <dt>Asked by</dt>
        <dd>{SLOT_WORDS[request.slot] ?? request.slot}</dd>
        {request.slot === "change" && changeIdOf(request.payload) && (
          <>
            <dt>Change</dt>
            <dd>
              <Link href={`/improvements/changes/${encodeURIComponent(changeIdOf(request.payload)!)}`} data-testid="request-change-link">
                Read the diff and the test log
              </Link>
            </dd>
          </>
        )}
        <dt>Asked</dt>
        <dd title={formatDateTime(request.createdAt)}>{formatRelative(request.createdAt, now)}</dd>
        {open && (
          <>
            <dt>{request.kind === "veto" ? "Goes ahead" : request.state === "PENDING" ? "Escalates" : "Deadline"}</dt>
            <dd>
              {formatDateTime(request.expiresAt)} <TimeLeft request={request} now={now} />
            </dd>
            {request.kind !== "veto" && (
              <>
                <dt>Expires</dt>
                <dd>{formatDateTime(request.hardExpiresAt)}</dd>
              </>
            )}
          </>
        )}
        <dt>Needs</dt>
        <dd>
          the <span className="badge badge-role">{request.requiredRole}</span> role{request.level >= 2 ? ` (level ${request.level})` : ""}
        </dd>
      </dl>

      {payload.tool && (
        <section className={styles.section} aria-label="Tool call" data-testid="request-tool">
          <h3 className={styles.sectionTitle}>Tool call</h3>
          <div className="row" style={{ flexWrap: "wrap" }}>
            <strong className="mono">{payload.tool}</strong>
            {command && <code className="cmd">$ {command}</code>}
          </div>
          <JsonBlock value={payload.args} summary="Arguments" open={!command} testId="request-args" />
        </section>
      )}
      {payload.rule && (
        <div className={styles.rule} data-testid="request-rule">
          <span className="muted small">Policy rule</span>
          <span>{payload.rule}</span>
        </div>
      )}

      {!open ? (
        <DecisionOutcome request={request} now={now} />
      ) : canDecide ? (
        <DecisionForm
          key={request.id}
          request={request}
          now={now}
          pending={decide.pending}
          error={decide.error}
          shortcuts={shortcuts}
          onDecide={decide.onDecide}
        />
      ) : (
        <div className={styles.readonlyNote} data-testid="read-only-note">
          <LockIcon />
          <span>{readOnlyNote ?? `Deciding needs the ${request.requiredRole} role.`}</span>
        </div>
      )}

      <section className={styles.section} aria-label="Recent events">
        <div className="row">
          <h3 className={styles.sectionTitle}>Recent events</h3>
          <span className="spacer" />
          <Link href={`/runs/${encodeURIComponent(request.runId)}`} className="small" data-testid="open-run">
            Open the run →
          </Link>
        </div>
        {timeline ? (
          <CompactTimeline events={timeline} />
        ) : (
          <div className="stack" style={{ gap: 6 }} aria-label="Loading the run's events" role="status">
            <Skeleton width="70%" />
            <Skeleton width="55%" />
            <Skeleton width="80%" />
          </div>
        )}
      </section>
    </article>
  );
}
