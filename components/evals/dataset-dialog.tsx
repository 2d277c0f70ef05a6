"use client";
// New dataset (name, description, who sees it, its scoring) and, for a saved
// one, its details. Every problem the server finds is shown beside its field
// or scorer at once; nothing is saved until all are fixed.
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { FieldProblems, problemProps } from "@/components/agents/field-problems";
import { TeamOptions } from "@/components/agents/team-options";
import { Dialog, ErrorBlock, FieldError } from "@/components/ui";
import { launchTeams, useMe } from "@/lib/access";
import {
  NO_SCORING_PROBLEMS,
  countScoringProblems,
  datasetProblemsOf,
  newScorerDraft,
  scoringOf,
  type DatasetProblems,
  type ScoringDraft,
} from "@/lib/dataset-draft";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";
import { ScoringEditor } from "./scoring-editor";
import type { DatasetView } from "./types";

const FIELDS = ["name", "description", "teamId"] as const;
const NO_PROBLEMS: DatasetProblems = { fields: {}, scoring: NO_SCORING_PROBLEMS, other: [] };

export function useScorerKinds() {
  return trpc.evals.scorerKinds.useQuery(undefined, { staleTime: Infinity });
}

export function DatasetDialog({
  open,
  dataset,
  onClose,
}: {
  open: boolean;
  /** The saved dataset whose details change; none for a new one. */ dataset?: DatasetView;
  onClose(): void;
}) {
  const titleId = useId();
  // The dialog renders its form only while open: each opening starts afresh.
  return (
    <Dialog open={open} onClose={onClose} labelledBy={titleId} testId="dataset-dialog">
      <DatasetForm titleId={titleId} dataset={dataset} onClose={onClose} />
    </Dialog>
  );
}

function DatasetForm({ titleId, dataset, onClose }: { titleId: string; dataset?: DatasetView; onClose(): void }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const { me } = useMe();
  const kinds = useScorerKinds();
  const create = trpc.evals.createDataset.useMutation();
  const update = trpc.evals.updateDataset.useMutation();
  const isNew = !dataset;
  const [name, setName] = useState(dataset?.name ?? "");
  const [description, setDescription] = useState(dataset?.description ?? "");
  // Only admins make a dataset for everyone: anyone else starts in a team of theirs (the one used last first).
  const [teamId, setTeamId] = useState<string | null>(() =>
    dataset ? dataset.teamId : me?.role === "admin" ? null : (launchTeams(me)[0]?.id ?? null),
  );
  const [scoring, setScoring] = useState<ScoringDraft>(() => ({
    scorers: [{ ...newScorerDraft("outcome"), required: true }],
    threshold: "1",
  }));
  const [problems, setProblems] = useState<DatasetProblems>(NO_PROBLEMS);
  const busy = create.isPending || update.isPending;
  const count =
    Object.values(problems.fields).reduce((n, l) => n + l.length, 0) + countScoringProblems(problems.scoring) + problems.other.length;

  function failed(err: unknown) {
    setProblems(datasetProblemsOf(issuesOf(err), errorMessage(err), FIELDS));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setProblems(NO_PROBLEMS);
    if (dataset) {
      update.mutate(
        { id: dataset.id, name: name.trim(), description, teamId },
        {
          onSuccess(saved) {
            utils.evals.datasets.get.setData({ id: saved.id }, saved);
            void utils.evals.datasets.list.invalidate();
            onClose();
          },
          onError: failed,
        },
      );
      return;
    }
    const checked = scoringOf(scoring);
    if (!checked.scoring) {
      setProblems({ ...NO_PROBLEMS, scoring: checked.problems });
      return;
    }
    create.mutate(
      { name: name.trim(), description, teamId, scoring: checked.scoring },
      {
        onSuccess(created) {
          utils.evals.datasets.get.setData({ id: created.id }, created);
          void utils.evals.datasets.list.invalidate();
          onClose();
          router.push(`/evals/datasets/${encodeURIComponent(created.id)}`);
        },
        onError: failed,
      },
    );
  }

  return (
    <form className="dialog-form" onSubmit={submit} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>{isNew ? "New dataset" : `Details of ${dataset.name}`}</h2>
          <p>
            {isNew
              ? "Goals with expected outcomes, and the scoring that says what a good run is. Add items once it exists."
              : "Its items and scoring stay as they are."}
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor="dataset-name">Name</label>
          <input
            id="dataset-name"
            className="input mono"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. release-notes"
            autoComplete="off"
            spellCheck={false}
            maxLength={64}
            data-autofocus
            data-testid="dataset-name"
            {...problemProps("name", problems.fields.name)}
          />
          <span className="hint">2–64 lowercase letters, digits and dashes, starting with a letter.</span>
          <FieldProblems field="name" messages={problems.fields.name} />
        </div>
        <div className="field">
          <label htmlFor="dataset-description">Description</label>
          <textarea
            id="dataset-description"
            className="textarea"
            rows={2}
            style={{ minHeight: 56 }}
            value={description}
            maxLength={500}
            onChange={(e) => setDescription(e.target.value)}
            placeholder="What these goals check, in a sentence"
            data-testid="dataset-description"
            {...problemProps("description", problems.fields.description)}
          />
          <FieldProblems field="description" messages={problems.fields.description} />
        </div>
        <div className="field" style={{ maxWidth: 420 }}>
          <label htmlFor="dataset-team">Visible to</label>
          <select
            id="dataset-team"
            className="select"
            value={teamId ?? ""}
            onChange={(e) => setTeamId(e.target.value || null)}
            data-testid="dataset-team"
            {...problemProps("teamId", problems.fields.teamId)}
          >
            <TeamOptions savedTeam={dataset?.team ?? null} />
          </select>
          {problems.fields.teamId?.length ? (
            <FieldProblems field="teamId" messages={problems.fields.teamId} />
          ) : (
            <span className="hint">
              {teamId
                ? "That team's members (and admins) see it; its operators change it."
                : "Every signed-in person sees it; only admins change a dataset everyone sees."}
            </span>
          )}
        </div>
        {isNew && (
          <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="label" style={{ marginBottom: 6 }}>
              Scoring
            </legend>
            <div className="card" style={{ boxShadow: "none" }}>
              <ScoringEditor
                draft={scoring}
                kinds={kinds.data}
                readOnly={false}
                problems={problems.scoring}
                compact
                onChange={setScoring}
              />
            </div>
            {kinds.isError && <FieldError message={<>Could not load the scorer kinds: {errorMessage(kinds.error)}</>} />}
          </fieldset>
        )}
        {count > 0 && (
          <ErrorBlock testId="dataset-dialog-error">
            <div>
              <strong>{count === 1 ? "1 problem" : `${count} problems`}; nothing was saved.</strong>
              {problems.other.length > 0 && (
                <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
                  {problems.other.map((m) => (
                    <li key={m}>{m}</li>
                  ))}
                </ul>
              )}
              {problems.other.length < count && <div className="small">Each is shown beside what it is about.</div>}
            </div>
          </ErrorBlock>
        )}
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to save · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()} data-testid="dataset-save">
          {busy && <span className="spinner" aria-hidden="true" />}
          {isNew ? "Create dataset" : "Save details"}
        </button>
      </div>
    </form>
  );
}
