"use client";
// The Runs list's columns (docs/runs.md#the-runs-list): status, goal, agent,
// cost and when are always shown; the others are behind Columns, and the
// choice is kept in this browser.
import { useCallback, useEffect, useRef, useState } from "react";
import { useDismiss } from "@/lib/use-dismiss";
import styles from "./runs-table.module.css";

export const OPTIONAL_RUN_COLUMNS = [
  { id: "model", label: "Model" },
  { id: "steps", label: "Steps" },
  { id: "tokens", label: "Tokens in / out" },
  { id: "duration", label: "Duration" },
  { id: "creator", label: "Created by" },
] as const;

export type OptionalRunColumn = (typeof OPTIONAL_RUN_COLUMNS)[number]["id"];

const STORAGE_KEY = "rein.runs.columns";
const DEFAULT_SHOWN: readonly OptionalRunColumn[] = [];
const isColumn = (v: unknown): v is OptionalRunColumn => OPTIONAL_RUN_COLUMNS.some((c) => c.id === v);

/** The optional columns shown, and a way to switch one; read from this browser after the first render. */
export function useRunColumns(): [ReadonlySet<OptionalRunColumn>, (id: OptionalRunColumn, on: boolean) => void] {
  const [shown, setShown] = useState<ReadonlySet<OptionalRunColumn>>(() => new Set(DEFAULT_SHOWN));
  useEffect(() => {
    try {
      const stored = JSON.parse(window.localStorage.getItem(STORAGE_KEY) ?? "null") as unknown;
      if (Array.isArray(stored)) setShown(new Set(stored.filter(isColumn)));
    } catch {
      // A value another version wrote: the defaults stand.
    }
  }, []);
  const toggle = useCallback((id: OptionalRunColumn, on: boolean) => {
    setShown((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      try {
        window.localStorage.setItem(STORAGE_KEY, JSON.stringify([...next]));
      } catch {
        // Storage full or refused: the choice lasts until the page is left.
      }
      return next;
    });
  }, []);
  return [shown, toggle];
}

/** The Columns button and its menu of checkboxes. */
export function ColumnChooser({
  shown,
  onToggle,
}: {
  shown: ReadonlySet<OptionalRunColumn>;
  onToggle(id: OptionalRunColumn, on: boolean): void;
}) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const close = useCallback((how: "outside" | "escape") => {
    setOpen(false);
    if (how === "escape") button.current?.focus();
  }, []);
  useDismiss(open, box, close);
  return (
    <div className={styles.chooser} ref={box}>
      <button
        ref={button}
        type="button"
        className="btn btn-sm"
        aria-haspopup="true"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="runs-columns"
      >
        Columns{shown.size ? ` (+${shown.size})` : ""}
      </button>
      {open && (
        <fieldset className={styles.chooserMenu} data-testid="runs-columns-menu">
          <legend className="small muted">Also show</legend>
          {OPTIONAL_RUN_COLUMNS.map((c, i) => (
            <label key={c.id} className="checkbox">
              <input
                type="checkbox"
                checked={shown.has(c.id)}
                autoFocus={i === 0}
                onChange={(e) => onToggle(c.id, e.target.checked)}
                data-testid={`runs-column-${c.id}`}
              />
              {c.label}
            </label>
          ))}
          <p className="small muted">Status, goal, agent, cost and when are always shown.</p>
        </fieldset>
      )}
    </div>
  );
}
