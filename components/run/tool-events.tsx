// Tool calls and their results.
import { JsonBlock } from "@/components/json-block";
import { formatDuration } from "@/lib/format";
import { shellOutput, type EventOf } from "@/lib/run-events";
import { EventRow } from "./event-row";

/** A one-line summary of a call's arguments for the common tools, else null. */
export function callSummary(tool: string, args: unknown): string | null {
  const a = (args && typeof args === "object" ? args : {}) as Record<string, unknown>;
  if (tool === "shell" && typeof a.command === "string") return `$ ${a.command}`;
  if (typeof a.path === "string") return a.path;
  if (tool === "handoff" && typeof a.agent === "string") return `→ ${a.agent}`;
  if (tool === "search" && typeof a.query === "string") return a.query;
  return null;
}

export function ToolCallItem({ event, pending }: { event: EventOf<"tool.call">; pending: boolean }) {
  const p = event.payload;
  const command = p.tool === "shell" && typeof (p.args as { command?: unknown })?.command === "string" ? (p.args as { command: string }).command : null;
  const summary = command ? null : callSummary(p.tool, p.args);
  return (
    <EventRow event={event} kind="tool" icon="ƒ">
      <div className="ev-card" data-testid="tool-call" data-tool={p.tool}>
        <div className="ev-title">
          <span className="ev-sub">{p.agent} called</span>
          <strong className="mono" data-testid="tool-name">{p.tool}</strong>
          {summary && <code className="muted">{summary}</code>}
          {pending && (
            <span className="row small" style={{ color: "var(--blue)", gap: 6 }} data-testid="tool-running">
              <span className="spinner" aria-hidden="true" /> running
            </span>
          )}
        </div>
        {command && (
          <div style={{ marginTop: 6 }}>
            <code className="cmd">$ {command}</code>
          </div>
        )}
        <JsonBlock value={p.args} summary="Arguments" testId="tool-args" />
      </div>
    </EventRow>
  );
}

export function ToolResultItem({ event }: { event: EventOf<"tool.result"> }) {
  const p = event.payload;
  const shell = p.ok && p.tool === "shell" ? shellOutput(p.output) : null;
  const failedShell = shell && shell.exitCode !== 0;
  return (
    <EventRow event={event} kind={p.ok && !failedShell ? "result-ok" : "result-error"} icon={p.ok && !failedShell ? "✓" : "✕"}>
      <div className="ev-card" data-testid="tool-result" data-tool={p.tool} data-ok={p.ok}>
        <div className="ev-title">
          <strong className="mono">{p.tool}</strong>
          {p.ok ? <span className="badge badge-ok">ok</span> : <span className="badge badge-error">error</span>}
          {shell && (
            <span className={`badge ${shell.exitCode === 0 ? "badge-ok" : "badge-error"}`} data-testid="exit-code">
              exit {shell.exitCode}
              {shell.signal ? ` (${shell.signal})` : ""}
            </span>
          )}
          {p.cached && (
            <span className="badge badge-cached" data-testid="cached-badge" title="Replayed from the replay cache: the tool did not run again">
              cached
            </span>
          )}
          <span className="spacer" />
          <span className="usage">{formatDuration(p.durationMs)}</span>
        </div>
        {p.error && (
          <div className="error-box" data-testid="tool-error">
            <code>{p.error.code}</code>
            {p.error.message}
          </div>
        )}
        {shell ? (
          shell.output ? (
            <pre className="code-block" data-testid="shell-output">{shell.output}</pre>
          ) : (
            <div className="ev-sub" style={{ marginTop: 4 }}>No output.</div>
          )
        ) : (
          p.ok && p.output !== undefined && <JsonBlock value={p.output} summary="Output" testId="tool-output" />
        )}
      </div>
    </EventRow>
  );
}
