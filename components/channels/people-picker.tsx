"use client";
// A multi-select of people: the chosen ones as tags (✕ removes), and a
// select that adds one more. Works from the keyboard like any select.
import styles from "./channels.module.css";

export interface PersonOption {
  id: string;
  name: string;
  email: string;
  role: string;
}

export function PeoplePicker({
  label,
  people,
  chosen,
  onChange,
  emptyWords,
  testId,
}: {
  label: string;
  people: PersonOption[];
  chosen: string[];
  onChange(ids: string[]): void;
  emptyWords: string;
  testId: string;
}) {
  const byId = new Map(people.map((p) => [p.id, p]));
  const rest = people.filter((p) => !chosen.includes(p.id));
  return (
    <div className={styles.picker} data-testid={testId}>
      <div className={styles.pickerChosen} aria-live="polite">
        {chosen.length === 0 && (
          <span className="muted small" data-testid={`${testId}-default`}>
            {emptyWords}
          </span>
        )}
        {chosen.map((id) => {
          const p = byId.get(id);
          return (
            <span key={id} className={`tag ${styles.hostTag}`} data-testid={`${testId}-chosen`} data-user={id}>
              {p ? p.name || p.email : `${id} (no longer here)`}
              <button
                type="button"
                className="btn btn-ghost btn-sm"
                aria-label={`Remove ${p?.name || p?.email || id} from ${label}`}
                onClick={() => onChange(chosen.filter((c) => c !== id))}
              >
                ✕
              </button>
            </span>
          );
        })}
      </div>
      <select
        className="select"
        aria-label={`Add a person to ${label}`}
        value=""
        onChange={(e) => e.target.value && onChange([...chosen, e.target.value])}
        disabled={rest.length === 0}
        style={{ maxWidth: 360 }}
        data-testid={`${testId}-add`}
      >
        <option value="">{rest.length === 0 ? "Everyone who fits is chosen" : "Add a person…"}</option>
        {rest.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name || p.email} ({p.email}, {p.role})
          </option>
        ))}
      </select>
    </div>
  );
}
