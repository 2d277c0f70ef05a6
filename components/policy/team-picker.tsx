"use client";
// A rule's teams: chosen from the teams there are, by id, and shown by name.
// The YAML writes the name, which Rein resolves to that id when the policy is
// saved (docs/security.md#teams-are-referenced-by-id); a glob written in the
// YAML ("eng-*") is shown as the pattern it is.
import type { RouterOutputs } from "@/lib/trpc";
import styles from "./policy.module.css";

export type TeamOption = Pick<RouterOutputs["teams"]["list"][number], "id" | "name" | "archivedAt">;

const isGlob = (entry: string) => /[*?]/.test(entry);

export function TeamPicker({
  id,
  entries,
  teams,
  onChange,
}: {
  id: string;
  entries: string[];
  /** Undefined while the teams load. */
  teams: TeamOption[] | undefined;
  onChange(entries: string[]): void;
}) {
  const byName = new Map((teams ?? []).map((t) => [t.name, t]));
  const choosable = (teams ?? []).filter((t) => !t.archivedAt && !entries.includes(t.name));
  return (
    <div className="stack" style={{ gap: 6 }}>
      {entries.length > 0 && (
        <ul className={styles.chipList} aria-label="Teams of this rule">
          {entries.map((entry) => {
            const team = byName.get(entry);
            const note = team ? (team.archivedAt ? "archived" : null) : isGlob(entry) ? "pattern" : teams ? "no team has this name" : null;
            return (
              <li
                key={entry}
                className={styles.teamChip}
                data-testid="rule-team"
                data-team-id={team?.id}
                title={team ? `Team id ${team.id}` : undefined}
              >
                <span>{entry}</span>
                {note && <span className={team || isGlob(entry) ? "muted" : styles.problemText}>({note})</span>}
                <button
                  type="button"
                  className={styles.chipRemove}
                  aria-label={`Remove team ${entry}`}
                  onClick={() => onChange(entries.filter((e) => e !== entry))}
                >
                  ×
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <select
        id={id}
        className="select"
        value=""
        disabled={!teams || choosable.length === 0}
        onChange={(e) => {
          const team = teams?.find((t) => t.id === e.target.value);
          if (team) onChange([...entries, team.name]);
        }}
        data-testid="rule-team-add"
      >
        <option value="">{!teams ? "Loading teams…" : choosable.length ? "Add a team…" : "No other team to add"}</option>
        {choosable.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </div>
  );
}
