// Model turns: the durable model.turn, and the turn still streaming from deltas.
import { ModelLabel } from "@/components/model-label";
import { formatDuration, formatNumber } from "@/lib/format";
import type { EventOf } from "@/lib/run-events";
import type { Run } from "@/lib/trpc";
import type { StreamingTurn } from "@/lib/use-run-events";
import { AgentText } from "./agent-text";
import { EventRow } from "./event-row";
import { ForkButton, type ForkAccess } from "./fork-dialog";
import { RoutingWhy } from "./routing-why";
import { callSummary } from "./tool-events";

/** What a model turn needs to offer "Fork from here": the run, whether the person may, and whether the step is done. */
export interface TurnFork {
  run: Run;
  access: ForkAccess;
  done: boolean;
}

export function ModelTurnItem({ event, fork }: { event: EventOf<"model.turn">; fork?: TurnFork }) {
  const p = event.payload;
  const u = p.usage;
  return (
    <EventRow event={event} kind="turn" icon="✳">
      <div className="ev-card" data-testid="model-turn">
        <div className="ev-title">
          <strong>{p.agent}</strong>
          <span className="ev-sub">step {p.step}</span>
          <ModelLabel model={p.modelLabel || p.model} scripted={p.scripted} />
          <span className="spacer" />
          <span className="usage" title={`${formatNumber(u.cachedInputTokens)} input tokens were cached`}>
            {formatNumber(u.inputTokens)} in · {formatNumber(u.outputTokens)} out
            {u.cachedInputTokens > 0 ? ` · ${formatNumber(u.cachedInputTokens)} cached` : ""} · {formatDuration(p.durationMs)}
          </span>
        </div>
        {p.text.trim() ? (
          <AgentText text={p.text} testId="model-turn-text" />
        ) : (
          p.toolCalls.length === 0 && (
            <div className="ev-sub" style={{ marginTop: 4 }}>
              No text.
            </div>
          )
        )}
        {p.toolCalls.length > 0 && (
          <div className="turn-calls" aria-label="Tool calls">
            {p.toolCalls.map((c) => (
              <span key={c.toolCallId} className="call-chip" title={callSummary(c.tool, c.args) ?? c.tool}>
                <strong className="mono">{c.tool}</strong>
                {callSummary(c.tool, c.args) && <code className="muted">{callSummary(c.tool, c.args)}</code>}
              </span>
            ))}
          </div>
        )}
        {p.finishReason && !["stop", "tool-calls"].includes(p.finishReason) && (
          <div className="ev-sub" style={{ marginTop: 6 }}>
            Finish reason: {p.finishReason}
          </div>
        )}
        <RoutingWhy routing={p.routing} failovers={p.failovers} />
        {fork && (
          <div className="turn-actions">
            <ForkButton run={fork.run} step={p.step} done={fork.done} access={fork.access} />
          </div>
        )}
      </div>
    </EventRow>
  );
}

export function StreamingTurnItem({ turn }: { turn: StreamingTurn }) {
  return (
    <li className="ev ev-turn" data-testid="streaming-turn" aria-live="polite">
      <span className="ev-icon" aria-hidden="true">
        ✳
      </span>
      <div className="ev-card" style={{ minWidth: 0 }}>
        <div className="ev-title">
          <strong>{turn.agent}</strong>
          <span className="ev-sub">step {turn.step}</span>
          <span className="typing" aria-label="The model is writing">
            <span />
            <span />
            <span />
          </span>
        </div>
        <AgentText text={turn.text} />
      </div>
      <span className="ev-time">now</span>
    </li>
  );
}
