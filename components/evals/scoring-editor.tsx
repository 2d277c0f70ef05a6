"use client";
// A dataset's scoring as form fields: one row a scorer (kind, weight,
// required, its settings as JSON) and the pass threshold. Each scorer's
// problems are shown in its row, all at once, in the server's words.
import { FieldProblems, problemProps } from "@/components/agents/field-problems";
import { newScorerDraft, type ScorerDraft, type ScoringDraft, type ScoringProblems } from "@/lib/dataset-draft";
import type { ScorerKindView } from "./types";
import styles from "./evals.module.css";

function settingsHint(info: ScorerKindView | undefined): string {
  if (!info) return "Settings as JSON.";
  if (info.settings.length === 0) return "This kind has no settings of its own.";
  return `Settings: ${info.settings.map((s) => (s.required ? `${s.name} (needed)` : s.name)).join(", ")}.`;
}

function ScorerRow({
  index,
  scorer,
  kinds,
  readOnly,
  problems,
  onChange,
  onRemove,
}: {
  index: number;
  scorer: ScorerDraft;
  kinds: ScorerKindView[];
  readOnly: boolean;
  problems?: string[];
  onChange(patch: Partial<ScorerDraft>): void;
  onRemove(): void;
}) {
  const n = index + 1;
  const info = kinds.find((k) => k.kind === scorer.kind);
  const field = `scorer-${n}`;
  const rows = Math.min(8, Math.max(1, scorer.settings.split("\n").length));
  // Each problem marks the field it names (weight, required), the settings otherwise.
  const about = (name: string) => problems?.filter((m) => m.startsWith(`${name} `) || m.startsWith(`${name}:`));
  const weightProblems = about("weight");
  const requiredProblems = about("required");
  const settingsProblems = problems?.filter((m) => !weightProblems?.includes(m) && !requiredProblems?.includes(m));

  function changeKind(kind: string) {
    // Settings still as a kind's template follow the new kind; edited ones stay.
    const template = newScorerDraft(scorer.kind, info?.settings).settings;
    const untouched = scorer.settings.trim() === "{}" || scorer.settings === template;
    onChange({ kind, ...(untouched ? { settings: newScorerDraft(kind, kinds.find((k) => k.kind === kind)?.settings).settings } : {}) });
  }

  return (
    <li
      className={`${styles.scorer}${problems?.length ? ` ${styles.scorerInvalid}` : ""}`}
      data-testid="scorer-row"
      data-index={n}
      data-kind={scorer.kind}
    >
      <span className={styles.scorerNumber} aria-hidden="true">
        {n}.
      </span>
      <div className={`field ${styles.kind}`}>
        <label htmlFor={`${field}-kind`}>Kind</label>
        <select
          id={`${field}-kind`}
          className="select mono"
          value={scorer.kind}
          disabled={readOnly}
          onChange={(e) => changeKind(e.target.value)}
          data-testid="scorer-kind"
          aria-label={`Scorer ${n} kind`}
        >
          {!info && <option value={scorer.kind}>{scorer.kind || "(no kind)"}</option>}
          {kinds.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.kind}
            </option>
          ))}
        </select>
      </div>
      <div className={`field ${styles.weight}`}>
        <label htmlFor={`${field}-weight`}>Weight</label>
        <input
          id={`${field}-weight`}
          className="input"
          inputMode="decimal"
          placeholder="1"
          value={scorer.weight}
          readOnly={readOnly}
          onChange={(e) => onChange({ weight: e.target.value })}
          data-testid="scorer-weight"
          aria-label={`Scorer ${n} weight`}
          {...problemProps(field, weightProblems)}
        />
      </div>
      <label
        className={`checkbox ${styles.requiredBox}`}
        title="A required scorer that fails (or cannot be checked) fails the item, whatever the score"
      >
        <input
          type="checkbox"
          checked={scorer.required}
          disabled={readOnly}
          onChange={(e) => onChange({ required: e.target.checked })}
          data-testid="scorer-required"
          aria-label={`Scorer ${n} required`}
          {...problemProps(field, requiredProblems)}
        />
        Required
      </label>
      <div className={`field ${styles.settings}`}>
        <label htmlFor={`${field}-settings`}>Settings</label>
        <textarea
          id={`${field}-settings`}
          className="textarea mono"
          rows={rows}
          spellCheck={false}
          value={scorer.settings}
          readOnly={readOnly}
          onChange={(e) => onChange({ settings: e.target.value })}
          data-testid="scorer-settings"
          aria-label={`Scorer ${n} settings, JSON`}
          {...problemProps(field, settingsProblems)}
        />
        <span className="hint">{settingsHint(info)}</span>
      </div>
      {!readOnly && (
        <button
          type="button"
          className={`btn btn-sm btn-ghost ${styles.remove}`}
          onClick={onRemove}
          aria-label={`Remove scorer ${n} (${scorer.kind})`}
          data-testid="scorer-remove"
        >
          ✕
        </button>
      )}
      {problems?.length ? (
        <div className={styles.scorerProblems} data-testid="scorer-problems">
          <FieldProblems field={field} messages={problems} />
        </div>
      ) : null}
    </li>
  );
}

export function ScoringEditor({
  draft,
  kinds,
  readOnly,
  problems,
  compact = false,
  onChange,
}: {
  draft: ScoringDraft;
  /** The kinds the server knows; undefined while they load. */
  kinds: ScorerKindView[] | undefined;
  readOnly: boolean;
  problems: ScoringProblems;
  /** Settings on a row of their own (in a dialog). */
  compact?: boolean;
  onChange(draft: ScoringDraft): void;
}) {
  const known = kinds ?? [];
  const setScorer = (i: number, patch: Partial<ScorerDraft>) =>
    onChange({ ...draft, scorers: draft.scorers.map((s, j) => (j === i ? { ...s, ...patch } : s)) });

  function add() {
    const used = new Set(draft.scorers.map((s) => s.kind));
    const pick = known.find((k) => !used.has(k.kind)) ?? known[0];
    if (!pick) return;
    onChange({ ...draft, scorers: [...draft.scorers, newScorerDraft(pick.kind, pick.settings)] });
    // The new row's kind is where a keyboard user goes next.
    requestAnimationFrame(() => document.getElementById(`scorer-${draft.scorers.length + 1}-kind`)?.focus());
  }

  return (
    <div className={compact ? styles.compact : undefined} data-testid="scoring-editor">
      {problems.general.length > 0 && (
        <div style={{ padding: "12px 16px 0" }} data-testid="scoring-general-problems">
          <FieldProblems field="scoring" messages={problems.general} />
        </div>
      )}
      {draft.scorers.length === 0 ? (
        <p className="muted" style={{ padding: 16 }}>
          No scorers yet: a dataset needs at least one to say what a good run is.
        </p>
      ) : (
        <ol className={styles.scorers} aria-label="Scorers">
          {draft.scorers.map((s, i) => (
            <ScorerRow
              key={s.uid}
              index={i}
              scorer={s}
              kinds={known}
              readOnly={readOnly}
              problems={problems.scorers[i]}
              onChange={(patch) => setScorer(i, patch)}
              onRemove={() => onChange({ ...draft, scorers: draft.scorers.filter((_, j) => j !== i) })}
            />
          ))}
        </ol>
      )}
      <div className={styles.scoringFoot}>
        {!readOnly && (
          <button
            type="button"
            className="btn btn-sm"
            onClick={add}
            disabled={known.length === 0}
            style={{ marginTop: 24 }}
            data-testid="scorer-add"
          >
            + Add scorer
          </button>
        )}
        <div className={`field ${styles.threshold}`}>
          <label htmlFor="scoring-threshold">Pass threshold</label>
          <input
            id="scoring-threshold"
            className="input"
            inputMode="decimal"
            value={draft.threshold}
            readOnly={readOnly}
            onChange={(e) => onChange({ ...draft, threshold: e.target.value })}
            data-testid="scoring-threshold"
            {...problemProps("threshold", problems.threshold)}
          />
          <FieldProblems field="threshold" messages={problems.threshold} />
        </div>
        <p className="hint" style={{ flex: 1, minWidth: 240, marginTop: 24 }}>
          An item passes when the weighted mean of its scores reaches the threshold (0 to 1) and every required scorer passed. Scorers that
          cannot run are skipped; a skipped required scorer fails the item.
        </p>
      </div>
    </div>
  );
}
