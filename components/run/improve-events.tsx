// Timeline rows for self-improvement (docs/improvements.md): friction Rein recorded
// from this run, a hack cycle moving on an improver run, and skills left out
// of the prompt because they did not fit its budget, and what an installed
// extension's hook answered about one of the run's events.
import Link from "next/link";
import { isEvent, type TimelineEvent } from "@/lib/run-events";
import { changeStateLabel } from "@/components/changes/format";
import { EventRow } from "./event-row";

const TYPES = new Set(["friction.recorded", "improve.cycle", "skills.omitted", "mcp.tools_omitted", "change.state", "extension.hook"]);

export function isImproveEvent(event: TimelineEvent): boolean {
  return TYPES.has(event.type);
}

/** DETECT, ISOLATE, … as people read them; ABANDONED stays loud. */
const stage = (s: string | null | undefined) => (s ? s.toUpperCase() : "—");

export function frictionText(p: { title: string; count: number; cycleId?: string }): string {
  const times = p.count > 1 ? ` (${p.count} times)` : "";
  return `Rein recorded friction: ${p.title}${times}${p.cycleId ? " — an improver run started" : ""}`;
}

export function ImproveEventItem({ event }: { event: TimelineEvent }) {
  if (isEvent(event, "friction.recorded")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="state" icon="⚑">
        <div className="ev-line" data-testid="friction-event" data-kind={p.kind} data-friction-id={p.frictionId}>
          <span data-testid="friction-event-text">{frictionText(p)}</span>
          <span className="ev-sub">
            {p.kind.replace(/_/g, " ")}
            {p.tool ? ` · ${p.tool}` : ""} · <Link href={`/improvements?friction=${encodeURIComponent(p.frictionId)}`}>Improvements</Link>
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "improve.cycle")) {
    const p = event.payload;
    const abandoned = p.to.toUpperCase() === "ABANDONED";
    return (
      <EventRow event={event} kind={abandoned ? "resumed" : "handoff"} icon="⟳">
        <div className={abandoned ? "resume-banner" : "handoff-banner"} data-testid="cycle-event" data-to={p.to} data-cycle-id={p.cycleId}>
          <span>
            <strong>Hack cycle:</strong> {p.from ? `${stage(p.from)} → ` : ""}
            <strong data-testid="cycle-event-to">{stage(p.to)}</strong>
            {p.attempt ? ` (attempt ${p.attempt})` : ""}
            {p.reason ? ` — ${p.reason}` : ""}
            {p.improvementId && (
              <>
                {" · "}
                <Link href={`/improvements/${encodeURIComponent(p.improvementId)}`}>{p.name ?? "the improvement"}</Link>
              </>
            )}
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "change.state")) {
    const p = event.payload;
    const bad = p.to === "checks_failed" || p.to === "rejected";
    return (
      <EventRow event={event} kind={bad ? "resumed" : "handoff"} icon="⎇">
        <div className={bad ? "resume-banner" : "handoff-banner"} data-testid="change-event" data-to={p.to} data-change-id={p.changeId}>
          <span>
            <strong>Change request:</strong> {changeStateLabel(p.to)}
            {p.reason ? ` — ${p.reason}` : ""} · <Link href={`/improvements/changes/${encodeURIComponent(p.changeId)}`}>{p.title}</Link>
          </span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "extension.hook")) {
    const p = event.payload;
    return (
      <EventRow event={event} kind="state" icon="⧉">
        <div className="ev-line" data-testid="extension-hook-event" data-ok={p.ok ? "true" : "false"}>
          <span>
            Extension <strong>{p.extension}</strong> v{p.version} observed {p.event} (#{p.seq}){p.ok ? "" : " and failed"}
          </span>
          <span className="ev-sub">{p.ok ? p.answer : p.error}</span>
        </div>
      </EventRow>
    );
  }

  if (isEvent(event, "mcp.tools_omitted")) {
    const p = event.payload;
    const needed = p.left.reduce((sum, t) => sum + t.tokens, 0);
    return (
      <EventRow event={event} kind="resumed" icon="!">
        <div className="resume-banner" data-testid="mcp-tools-omitted-event">
          <span>
            <strong>
              {p.left.length === 1 ? "1 MCP tool was" : `${p.left.length} MCP tools were`} left out: {p.left.map((t) => t.tool).join(", ")}
            </strong>{" "}
            (their definitions need {needed.toLocaleString("en-US")} tokens; the budget is {p.budget.toLocaleString("en-US")}, and {p.given}{" "}
            tools using {p.used.toLocaleString("en-US")} fit). An admin can raise the budget or narrow who gets which tools in{" "}
            <Link href="/settings/mcp">Settings › MCP servers</Link>.
          </span>
        </div>
      </EventRow>
    );
  }

  // Not in the typed event map yet (written by the skills loader).
  if ((event.type as string) === "skills.omitted") {
    const p = event.payload as { names?: string[]; budgetTokens?: number };
    const names = Array.isArray(p.names) ? p.names : [];
    return (
      <EventRow event={event} kind="resumed" icon="!">
        <div className="resume-banner" data-testid="skills-omitted-event">
          <span>
            <strong>{names.length === 1 ? "A matching skill was" : `${names.length} matching skills were`} left out of the prompt</strong> —{" "}
            {names.join(", ") || "unnamed"} did not fit the skill budget
            {typeof p.budgetTokens === "number" ? ` of ${p.budgetTokens} tokens` : ""}.
          </span>
        </div>
      </EventRow>
    );
  }
  return null;
}
