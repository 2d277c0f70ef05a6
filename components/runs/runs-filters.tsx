"use client";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { STATUS_LABELS } from "@/lib/format";
import type { RangeErrors } from "@/lib/run-list";
import { trpc } from "@/lib/trpc";
import { RunRangeFilter } from "./run-range-filter";
import { RunTagFilter } from "./run-tag-filter";
import { RUN_STATES, type RunFilters } from "./use-run-filters";

export function RunsFilters({
  filters,
  onChange,
  active,
  onClear,
  rangeErrors,
  tagError,
  end,
}: {
  filters: RunFilters;
  onChange(patch: Partial<RunFilters>): void;
  active: boolean;
  onClear(): void;
  rangeErrors: RangeErrors;
  tagError: string | null;
  /** Shown last in the bar (the column chooser). */
  end?: ReactNode;
}) {
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const [q, setQ] = useState(filters.q);

  // Typing is debounced into the URL; a URL change we did not make (back,
  // forward, "Clear filters") replaces the text.
  const pushed = useRef(filters.q);
  useEffect(() => {
    if (filters.q === pushed.current) return;
    pushed.current = filters.q;
    setQ(filters.q);
  }, [filters.q]);
  useEffect(() => {
    if (q.trim() === pushed.current) return;
    const timer = setTimeout(() => {
      pushed.current = q.trim();
      onChange({ q });
    }, 300);
    return () => clearTimeout(timer);
  }, [q, onChange]);

  function toggleStatus(s: (typeof RUN_STATES)[number]) {
    const has = filters.status.includes(s);
    onChange({ status: has ? filters.status.filter((x) => x !== s) : [...filters.status, s] });
  }

  return (
    <div className="filters" role="search" aria-label="Filter runs">
      <input
        type="search"
        className="input search-input"
        placeholder="Search goals…"
        aria-label="Search goals"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== "Enter") return;
          pushed.current = q.trim();
          onChange({ q });
        }}
        data-testid="runs-search"
      />
      <select
        className="select"
        aria-label="Agent"
        value={filters.agent}
        onChange={(e) => onChange({ agent: e.target.value })}
        data-testid="agent-filter"
      >
        <option value="">All agents</option>
        {filters.agent && !agents.data?.some((a) => a.name === filters.agent) && <option value={filters.agent}>{filters.agent}</option>}
        {agents.data?.map((a) => (
          <option key={a.name} value={a.name}>
            {a.name}
          </option>
        ))}
      </select>
      <RunTagFilter tag={filters.tag} error={tagError} onChange={(tag) => onChange({ tag })} />
      <RunRangeFilter from={filters.from} to={filters.to} errors={rangeErrors} onChange={onChange} />
      <label className="checkbox">
        <input type="checkbox" checked={filters.mine} onChange={(e) => onChange({ mine: e.target.checked })} data-testid="only-mine" />
        Only mine
      </label>
      <div className="chips" role="group" aria-label="Status">
        {RUN_STATES.map((s) => (
          <button
            key={s}
            type="button"
            className="chip"
            aria-pressed={filters.status.includes(s)}
            onClick={() => toggleStatus(s)}
            data-testid={`status-chip-${s}`}
          >
            {STATUS_LABELS[s]}
          </button>
        ))}
      </div>
      {active && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClear} data-testid="clear-filters">
          Clear filters
        </button>
      )}
      {end}
    </div>
  );
}
