// Tool calls and their results.
import Link from "next/link";
import { JsonBlock } from "@/components/json-block";
import { formatDuration } from "@/lib/format";
import { shellOutput, type EventOf, type ToolProgress } from "@/lib/run-events";
import { EventRow } from "./event-row";
import { inboxHref } from "./human-events";

/** A one-line summary of a call's arguments for the common tools, else null. */
export function callSummary(tool: string, args: unknown): string | null {
  const a = (args && typeof args === "object" ? args : {}) as Record<string, unknown>;
  if (tool === "shell" && typeof a.command === "string") return `$ ${a.command}`;
  if (typeof a.path === "string") return a.path;
  if (tool === "handoff" && typeof a.agent === "string") return `→ ${a.agent}`;
  if (tool === "search" && typeof a.query === "string") return a.query;
  return null;
}

/** MCP tools are named <server>__<tool>; Rein's own tool names never hold "__". */
export const isMcpTool = (tool: string) => tool.includes("__");

/** "2 / 3 — message": how far a running call says it is, with a bar when it gives a total. */
function CallProgress({ progress }: { progress: ToolProgress }) {
  const { total, message } = progress;
  const known = typeof total === "number" && total > 0;
  const text = `${progress.progress}${known ? ` / ${total}` : ""}${message ? ` — ${message}` : ""}`;
  return (
    <div className="row small" style={{ gap: 8, marginTop: 6 }} data-testid="tool-progress">
      <progress max={known ? total : undefined} value={known ? Math.min(progress.progress, total) : undefined} aria-label={`Progress of the call: ${text}`} style={{ width: 140 }} />
      <span className="muted" data-testid="tool-progress-text">{text}</span>
    </div>
  );
}

export function ToolCallItem({ event, pending, waiting = false, progress }: { event: EventOf<"tool.call">; pending: boolean; waiting?: boolean; progress?: ToolProgress }) {
  const p = event.payload;
  const command = p.tool === "shell" && typeof (p.args as { command?: unknown })?.command === "string" ? (p.args as { command: string }).command : null;
  const summary = command ? null : callSummary(p.tool, p.args);
  return (
    <EventRow event={event} kind="tool" icon="ƒ">
      <div className="ev-card" data-testid="tool-call" data-tool={p.tool}>
        <div className="ev-title">
          <span className="ev-sub">{p.agent} called</span>
          <strong className="mono" data-testid="tool-name">{p.tool}</strong>
          {isMcpTool(p.tool) && (
            <span className="badge badge-outline" title={`A tool of the MCP server ${p.tool.split("__")[0]}`} data-testid="mcp-chip">
              MCP
            </span>
          )}
          {summary && <code className="muted">{summary}</code>}
          {pending && (
            <span className="row small" style={{ color: "var(--blue)", gap: 6 }} data-testid="tool-running">
              <span className="spinner" aria-hidden="true" /> running
            </span>
          )}
          {waiting && (
            <span className="badge status-waiting_human" data-testid="tool-waiting">
              waiting for a person
            </span>
          )}
        </div>
        {progress && <CallProgress progress={progress} />}
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

/** Codes of calls a person (or nobody, in time) stopped. */
const HUMAN_CODES: Record<string, string> = {
  REJECTED_BY_HUMAN: "rejected",
  DECLINED_BY_HUMAN: "declined",
  HUMAN_REQUEST_EXPIRED: "expired",
  HUMAN_REQUEST_CANCELED: "canceled",
  POLICY_DENIED: "denied by policy",
};

/** "policy: ask (rule 1) · approved by Admin": how the gate decided before the call ran. */
function GateNote({ gate }: { gate: NonNullable<EventOf<"tool.result">["payload"]["gate"]> }) {
  const policy = gate.policy;
  if (!policy && !gate.requestId) return null;
  return (
    <div className="ev-sub" style={{ marginTop: 4 }} data-testid="gate-note" data-effect={policy?.effect}>
      {policy && (
        <span title={`${policy.reason} (policy version ${policy.version}, ${policy.level} level)`}>
          policy: <strong style={{ color: "var(--text-2)" }}>{policy.effect}</strong>
          {policy.reason ? ` (${policy.reason})` : ""}
        </span>
      )}
      {gate.requestId && (
        <>
          {policy ? " · " : ""}
          <Link href={inboxHref(gate.requestId)}>human request</Link>
        </>
      )}
    </div>
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
          {p.ok ? (
            <span className="badge badge-ok">ok</span>
          ) : (
            <span className="badge badge-error" data-testid="tool-result-status">
              {(p.error && HUMAN_CODES[p.error.code]) ?? "error"}
            </span>
          )}
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
        {p.gate && <GateNote gate={p.gate} />}
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
