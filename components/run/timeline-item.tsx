// Renders each event type of the run log distinctly.
import { PauseIcon, PlayIcon, StopIcon } from "@/components/icons";
import { ModelLabel } from "@/components/model-label";
import { InlineCode } from "@/components/inbox/inline-code";
import { DesktopEventItem, isDesktopEvent } from "@/components/desktop/desktop-events";
import { TerminalEventItem, isTerminalEvent } from "@/components/terminal/terminal-events";
import Link from "next/link";
import { formatAgentVersion } from "@/lib/agent-draft";
import { STATUS_LABELS, formatFileSize } from "@/lib/format";
import { isEvent, type EventOf, type TimelineEvent, type ToolProgress } from "@/lib/run-events";
import { EventRow } from "./event-row";
import { ImproveEventItem, isImproveEvent } from "./improve-events";
import { HumanDecidedItem, HumanEscalatedItem, HumanRequestedItem } from "./human-events";
import { ModelErrorItem } from "./model-error";
import type { Run } from "@/lib/trpc";
import type { ForkAccess } from "./fork-dialog";
import { MemoryLoadedCard, type MemoryLoadedPayload } from "./memory-loaded";
import { ModelTurnItem } from "./model-turn";
import { SessionSeparator } from "./session-separator";
import { UserMessageItem } from "./user-message";
import { TaskList } from "./task-list";
import { TierEventItem, isTierEvent } from "./tier-events";
import { ToolCard, ToolResultItem } from "./tool-events";

export interface TimelineContext {
  hasResult(toolCallId: string): boolean;
  /** The call's result, once it is in the log. */
  resultOf(toolCallId: string): EventOf<"tool.result"> | null;
  /** A person was asked about the call: its result is its own entry, after the decision. */
  askedFirst(toolCallId: string): boolean;
  /** The call a result answers, when the log has it. */
  callOf(toolCallId: string): EventOf<"tool.call"> | null;
  /** Show routine "policy: allow" notes (the timeline's toggle). */
  showAllow: boolean;
  /** A person's e-mail, when the page knows it (shown on hover next to their name). */
  userEmail(id: string | null): string | undefined;
  /** The human request is still open (no human.decided yet). */
  requestOpen(requestId: string): boolean;
  userName(id: string | null): string;
  /** The page's header shows this error as the run's failure: the timeline points at it instead of repeating it. */
  failureShown(message: string): boolean;
  /** The run is not finished. */
  active: boolean;
  running: boolean;
  /** The run waits for a person. */
  waitingHuman: boolean;
  /** The last progress a running tool call reported (MCP tools report some), if any. */
  progressOf(toolCallId: string): ToolProgress | undefined;
  /** The step of the model turn that read a person's message (user.message seq), or null while unread. */
  messageReadAt(seq: number): number | null;
  /** The run (for Fork from here), and whether the person may fork it. */
  run?: Run;
  forkAccess?: ForkAccess;
  /** Every tool call of the step has its result, or the run has gone on to a later step. */
  stepDone(step: number, toolCallIds: string[]): boolean;
  /** The session.ended of session `n`, if the log has it. */
  sessionEnded(n: number): EventOf<"session.ended"> | null;
  /** A session.started follows session `n`'s end (the end is shown in its separator). */
  sessionFollowed(n: number): boolean;
}

const CONTROL_TEXT = {
  pause: "Paused by",
  resume: "Resumed by",
  cancel: "Canceled by",
  continue: "Continued with a message by",
  retry: "Retried by",
  interrupt: "Tool call interrupted by",
} as const;

/** What a continue or retry came after. */
const FROM_TEXT: Partial<Record<string, string>> = {
  succeeded: "after it had succeeded",
  failed: "after it had failed",
  canceled: "after it was canceled",
  paused: "while it was paused",
};

export function TimelineItem({ event, ctx }: { event: TimelineEvent; ctx: TimelineContext }) {
  if (isEvent(event, "model.turn")) {
    const fork =
      ctx.run && ctx.forkAccess
        ? {
            run: ctx.run,
            access: ctx.forkAccess,
            done: ctx.stepDone(
              event.payload.step,
              event.payload.toolCalls.map((c) => c.toolCallId),
            ),
          }
        : undefined;
    return <ModelTurnItem event={event} fork={fork} />;
  }
  if (isEvent(event, "session.started")) return <SessionSeparator event={event} ended={ctx.sessionEnded(event.payload.session - 1)} />;
  if (isEvent(event, "session.ended")) {
    // Shown in the next session's separator; on its own only while no session follows (it is written with the next one's start).
    if (ctx.sessionFollowed(event.payload.session)) return null;
    const p = event.payload;
    return (
      <EventRow event={event} kind="session-ended" icon="⏸">
        <div className="ev-line" data-testid="session-ended">
          <strong>Session {p.session} ended</strong>
          <span className="ev-sub">
            after {p.steps} step{p.steps === 1 ? "" : "s"} · context {p.contextTokens.toLocaleString("en-US")}
            {p.contextWindow ? ` of ${p.contextWindow.toLocaleString("en-US")}` : ""} tokens
          </span>
        </div>
      </EventRow>
    );
  }
  if ((event.type as string) === "memory.loaded") {
    return (
      <EventRow event={event} kind="memory" icon="◈">
        <MemoryLoadedCard payload={event.payload as unknown as MemoryLoadedPayload} />
      </EventRow>
    );
  }
  if (isEvent(event, "tool.call")) {
    const asked = ctx.askedFirst(event.payload.toolCallId);
    const result = asked ? null : ctx.resultOf(event.payload.toolCallId);
    const open = !ctx.hasResult(event.payload.toolCallId);
    return (
      <ToolCard
        call={event}
        result={result}
        asked={asked ? (open ? "waiting" : "answered") : undefined}
        pending={ctx.running && open}
        waiting={ctx.waitingHuman && open}
        progress={ctx.running && open ? ctx.progressOf(event.payload.toolCallId) : undefined}
        showAllow={ctx.showAllow}
      />
    );
  }
  if (isEvent(event, "tool.result"))
    return <ToolResultItem event={event} call={ctx.callOf(event.payload.toolCallId)} showAllow={ctx.showAllow} />;
  if (isEvent(event, "human.requested"))
    return <HumanRequestedItem event={event} open={ctx.active && ctx.requestOpen(event.payload.requestId)} />;
  if (isEvent(event, "human.decided")) return <HumanDecidedItem event={event} />;
  if (isEvent(event, "user.message"))
    return (
      <UserMessageItem
        event={event}
        readAtStep={ctx.messageReadAt(event.seq)}
        active={ctx.active}
        name={ctx.userName(event.payload.by)}
        email={ctx.userEmail(event.payload.by)}
      />
    );
  if (isEvent(event, "human.escalated")) return <HumanEscalatedItem event={event} />;
  if (isTerminalEvent(event)) return <TerminalEventItem event={event} userName={ctx.userName} />;
  if (isTierEvent(event)) return <TierEventItem event={event} />;
  if (isDesktopEvent(event)) return <DesktopEventItem event={event} userName={ctx.userName} />;
  if (isEvent(event, "model.error")) return <ModelErrorItem event={event} shownAbove={ctx.failureShown(event.payload.error)} />;
  if (isImproveEvent(event)) return <ImproveEventItem event={event} />;

  if (isEvent(event, "run.created")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="created" icon="✦">
        <div className="ev-card">
          <div className="ev-title">
            <strong>Run created</strong>
            <span className="ev-sub">
              by{" "}
              <span title={ctx.userEmail(event.actor)} data-testid="created-by">
                {ctx.userName(event.actor)}
              </span>
            </span>
          </div>
          <div className="ev-line small">
            Agent <strong>{p.agent}</strong> {formatAgentVersion(p.agentVersion)} ·{" "}
            <ModelLabel model={p.modelLabel || p.model} scripted={p.scripted} />
            {p.scenarioGiven && <span className="badge badge-outline">scenario given</span>}
          </div>
          {p.parent && (
            <div className="ev-line small" data-testid="created-parent">
              {p.parent.kind === "fork" ? "Forked from run" : "Re-run of run"}{" "}
              <Link href={`/runs/${encodeURIComponent(p.parent.runId)}`} className="mono">
                {p.parent.runId}
              </Link>
              {p.parent.kind === "fork" && p.parent.step !== undefined ? (
                <span className="ev-sub">after step {p.parent.step}</span>
              ) : (
                p.parent.kind === "fork" && p.parent.seq !== undefined && <span className="ev-sub">at checkpoint #{p.parent.seq}</span>
              )}
            </div>
          )}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "run.state")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="state" icon="">
        <div className="ev-line">
          <span className={`state-chip status-${p.to}`} data-testid="state-chip">
            {p.from ? (
              <>
                {STATUS_LABELS[p.from] ?? p.from} <span className="arrow">→</span> {STATUS_LABELS[p.to] ?? p.to}
              </>
            ) : (
              (STATUS_LABELS[p.to] ?? p.to)
            )}
          </span>
          {p.reason && !p.error && <span className="ev-sub">{p.reason}</span>}
        </div>
        {p.error &&
          (ctx.failureShown(p.error.message) ? (
            <div className="ev-sub" data-testid="state-error-above">
              <code>{p.error.code}</code> — the error is at the top of the page
            </div>
          ) : (
            <div className="error-box">
              <code>{p.error.code}</code>
              {p.error.message}
            </div>
          ))}
      </EventRow>
    );
  }

  if (isEvent(event, "run.control")) {
    const p = event.payload;
    const icon = p.action === "pause" ? <PauseIcon /> : p.action === "cancel" || p.action === "interrupt" ? <StopIcon /> : <PlayIcon />;
    return (
      <EventRow event={event} kind="control" icon={icon}>
        <div className="ev-line">
          <span data-testid="control-event" data-action={p.action}>
            {CONTROL_TEXT[p.action] ?? p.action} <strong title={ctx.userEmail(p.by)}>{p.byName || ctx.userName(p.by)}</strong>
          </span>
          {p.from && (p.action === "continue" || p.action === "retry") && (
            <span className="ev-sub">{FROM_TEXT[p.from] ?? `after it was ${STATUS_LABELS[p.from] ?? p.from}`}</span>
          )}
          {p.changes && p.changes.length > 0 && (
            <span className="ev-sub" data-testid="control-changes">
              {p.changes.join(" · ")}
            </span>
          )}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "run.resumed")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="resumed" icon="↻">
        <div className="resume-banner" data-testid="resumed-banner">
          <span>
            <strong>Resumed after a restart</strong> from checkpoint #{p.fromCheckpoint} (step {p.step}). {p.reason}
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "handoff")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="handoff" icon="⇄">
        <div className="handoff-banner" data-testid="handoff-banner">
          <span>
            <strong>{p.from}</strong> handed off to <strong>{p.to}</strong>
            {p.reason ? (
              <>
                : <InlineCode text={p.reason} />
              </>
            ) : (
              ""
            )}
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "tasks.updated")) {
    const p = event.payload;
    const done = p.tasks.filter((t) => t.status === "done").length;
    return (
      <EventRow event={event} kind="tasks" icon="☑">
        <div className="ev-card">
          <div className="ev-title">
            <strong>Task list updated</strong>
            <span className="ev-sub">
              {done} of {p.tasks.length} done
            </span>
          </div>
          <div style={{ marginTop: 8 }}>
            <TaskList tasks={p.tasks} />
          </div>
          {p.notes && (
            <p className="small muted" style={{ marginTop: 8, whiteSpace: "pre-wrap" }}>
              {p.notes}
            </p>
          )}
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "workspace.edit")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="edit" icon="✎">
        <div className="ev-line" data-testid="workspace-edit-event">
          <span>
            <strong title={ctx.userEmail(p.by)}>{p.byName || ctx.userName(p.by)}</strong> {p.created ? "created" : "edited"}{" "}
            <code className="ev-path">{p.path}</code>
          </span>
          <span className="ev-sub">{formatFileSize(p.bytes)} · saved in the Files tab</span>
        </div>
      </EventRow>
    );
  }

  // A type this version of the UI does not know yet: show it raw rather than hide it.
  return (
    <EventRow event={event} kind="unknown" icon="•">
      <div className="ev-card">
        <div className="ev-title">
          <strong className="mono">{event.type}</strong>
        </div>
        <pre className="code-block light">{JSON.stringify(event.payload, null, 2)}</pre>
      </div>
    </EventRow>
  );
}
