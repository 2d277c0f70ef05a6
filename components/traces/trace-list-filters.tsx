"use client";
import { FieldError } from "@/components/ui";
import { DebouncedInput } from "@/components/debounced-input";
import { STATUS_LABELS } from "@/lib/format";
import {
  TRACE_LIST_RANGES,
  TRACE_LIST_STATUSES,
  DEFAULT_TRACE_LIST_RANGE,
  type TraceListField,
  type TraceListFilters,
} from "@/lib/trace-list-filters";
import styles from "./traces.module.css";
import { FacetSelect } from "./traces-filters";

type Patch = Partial<TraceListFilters>;
type Option = { value: string; label: string };

/** A typed filter with its problem under it (trace-list-<name>-error), the field marked invalid. */
function CheckedInput(props: {
  name: string;
  testId?: string;
  width: number;
  placeholder: string;
  label: string;
  value: string;
  error?: string;
  onCommit(value: string): void;
}) {
  const errorId = `trace-list-${props.name}-error`;
  return (
    <span className={styles.field}>
      <DebouncedInput
        className="input"
        style={{ width: props.width }}
        placeholder={props.placeholder}
        aria-label={props.label}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errorId : undefined}
        value={props.value}
        onCommit={props.onCommit}
        data-testid={props.testId ?? `trace-list-${props.name}`}
      />
      <FieldError id={errorId} message={props.error} testId={errorId} live />
    </span>
  );
}

export function TraceListFiltersBar({
  filters,
  errors,
  agents,
  users,
  onChange,
  active,
  onClear,
}: {
  filters: TraceListFilters;
  errors: Partial<Record<TraceListField, string>>;
  agents: Option[];
  users: Option[];
  onChange(patch: Patch): void;
  active: boolean;
  onClear(): void;
}) {
  const range = filters.range || DEFAULT_TRACE_LIST_RANGE;
  const dated = Boolean(filters.from || filters.to);
  return (
    <div className="filters" role="search" aria-label="Filter traces">
      <DebouncedInput
        type="search"
        className="input search-input"
        placeholder="Search run names…"
        aria-label="Search run names"
        value={filters.q}
        onCommit={(q) => onChange({ q })}
        data-testid="trace-list-search"
      />
      <FacetSelect
        label="Agent"
        all="All agents"
        value={filters.agent}
        options={agents}
        onChange={(agent) => onChange({ agent })}
        testId="trace-list-agent"
      />
      <span className={styles.field}>
        <FacetSelect
          label="Status"
          all="Any status"
          value={filters.status}
          options={TRACE_LIST_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] ?? s }))}
          onChange={(status) => onChange({ status })}
          testId="trace-list-status"
        />
        <FieldError id="trace-list-status-error" message={errors.status} testId="trace-list-status-error" live />
      </span>
      <FacetSelect
        label="Launched by"
        all="Anyone"
        value={filters.user}
        options={users}
        onChange={(user) => onChange({ user })}
        testId="trace-list-user"
      />
      <CheckedInput
        name="duration"
        testId="trace-list-min-duration"
        width={120}
        placeholder="min seconds"
        label="Shortest duration in seconds"
        value={filters.minDuration}
        error={errors.minDuration}
        onCommit={(minDuration) => onChange({ minDuration })}
      />
      <div className="chips" role="group" aria-label="Time range">
        {TRACE_LIST_RANGES.map((r) => (
          <button
            key={r.value}
            type="button"
            className="chip"
            aria-pressed={!dated && range === r.value}
            onClick={() => onChange({ range: r.value === DEFAULT_TRACE_LIST_RANGE ? "" : r.value, from: "", to: "" })}
            data-testid={`trace-list-range-${r.value}`}
          >
            {r.label}
          </button>
        ))}
      </div>
      <CheckedInput
        name="from"
        width={150}
        placeholder="From (2026-03-01)"
        label="From date"
        value={filters.from}
        error={errors.from}
        onCommit={(from) => onChange({ from })}
      />
      <CheckedInput
        name="to"
        width={150}
        placeholder="To (2026-03-07)"
        label="To date"
        value={filters.to}
        error={errors.to}
        onCommit={(to) => onChange({ to })}
      />
      {active && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClear} data-testid="trace-list-clear">
          Clear filters
        </button>
      )}
    </div>
  );
}
