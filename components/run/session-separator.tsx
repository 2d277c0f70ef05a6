// A fresh session of a long run, as a full-width separator in the timeline:
// why it started, what the session before it used (from its session.ended,
// folded in here rather than shown as a row of its own), and what the seed
// the new session started from held.
import { formatClock, formatDateTime, formatNumber, pluralize } from "@/lib/format";
import type { EventOf } from "@/lib/run-events";

type Started = EventOf<"session.started">;
type Ended = EventOf<"session.ended">;

/** "6 tasks (3 done, 1 failed), 4 notes, 5 commits, no open errors · 358 tokens" */
export function seedSummary(seed: Started["payload"]["seed"]): string {
  const parts: string[] = [];
  const taskDetail = [
    seed.tasksDone > 0 ? `${formatNumber(seed.tasksDone)} done` : "",
    seed.tasksFailed > 0 ? `${formatNumber(seed.tasksFailed)} failed` : "",
  ]
    .filter(Boolean)
    .join(", ");
  parts.push(seed.tasks === 0 ? "no tasks" : `${pluralize(seed.tasks, "task")}${taskDetail ? ` (${taskDetail})` : ""}`);
  parts.push(seed.notes === 0 ? "no notes" : pluralize(seed.notes, "note"));
  parts.push(seed.commits === 0 ? "no commits" : pluralize(seed.commits, "commit"));
  parts.push(seed.openErrors === 0 ? "no open errors" : pluralize(seed.openErrors, "open error"));
  return `${parts.join(", ")} · ${pluralize(seed.tokens, "token")}`;
}

function percent(part: number, whole: number | null): string {
  return whole && whole > 0 ? ` (${Math.round((part / whole) * 100)}%)` : "";
}

/** What the session before used, from its session.ended. */
function endedSummary(ended: Ended["payload"]): string {
  const u = ended.usage;
  const tokens = u.inputTokens + u.outputTokens;
  const context = ended.contextWindow
    ? `; its context reached ${formatNumber(ended.contextTokens)} of ${pluralize(ended.contextWindow, "token")}${percent(ended.contextTokens, ended.contextWindow)}`
    : `; its context reached ${pluralize(ended.contextTokens, "token")}`;
  return `Session ${ended.session} used ${pluralize(ended.steps, "step")} and ${pluralize(tokens, "token")} (${formatNumber(u.inputTokens)} in · ${formatNumber(u.outputTokens)} out${u.cachedInputTokens > 0 ? ` · ${formatNumber(u.cachedInputTokens)} cached` : ""})${context}.`;
}

export function SessionSeparator({ event, ended }: { event: Started; ended: Ended | null }) {
  const p = event.payload;
  const at = new Date(event.createdAt);
  const labelId = `session-${event.seq}-label`;
  return (
    <li
      className={`session-separator session-${p.reason === "context_refused" ? "refused" : "budget"}`}
      data-testid="session-separator"
      data-type={event.type}
      data-seq={event.seq}
      data-session={p.session}
      role="group"
      aria-labelledby={labelId}
    >
      <div className="session-rule" aria-hidden="true" />
      <div className="session-body">
        <div className="session-title" id={labelId}>
          <strong>Session {p.session}</strong> · started because {p.reasonText}
          <time className="session-time" dateTime={at.toISOString()} title={`#${event.seq} · ${formatDateTime(at)}`}>
            {formatClock(at)}
          </time>
        </div>
        <div className="session-details" data-testid="session-details">
          {ended ? (
            <span data-testid="session-before">{endedSummary(ended.payload)}</span>
          ) : (
            <span data-testid="session-before">
              The session before ended after step {formatNumber(p.step)}
              {p.contextWindow
                ? `; the model's window is ${pluralize(p.contextWindow, "token")} and a session may fill ${Math.round(p.budgetShare * 100)}% of it`
                : ""}
              .
            </span>
          )}
        </div>
        <div className="session-details" data-testid="session-seed">
          Seeded with: {seedSummary(p.seed)}
        </div>
      </div>
      <div className="session-rule" aria-hidden="true" />
    </li>
  );
}
