"use client";
// Created from / to: two day pickers; a bad value or a reversed range is named under its field.
import styles from "./runs-table.module.css";
import { FieldError } from "@/components/ui";
import type { RangeErrors } from "@/lib/run-list";

export function RunRangeFilter({
  from,
  to,
  errors,
  onChange,
}: {
  from: string;
  to: string;
  errors: RangeErrors;
  onChange(patch: { from?: string; to?: string }): void;
}) {
  return (
    <div className={styles.range} role="group" aria-label="Created between">
      <label className={styles.rangeField}>
        <span className="small muted">From</span>
        <input
          type="date"
          className="input"
          value={from}
          max={to || undefined}
          aria-invalid={!!errors.from}
          aria-describedby={errors.from ? "runs-from-error" : undefined}
          onChange={(e) => onChange({ from: e.target.value })}
          data-testid="runs-from"
        />
        <FieldError id="runs-from-error" message={errors.from} testId="runs-from-error" />
      </label>
      <label className={styles.rangeField}>
        <span className="small muted">To</span>
        <input
          type="date"
          className="input"
          value={to}
          aria-invalid={!!errors.to}
          aria-describedby={errors.to ? "runs-to-error" : undefined}
          onChange={(e) => onChange({ to: e.target.value })}
          data-testid="runs-to"
        />
        <FieldError id="runs-to-error" message={errors.to} testId="runs-to-error" />
      </label>
    </div>
  );
}
