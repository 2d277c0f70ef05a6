"use client";
// The dataset page's scoring: edited in place, saved as a whole (Ctrl/Cmd+S).
// A scoring the server refuses keeps the edits and shows every problem beside
// the scorer it is about.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ErrorBlock } from "@/components/ui";
import {
  NO_SCORING_PROBLEMS,
  countScoringProblems,
  datasetProblemsOf,
  scoringDraftOf,
  scoringOf,
  type ScoringDraft,
  type ScoringProblems,
} from "@/lib/dataset-draft";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { useModifierLabel } from "@/lib/keyboard";
import { trpc } from "@/lib/trpc";
import { useScorerKinds } from "./dataset-dialog";
import { ScoringEditor } from "./scoring-editor";
import type { DatasetView } from "./types";

export function ScoringCard({ dataset, readOnly, onSaved }: { dataset: DatasetView; readOnly: boolean; onSaved(): void }) {
  const utils = trpc.useUtils();
  const kinds = useScorerKinds();
  const mod = useModifierLabel();
  const update = trpc.evals.updateDataset.useMutation();
  const saved = useMemo(() => scoringDraftOf(dataset.scoring), [dataset.scoring]);
  const [draft, setDraft] = useState<ScoringDraft>(saved);
  const [problems, setProblems] = useState<ScoringProblems>(NO_SCORING_PROBLEMS);
  const [other, setOther] = useState<string[]>([]);
  // Changed means a different scoring would be saved; settings that do not parse count as changed.
  const sending = useMemo(() => scoringOf(draft).scoring, [draft]);
  const dirty = sending === null || JSON.stringify(sending) !== JSON.stringify(scoringOf(saved).scoring);
  const count = countScoringProblems(problems) + other.length;

  function change(next: ScoringDraft) {
    // Problems are placed by a scorer's number: once one is added or removed, they no longer line up.
    if (next.scorers.length !== draft.scorers.length) setProblems(NO_SCORING_PROBLEMS);
    setDraft(next);
    setOther([]);
  }

  const save = useCallback(() => {
    if (readOnly || !dirty || update.isPending) return;
    const checked = scoringOf(draft);
    setOther([]);
    if (!checked.scoring) {
      setProblems(checked.problems);
      return;
    }
    setProblems(NO_SCORING_PROBLEMS);
    update.mutate(
      { id: dataset.id, scoring: checked.scoring },
      {
        onSuccess(next) {
          utils.evals.datasets.get.setData({ id: next.id }, next);
          void utils.evals.datasets.list.invalidate();
          onSaved();
        },
        onError(err) {
          const found = datasetProblemsOf(issuesOf(err), errorMessage(err), []);
          setProblems(found.scoring);
          setOther(found.other);
        },
      },
    );
  }, [readOnly, dirty, update, draft, dataset.id, utils, onSaved]);
  const saveRef = useRef(save);
  saveRef.current = save;

  // Ctrl/Cmd+S saves the scoring from anywhere on the page, unless a dialog is open.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "s" || e.altKey || e.shiftKey) return;
      if (document.querySelector("dialog[open]")) return;
      e.preventDefault();
      saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <section className="card" aria-labelledby="scoring-title" data-testid="scoring-card">
      <div className="card-header">
        <h2 id="scoring-title" style={{ flex: 1 }}>
          Scoring
        </h2>
        {dirty && !readOnly && (
          <span className="dirty-note" data-testid="scoring-dirty">
            <span className="dirty-dot" aria-hidden="true" /> Unsaved changes
          </span>
        )}
        {!readOnly && (
          <>
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => {
                setDraft(scoringDraftOf(dataset.scoring));
                setProblems(NO_SCORING_PROBLEMS);
                setOther([]);
              }}
              disabled={!dirty || update.isPending}
              data-testid="scoring-reset"
            >
              Undo changes
            </button>
            <button
              type="button"
              className="btn btn-sm btn-primary"
              onClick={save}
              disabled={!dirty || update.isPending}
              title={dirty ? `Save the scoring (${mod}+S)` : "No changes to save"}
              data-testid="scoring-save"
            >
              {update.isPending && <span className="spinner" aria-hidden="true" />}
              Save scoring <kbd>{mod}+S</kbd>
            </button>
          </>
        )}
      </div>
      {count > 0 && (
        <ErrorBlock testId="scoring-error" style={{ margin: "12px 16px 0" }}>
          <div>
            <strong>{count === 1 ? "The scoring has a problem" : `The scoring has ${count} problems`}; nothing was saved.</strong>
            {other.length > 0 ? (
              <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
                {other.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            ) : (
              <div className="small">Each is shown beside the scorer it is about.</div>
            )}
          </div>
        </ErrorBlock>
      )}
      {kinds.isError && (
        <div className="alert alert-warn" role="status" style={{ margin: "12px 16px 0" }}>
          Could not load the scorer kinds: {errorMessage(kinds.error)}
        </div>
      )}
      <ScoringEditor draft={draft} kinds={kinds.data} readOnly={readOnly} problems={problems} onChange={change} />
    </section>
  );
}
