"use client";
// The current task list (latest tasks.updated) and the run's facts.
import { useMemo, useState } from "react";
import { formatDateTime, formatNumber } from "@/lib/format";
import { latest, type EventOf, type TimelineEvent } from "@/lib/run-events";
import type { Run, RunState } from "@/lib/trpc";
import { RunTags } from "./run-tags";
import { TaskList } from "./task-list";

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm"
      aria-label={label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        } catch {
          /* clipboard blocked: the text is selectable */
        }
      }}
    >
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

const FINISHED: RunState[] = ["succeeded", "failed", "canceled"];

export function SidePanel({
  run,
  status,
  tasks,
  events,
}: {
  run: Run;
  status: RunState;
  tasks: EventOf<"tasks.updated"> | null;
  events: TimelineEvent[];
}) {
  const stats = useMemo(() => {
    let cached = 0;
    let toolCalls = 0;
    let toolErrors = 0;
    const agents: string[] = [];
    for (const e of events) {
      if (e.type === "model.turn") cached += (e.payload as EventOf<"model.turn">["payload"]).usage.cachedInputTokens;
      if (e.type === "tool.result") {
        toolCalls++;
        if (!(e.payload as EventOf<"tool.result">["payload"]).ok) toolErrors++;
      }
      if (e.type === "handoff") agents.push((e.payload as EventOf<"handoff">["payload"]).to);
    }
    return { cached, toolCalls, toolErrors, agents };
  }, [events]);
  // The summary's end time follows a moment after the log's.
  const endedAt = useMemo(() => latest(events, "run.state")?.createdAt ?? null, [events]);

  return (
    <aside className="side-pane" aria-label="Run details">
      <section className="card card-body stack" data-testid="task-panel">
        <h2 className="panel-title">Tasks</h2>
        {tasks ? (
          <>
            <TaskList tasks={tasks.payload.tasks} />
            {tasks.payload.notes && (
              <p className="small muted" style={{ whiteSpace: "pre-wrap" }}>
                {tasks.payload.notes}
              </p>
            )}
          </>
        ) : (
          <p className="muted small">The agent has not written a task list yet.</p>
        )}
      </section>
      <section className="card card-body stack">
        <h2 className="panel-title">Run</h2>
        {/* What the header above does not say already (status, agent, model, tier, steps, tokens, cost, people). */}
        <dl className="facts" data-testid="run-facts">
          <dt>ID</dt>
          <dd style={{ flexWrap: "nowrap" }}>
            <code style={{ fontSize: 11.5, overflow: "hidden", textOverflow: "ellipsis" }} title={run.id}>
              {run.id}
            </code>
            <CopyButton text={run.id} label="Copy the run ID" />
          </dd>
          {stats.agents.length > 0 && (
            <>
              <dt>Handed off to</dt>
              <dd>{stats.agents.join(", ")}</dd>
            </>
          )}
          <dt>Scenario</dt>
          <dd>{run.scenarioGiven ? "given with the run" : "the agent's own"}</dd>
          <dt>Tool calls</dt>
          <dd data-testid="run-tool-calls">
            {formatNumber(stats.toolCalls)}
            {stats.toolErrors > 0 && <span style={{ color: "var(--red)" }}>({stats.toolErrors} failed)</span>}
          </dd>
          {stats.cached > 0 && (
            <>
              <dt>Cached input</dt>
              <dd>{formatNumber(stats.cached)} tokens</dd>
            </>
          )}
          <dt>Started</dt>
          <dd>{formatDateTime(run.startedAt)}</dd>
          <dt>Ended</dt>
          <dd>{formatDateTime(run.endedAt ?? (FINISHED.includes(status) ? endedAt : null))}</dd>
        </dl>
      </section>
      <RunTags run={run} />
    </aside>
  );
}
