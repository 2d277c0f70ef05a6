"use client";
import styles from "./inbox.module.css";
import { SCOPES, STATE_FILTERS, type InboxFilters, type StateFilter } from "./use-inbox-filters";
import { KIND_LABELS, REQUEST_KINDS } from "./types";

export function InboxFiltersBar({ filters, onChange }: { filters: InboxFilters; onChange(patch: Partial<InboxFilters>): void }) {
  return (
    <div className={styles.filters} role="search" aria-label="Filter requests">
      <div className={styles.filterRow}>
        <div className={styles.segmented} role="group" aria-label="Whose runs">
          {SCOPES.map((s) => (
            <button
              key={s.id}
              type="button"
              aria-pressed={filters.scope === s.id}
              onClick={() => onChange({ scope: s.id })}
              data-testid={`scope-${s.id}`}
            >
              {s.label}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <select
          className={`select ${styles.stateSelect}`}
          aria-label="State"
          value={filters.state}
          onChange={(e) => onChange({ state: e.target.value as StateFilter })}
          data-testid="state-filter"
        >
          {(Object.keys(STATE_FILTERS) as StateFilter[]).map((s) => (
            <option key={s} value={s}>
              {STATE_FILTERS[s].label}
            </option>
          ))}
        </select>
      </div>
      <div className={styles.filterRow} role="group" aria-label="Kind">
        {REQUEST_KINDS.map((k) => {
          const on = filters.kind.includes(k);
          return (
            <button
              key={k}
              type="button"
              className={`chip ${styles.smallChip}`}
              aria-pressed={on}
              onClick={() => onChange({ kind: on ? filters.kind.filter((x) => x !== k) : [...filters.kind, k] })}
              data-testid={`kind-filter-${k}`}
            >
              {KIND_LABELS[k]}
            </button>
          );
        })}
      </div>
    </div>
  );
}
