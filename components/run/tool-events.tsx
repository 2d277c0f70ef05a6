// Tool calls and their results: one card per call, its result filled in when it arrives.
import Link from "next/link";
import { JsonBlock } from "@/components/json-block";
import { formatDuration } from "@/lib/format";
import { shellOutput, type EventOf, type ToolProgress } from "@/lib/run-events";
import { resultFailed, showGateNote } from "@/lib/timeline-groups";
import { EventRow } from "./event-row";
import styles from "./timeline.module.css";
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
      <progress
        max={known ? total : undefined}
        value={known ? Math.min(progress.progress, total) : undefined}
        aria-label={`Progress of the call: ${text}`}
        style={{ width: 140 }}
      />
      <span className="muted" data-testid="tool-progress-text">
        {text}
      </span>
    </div>
  );
}

/** The shell command of a call's arguments, or null. */
function shellCommand(tool: string, args: unknown): string | null {
  const command = (args as { command?: unknown } | null)?.command;
  return tool === "shell" && typeof command === "string" ? command : null;
}

function hasArgs(gate: unknown): gate is { args: unknown } {
  return !!gate && typeof gate === "object" && "args" in gate;
}

/**
 * One card per tool call: what the agent asked, then (filled in live) what
 * came back. A call a person approved with edited arguments shows what ran,
 * the agent's own arguments struck through below.
 */
export function ToolCard({
  call,
  result,
  pending,
  waiting = false,
  asked,
  progress,
  showAllow,
}: {
  call: EventOf<"tool.call">;
  result: EventOf<"tool.result"> | null;
  /** A person was asked about the call: its result is shown apart, after their decision. */
  asked?: "waiting" | "answered";
  pending: boolean;
  waiting?: boolean;
  progress?: ToolProgress;
  showAllow: boolean;
}) {
  const p = call.payload;
  const gate = result?.payload.gate;
  const edited = hasArgs(gate) ? gate.args : undefined;
  const ran = edited ?? p.args;
  const command = shellCommand(p.tool, ran);
  const originalCommand = edited !== undefined ? shellCommand(p.tool, p.args) : null;
  const summary = command ? null : callSummary(p.tool, ran);
  const originalSummary = edited !== undefined && !command ? callSummary(p.tool, p.args) : null;
  const failed = result ? resultFailed(result) : false;
  const kind = !result ? "tool" : failed ? "result-error" : "result-ok";
  return (
    <EventRow event={call} kind={kind} icon={!result ? "ƒ" : failed ? "✕" : "✓"}>
      <div
        className="ev-card"
        data-testid="tool-call"
        data-tool={p.tool}
        data-state={asked ? "asked" : !result ? "running" : failed ? "error" : "ok"}
        data-edited={edited !== undefined}
      >
        <div className="ev-title">
          <span className="ev-sub">{p.agent} called</span>
          <strong className="mono" data-testid="tool-name">
            {p.tool}
          </strong>
          {isMcpTool(p.tool) && (
            <span className="badge badge-outline" title={`A tool of the MCP server ${p.tool.split("__")[0]}`} data-testid="mcp-chip">
              MCP
            </span>
          )}
          {summary && (
            <code className="muted" data-testid="tool-summary">
              {summary}
            </code>
          )}
          {originalSummary && originalSummary !== summary && (
            <del className="muted small" title="What the agent asked for, before a person edited it" data-testid="tool-summary-original">
              {originalSummary}
            </del>
          )}
          {edited !== undefined && (
            <span className="badge badge-outline" title="A person edited the arguments before approving the call" data-testid="tool-edited">
              edited by a person
            </span>
          )}
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
          {asked === "answered" && (
            <span
              className="badge badge-outline"
              data-testid="tool-asked"
              title="A person decided on this call; its result follows their decision"
            >
              asked a person
            </span>
          )}
        </div>
        {progress && <CallProgress progress={progress} />}
        {command && (
          <div className="stack" style={{ marginTop: 6, gap: 4 }}>
            <div>
              <code className="cmd" data-testid="tool-command">
                $ {command}
              </code>
            </div>
            {originalCommand !== null && originalCommand !== command && (
              <div className="small muted">
                Asked for: <del data-testid="tool-command-original">$ {originalCommand}</del>
              </div>
            )}
          </div>
        )}
        {edited !== undefined ? (
          <>
            <JsonBlock value={edited} summary="Arguments it ran with" testId="tool-args" />
            <JsonBlock value={p.args} summary="Arguments the agent asked for" testId="tool-args-original" />
          </>
        ) : (
          <JsonBlock value={p.args} summary="Arguments" testId="tool-args" />
        )}
        {result && <ToolResultBody event={result} showAllow={showAllow} />}
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

/** A result's part of its card: status, policy note, error, output. */
function ToolResultBody({ event, showAllow, named = false }: { event: EventOf<"tool.result">; showAllow: boolean; named?: boolean }) {
  const p = event.payload;
  const shell = p.ok && p.tool === "shell" ? shellOutput(p.output) : null;
  return (
    <div className={named ? undefined : styles.resultPart} data-testid="tool-result" data-tool={p.tool} data-ok={p.ok} data-seq={event.seq}>
      <div className="ev-title">
        {named ? <strong className="mono">{p.tool}</strong> : <span className="ev-sub">Result</span>}
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
          <span
            className="badge badge-cached"
            data-testid="cached-badge"
            title="Replayed from the replay cache: the tool did not run again"
          >
            cached
          </span>
        )}
        <span className="spacer" />
        <span className="usage">{formatDuration(p.durationMs)}</span>
      </div>
      {showGateNote(p.gate, showAllow) && <GateNote gate={p.gate!} />}
      {p.error && (
        <div className="error-box" data-testid="tool-error">
          <code>{p.error.code}</code>
          {p.error.message}
        </div>
      )}
      {shell ? (
        shell.output ? (
          <pre className="code-block" data-testid="shell-output">
            {shell.output}
          </pre>
        ) : (
          <div className="ev-sub" style={{ marginTop: 4 }}>
            No output.
          </div>
        )
      ) : (
        p.ok && p.output !== undefined && <JsonBlock value={p.output} summary="Output" testId="tool-output" />
      )}
    </div>
  );
}

/**
 * A result on its own row: after the person's decision on its call, or when the
 * call is not in the log. A call a person edited says what it ran with.
 */
export function ToolResultItem({
  event,
  call = null,
  showAllow,
}: {
  event: EventOf<"tool.result">;
  call?: EventOf<"tool.call"> | null;
  showAllow: boolean;
}) {
  const failed = resultFailed(event);
  const gate = event.payload.gate;
  const edited = call && hasArgs(gate) ? gate.args : undefined;
  const command = edited !== undefined ? shellCommand(event.payload.tool, edited) : null;
  const original = command !== null && call ? shellCommand(call.payload.tool, call.payload.args) : null;
  return (
    <EventRow event={event} kind={failed ? "result-error" : "result-ok"} icon={failed ? "✕" : "✓"}>
      <div className="ev-card" data-testid="tool-result-card" data-edited={edited !== undefined}>
        {edited !== undefined && (
          <div className="stack" style={{ marginBottom: 6, gap: 4 }}>
            <span
              className="badge badge-outline"
              style={{ alignSelf: "flex-start" }}
              title="A person edited the arguments before approving the call"
              data-testid="tool-edited"
            >
              ran with the arguments a person edited
            </span>
            {command ? (
              <code className="cmd" data-testid="tool-command">
                $ {command}
              </code>
            ) : (
              <JsonBlock value={edited} summary="Arguments it ran with" testId="tool-args" />
            )}
            {original !== null && original !== command && (
              <div className="small muted">
                Asked for: <del data-testid="tool-command-original">$ {original}</del>
              </div>
            )}
          </div>
        )}
        <ToolResultBody event={event} showAllow={showAllow} named />
      </div>
    </EventRow>
  );
}
