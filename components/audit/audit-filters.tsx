"use client";
import { useEffect, useState } from "react";
import { FieldError } from "@/components/ui";
import { DebouncedInput } from "@/components/debounced-input";
import { trpc } from "@/lib/trpc";
import type { AuditFilters } from "./use-audit-filters";

export const AUDIT_KINDS = [
  "policy.decision",
  "policy.updated",
  "request.transition",
  "link.refused",
  "user.*",
  "invitation.*",
  "team.*",
  "agent.*",
];
export const AUDIT_CHANNELS = [
  "a2a",
  "admin",
  "api",
  "cli",
  "email",
  "inbox",
  "kernel",
  "link",
  "mcp",
  "scheduler",
  "slack",
  "web",
  "webhook",
];

export function AuditFiltersBar({
  filters,
  onChange,
  active,
  onClear,
}: {
  filters: AuditFilters;
  onChange(patch: Partial<AuditFilters>): void;
  active: boolean;
  onClear(): void;
}) {
  const badRange = filters.from && filters.to && filters.from > filters.to;
  // The page is for admins, who may list everyone.
  const people = trpc.users.list.useQuery(undefined, { staleTime: 60_000 }).data ?? [];
  const teams = trpc.teams.list.useQuery(undefined, { staleTime: 60_000 }).data ?? [];
  // The box answers the click at once; the address (and so the list) follows a moment later.
  const [routine, setRoutine] = useState(filters.routine === "1");
  useEffect(() => setRoutine(filters.routine === "1"), [filters.routine]);
  return (
    <div className="filters" role="search" aria-label="Filter the audit log">
      <DebouncedInput
        type="search"
        className="input search-input"
        placeholder="Search subject, actor, detail…"
        aria-label="Search"
        value={filters.q}
        onCommit={(q) => onChange({ q })}
        data-testid="audit-search"
      />
      <DebouncedInput
        className="input"
        list="audit-kinds"
        placeholder="Kind (or its start)"
        aria-label="Kind"
        title='A kind or its start: "request" finds request.transition and every other request kind'
        value={filters.kind}
        onCommit={(kind) => onChange({ kind })}
        style={{ width: 170 }}
        data-testid="audit-kind"
      />
      <datalist id="audit-kinds">
        {AUDIT_KINDS.map((k) => (
          <option key={k} value={k} />
        ))}
      </datalist>
      <select
        className="select"
        aria-label="Person"
        value={filters.person}
        onChange={(e) => onChange({ person: e.target.value })}
        data-testid="audit-person"
      >
        <option value="">Everyone</option>
        {filters.person && !people.some((p) => p.id === filters.person) && <option value={filters.person}>{filters.person}</option>}
        {people.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name || p.email}
          </option>
        ))}
      </select>
      <select
        className="select"
        aria-label="Team"
        title="The rows of a team's runs and of admins' changes to the team"
        value={filters.team}
        onChange={(e) => onChange({ team: e.target.value })}
        data-testid="audit-team-filter"
      >
        <option value="">All teams</option>
        {filters.team && !teams.some((t) => t.id === filters.team) && <option value={filters.team}>{filters.team}</option>}
        {teams.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
            {t.archivedAt ? " (archived)" : ""}
          </option>
        ))}
      </select>
      <select
        className="select"
        aria-label="Channel"
        value={filters.channel}
        onChange={(e) => onChange({ channel: e.target.value })}
        data-testid="audit-channel"
      >
        <option value="">All channels</option>
        {filters.channel && !AUDIT_CHANNELS.includes(filters.channel) && <option value={filters.channel}>{filters.channel}</option>}
        {AUDIT_CHANNELS.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
      <DebouncedInput
        className="input"
        placeholder="Run id"
        aria-label="Run id"
        value={filters.runId}
        onCommit={(runId) => onChange({ runId })}
        style={{ width: 150 }}
        data-testid="audit-run"
      />
      <label className="row small muted">
        From
        <input
          type="date"
          className="input"
          value={filters.from}
          max={filters.to || undefined}
          onChange={(e) => onChange({ from: e.target.value })}
          aria-label="From date"
          data-testid="audit-from"
        />
      </label>
      <label className="row small muted">
        To
        <input
          type="date"
          className="input"
          value={filters.to}
          min={filters.from || undefined}
          onChange={(e) => onChange({ to: e.target.value })}
          aria-label="To date"
          data-testid="audit-to"
          aria-invalid={badRange ? true : undefined}
        />
      </label>
      {badRange && <FieldError message="The range ends before it starts." />}
      <label className="row small" title="Policy decisions that let a tool call through: one per call">
        <input
          type="checkbox"
          checked={routine}
          onChange={(e) => {
            setRoutine(e.target.checked);
            onChange({ routine: e.target.checked ? "1" : "" });
          }}
          data-testid="audit-show-routine"
        />
        Show routine allows
      </label>
      {active && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClear} data-testid="audit-clear">
          Clear filters
        </button>
      )}
    </div>
  );
}
