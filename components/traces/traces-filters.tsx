"use client";
import { DebouncedInput } from "@/components/debounced-input";
import type { RouterOutputs } from "@/lib/trpc";
import { KIND_OPTIONS, RANGES, STATUS_OPTIONS, type TraceFilters } from "./use-trace-filters";

type Facets = RouterOutputs["traces"]["facets"];
type Patch = Partial<TraceFilters>;

/** A dropdown of the values seen in the range; a value from the URL that is not among them stays selectable. */
export function FacetSelect({
  label,
  all,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  all: string;
  value: string;
  options: Array<{ value: string; label: string }>;
  onChange(v: string): void;
  testId: string;
}) {
  return (
    <select className="select" aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
      <option value="">{all}</option>
      {value && !options.some((o) => o.value === value) && <option value={value}>{value}</option>}
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

const plain = (xs: string[] | undefined) => (xs ?? []).map((x) => ({ value: x, label: x }));

export function TracesFilters({
  filters,
  facets,
  onChange,
  active,
  onClear,
}: {
  filters: TraceFilters;
  facets: Facets | undefined;
  onChange(patch: Patch): void;
  active: boolean;
  onClear(): void;
}) {
  return (
    <div className="filters" role="search" aria-label="Filter spans">
      <DebouncedInput
        type="search"
        className="input search-input"
        placeholder="Search span names…"
        aria-label="Search span names"
        value={filters.q}
        onCommit={(q) => onChange({ q })}
        data-testid="traces-search"
      />
      <FacetSelect
        label="Kind"
        all="All kinds"
        value={filters.kind}
        options={KIND_OPTIONS}
        onChange={(v) => onChange({ kind: v as Patch["kind"] })}
        testId="kind-filter"
      />
      <FacetSelect
        label="Model"
        all="All models"
        value={filters.model}
        options={plain(facets?.models)}
        onChange={(model) => onChange({ model })}
        testId="model-filter"
      />
      <FacetSelect
        label="Tool"
        all="All tools"
        value={filters.tool}
        options={plain(facets?.tools)}
        onChange={(tool) => onChange({ tool })}
        testId="tool-filter"
      />
      <FacetSelect
        label="Team"
        all="All teams"
        value={filters.team}
        options={(facets?.teams ?? []).map((t) => ({ value: t.id, label: t.name }))}
        onChange={(team) => onChange({ team })}
        testId="team-filter"
      />
      <FacetSelect
        label="Workflow"
        all="All workflows"
        value={filters.workflow}
        options={plain(facets?.workflows)}
        onChange={(workflow) => onChange({ workflow })}
        testId="workflow-filter"
      />
      <FacetSelect
        label="Status"
        all="Any status"
        value={filters.status}
        options={STATUS_OPTIONS}
        onChange={(v) => onChange({ status: v as Patch["status"] })}
        testId="status-filter"
      />
      <span className="row" style={{ gap: 6 }}>
        <DebouncedInput
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
          className="input"
          style={{ width: 96 }}
          placeholder="min ms"
          aria-label="Shortest duration in milliseconds"
          value={filters.minMs}
          onCommit={(minMs) => onChange({ minMs })}
          data-testid="min-duration"
        />
        <span className="muted" aria-hidden="true">
          –
        </span>
        <DebouncedInput
          type="number"
          min={0}
          step="any"
          inputMode="decimal"
          className="input"
          style={{ width: 96 }}
          placeholder="max ms"
          aria-label="Longest duration in milliseconds"
          value={filters.maxMs}
          onCommit={(maxMs) => onChange({ maxMs })}
          data-testid="max-duration"
        />
      </span>
      <DebouncedInput
        type="number"
        min={0}
        step="any"
        inputMode="decimal"
        className="input"
        style={{ width: 104 }}
        placeholder="min $"
        aria-label="Lowest cost in US dollars"
        value={filters.minCost}
        onCommit={(minCost) => onChange({ minCost })}
        data-testid="min-cost"
      />
      <div className="chips" role="group" aria-label="Time range">
        {RANGES.map((r) => (
          <button
            key={r.value}
            type="button"
            className="chip"
            aria-pressed={filters.range === r.value}
            onClick={() => onChange({ range: r.value })}
            data-testid={`range-${r.value}`}
          >
            {r.label}
          </button>
        ))}
      </div>
      {active && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClear} data-testid="clear-filters">
          Clear filters
        </button>
      )}
    </div>
  );
}
