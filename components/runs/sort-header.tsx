"use client";
// A column header that sorts the Runs list: a button (Enter/Space), aria-sort on the cell.
import styles from "./runs-table.module.css";
import { ariaSort, nextSort, type RunSort, type SortDir } from "@/lib/run-list";

export function SortHeader({
  column,
  label,
  current,
  onSort,
  numeric = false,
  title,
}: {
  column: RunSort;
  label: string;
  current: { sort: RunSort; dir: SortDir };
  onSort(next: { sort: RunSort; dir: SortDir }): void;
  numeric?: boolean;
  /** The whole name, when the label is short for it. */
  title?: string;
}) {
  const state = ariaSort(current, column);
  return (
    <th aria-sort={state} className={numeric ? "num" : undefined} data-testid={`sort-${column}`}>
      <button type="button" className={styles.sortButton} title={title} onClick={() => onSort(nextSort(current, column))}>
        {label}
        <span aria-hidden="true" className={styles.sortMark}>
          {state === "ascending" ? "▲" : state === "descending" ? "▼" : "↕"}
        </span>
      </button>
    </th>
  );
}
