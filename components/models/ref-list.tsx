"use client";
// A list of models ("<provider>/<model id>") picked from the configured ones:
// a routing rule's candidates (ordered: up, down) or a pool's members.
import { useId, useState } from "react";
import { move, withItem, withoutIndex } from "@/lib/routing-draft";
import styles from "./models.module.css";

export function RefList({
  items,
  options,
  ordered,
  label,
  empty,
  onChange,
  testId,
}: {
  items: string[];
  options: string[];
  ordered: boolean;
  /** What the list is, for screen readers: "code candidates", "pool Private". */
  label: string;
  empty: string;
  onChange(items: string[]): void;
  testId: string;
}) {
  const id = useId();
  const [pick, setPick] = useState("");
  const available = options.filter((o) => !items.includes(o));
  const add = () => {
    onChange(withItem(items, pick));
    setPick("");
  };
  const List = ordered ? "ol" : "ul";
  return (
    <div className="stack" style={{ gap: 8 }} data-testid={testId}>
      {items.length > 0 ? (
        <List className={styles.candidates} aria-label={label}>
          {items.map((ref, i) => (
            <li key={ref} className={styles.candidate} data-testid={`${testId}-item`} data-model={ref}>
              {ordered && (
                <span className="small muted" aria-hidden="true">
                  {i + 1}.
                </span>
              )}
              <code>{ref}</code>
              {!options.includes(ref) && (
                <span className="badge badge-error" title="No configured model has this name; routing skips it">
                  not configured
                </span>
              )}
              {ordered && (
                <>
                  <button
                    type="button"
                    className="btn btn-sm btn-ghost"
                    disabled={i === 0}
                    onClick={() => onChange(move(items, i, -1))}
                    aria-label={`Move ${ref} up`}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    className="btn btn-sm btn-ghost"
                    disabled={i === items.length - 1}
                    onClick={() => onChange(move(items, i, 1))}
                    aria-label={`Move ${ref} down`}
                  >
                    ↓
                  </button>
                </>
              )}
              <button
                type="button"
                className="btn btn-sm btn-ghost"
                onClick={() => onChange(withoutIndex(items, i))}
                aria-label={`Remove ${ref} from ${label}`}
              >
                ✕
              </button>
            </li>
          ))}
        </List>
      ) : (
        <p className="small muted">{empty}</p>
      )}
      <div className={styles.addRow}>
        <label htmlFor={`${id}-add`} className="sr-only">
          Add a model to {label}
        </label>
        <select
          id={`${id}-add`}
          className="select"
          value={pick}
          onChange={(e) => setPick(e.target.value)}
          disabled={available.length === 0}
          data-testid={`${testId}-pick`}
        >
          <option value="">{available.length ? "Add a model…" : options.length ? "Every model is listed" : "No models configured"}</option>
          {available.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-sm" disabled={!pick} onClick={add} data-testid={`${testId}-add`}>
          Add
        </button>
      </div>
    </div>
  );
}
