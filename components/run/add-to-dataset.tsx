"use client";
// Add to dataset (a finished run's page): the run becomes a dataset item with
// its goal, agent and a scenario that replays it; the person picks a dataset
// they may change (or names a new one), an optional key, and edits the
// expected outcome the server prefilled from how the run ended.
import Link from "next/link";
import { useId, useMemo, useState, type FormEvent, type KeyboardEvent } from "react";
import { FieldProblems, problemProps } from "@/components/agents/field-problems";
import { TeamOptions } from "@/components/agents/team-options";
import { Dialog, ErrorBlock, FieldError, Skeleton } from "@/components/ui";
import { JsonField } from "@/components/evals/json-field";
import type { DatasetView } from "@/components/evals/types";
import { launchTeams, roleInTeam, useMe, useRoleIn } from "@/lib/access";
import { datasetProblemsOf, datasetReadOnlyReason, itemProblemsOf, scenarioLabel } from "@/lib/dataset-draft";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { useModifierLabel } from "@/lib/keyboard";
import { trpc, type Run } from "@/lib/trpc";

const NEW = "__new__";
/** A new dataset made from here is scored by how its runs end until its scoring is changed. */
const DEFAULT_SCORING = { scorers: [{ kind: "outcome", required: true }], threshold: 1 };

export function AddToDatasetButton({ run }: { run: Run }) {
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  return (
    <>
      <button
        type="button"
        className="btn"
        onClick={() => setOpen(true)}
        disabled={!canOperate}
        title={canOperate ? "Keep this run's goal and outcome as an item of an evals dataset" : operatorHint}
        data-testid="add-to-dataset"
      >
        Add to dataset
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} labelledBy={titleId} testId="add-to-dataset-dialog">
        <AddToDatasetForm titleId={titleId} run={run} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

type Added = { datasetId: string; datasetName: string; key: string; version: number };

function AddToDatasetForm({ titleId, run, onClose }: { titleId: string; run: Run; onClose(): void }) {
  const { me } = useMe();
  const mod = useModifierLabel();
  const utils = trpc.useUtils();
  const datasets = trpc.evals.datasets.list.useQuery(undefined, { staleTime: 30_000 });
  const preview = trpc.evals.previewFromRun.useQuery({ runId: run.id }, { refetchOnWindowFocus: false, staleTime: Infinity });
  const create = trpc.evals.createDataset.useMutation();
  const addFromRun = trpc.evals.addFromRun.useMutation();
  // A dataset made here is offered until the list has caught up with it.
  const [created, setCreated] = useState<DatasetView | null>(null);
  const editable = useMemo(() => {
    const mine = (datasets.data ?? []).filter((d) => datasetReadOnlyReason(d, roleInTeam(me, d.teamId)) === null);
    return created && !mine.some((d) => d.id === created.id) ? [...mine, created] : mine;
  }, [datasets.data, me, created]);
  const [choice, setChoice] = useState<string | null>(null);
  const datasetId = choice ?? editable[0]?.id ?? NEW;
  const [newName, setNewName] = useState("");
  const [newTeam, setNewTeam] = useState<string | null>(() =>
    me?.role === "admin" ? null : (launchTeams(me)[0]?.id ?? run.teamId ?? null),
  );
  const [key, setKey] = useState("");
  const [expected, setExpected] = useState<string | null>(null);
  const [problems, setProblems] = useState<{ fields: Record<string, string[]>; other: string[] }>({ fields: {}, other: [] });
  const [added, setAdded] = useState<Added | null>(null);
  const busy = create.isPending || addFromRun.isPending;
  const prefill = preview.data ? JSON.stringify(preview.data.expected, null, 2) : "";

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy || !preview.data) return;
    setProblems({ fields: {}, other: [] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(expected ?? prefill);
    } catch (err) {
      setProblems({ fields: { expected: [`the expected outcome is not valid JSON (${(err as Error).message})`] }, other: [] });
      return;
    }
    let target = editable.find((d) => d.id === datasetId) ?? null;
    if (datasetId === NEW) {
      try {
        target = await create.mutateAsync({
          name: newName.trim(),
          description: `Runs kept from the run page, starting with “${run.goal.slice(0, 80)}”`,
          teamId: newTeam,
          scoring: DEFAULT_SCORING,
        });
      } catch (err) {
        const found = datasetProblemsOf(issuesOf(err), errorMessage(err), ["name", "teamId"]);
        setProblems({ fields: { newName: found.fields.name ?? [], newTeam: found.fields.teamId ?? [] }, other: found.other });
        return;
      }
      void utils.evals.datasets.list.invalidate();
      // If adding fails now, a second try adds to the dataset just made rather than making another.
      setCreated(target);
      setChoice(target.id);
    }
    if (!target) return;
    try {
      const item = await addFromRun.mutateAsync({
        datasetId: target.id,
        runId: run.id,
        ...(key.trim() ? { key: key.trim() } : {}),
        expected: parsed,
      });
      void utils.evals.items.invalidate({ datasetId: target.id });
      void utils.evals.datasets.invalidate();
      setAdded({ datasetId: target.id, datasetName: target.name, key: item.key, version: item.version });
    } catch (err) {
      const found = itemProblemsOf(issuesOf(err), errorMessage(err));
      setProblems({ fields: found.fields as Record<string, string[]>, other: found.other });
    }
  }

  function onKeyDown(e: KeyboardEvent) {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      void submit();
    }
  }

  if (added) {
    const href = `/evals/datasets/${encodeURIComponent(added.datasetId)}`;
    return (
      <div className="dialog-form">
        <div className="dialog-header">
          <h2 id={titleId}>Added to {added.datasetName}</h2>
        </div>
        <div className="dialog-body">
          <div className="alert alert-success" role="status" data-testid="add-to-dataset-done">
            <span>
              This run is item <strong className="mono">{added.key}</strong> (version {added.version}) of{" "}
              <strong className="mono">{added.datasetName}</strong>. Open the dataset to edit it or its scoring.
            </span>
          </div>
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
          <Link href={href} className="btn btn-primary" data-testid="add-to-dataset-open" autoFocus>
            Open {added.datasetName}
          </Link>
        </div>
      </div>
    );
  }

  const p = problems.fields;
  return (
    <form className="dialog-form" onSubmit={(e) => void submit(e)} onKeyDown={onKeyDown} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>Add this run to a dataset</h2>
          <p>Its goal, its agent and a scenario that replays it become an item; check the expected outcome before adding.</p>
        </div>
      </div>
      <div className="dialog-body">
        {datasets.isLoading ? (
          <Skeleton height={34} />
        ) : (
          <div className="field">
            <label htmlFor="add-dataset">Dataset</label>
            <select
              id="add-dataset"
              className="select"
              value={datasetId}
              onChange={(e) => setChoice(e.target.value)}
              data-autofocus
              data-testid="add-dataset-select"
            >
              {editable.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} · {d.team ? `team ${d.team.name}` : "everyone"} · {d.itemCount} items
                </option>
              ))}
              <option value={NEW}>New dataset…</option>
            </select>
            {datasets.isError ? (
              <FieldError message={<>Could not load the datasets: {errorMessage(datasets.error)}</>} />
            ) : (
              editable.length === 0 && <span className="hint">There is no dataset you may change yet: name a new one.</span>
            )}
          </div>
        )}
        {datasetId === NEW && (
          <div className="row" style={{ alignItems: "flex-start", flexWrap: "wrap", gap: 12 }}>
            <div className="field" style={{ flex: 1, minWidth: 200 }}>
              <label htmlFor="add-new-name">Name of the new dataset</label>
              <input
                id="add-new-name"
                className="input mono"
                value={newName}
                onChange={(e) => setNewName(e.target.value)}
                placeholder="e.g. fizzbuzz-runs"
                autoComplete="off"
                spellCheck={false}
                maxLength={64}
                data-testid="add-new-dataset-name"
                {...problemProps("newName", p.newName)}
              />
              <FieldProblems field="newName" messages={p.newName} />
            </div>
            <div className="field" style={{ minWidth: 180 }}>
              <label htmlFor="add-new-team">Visible to</label>
              <select
                id="add-new-team"
                className="select"
                value={newTeam ?? ""}
                onChange={(e) => setNewTeam(e.target.value || null)}
                data-testid="add-new-dataset-team"
                {...problemProps("newTeam", p.newTeam)}
              >
                <TeamOptions />
              </select>
              <FieldProblems field="newTeam" messages={p.newTeam} />
            </div>
            <span className="hint" style={{ flexBasis: "100%" }}>
              It is scored by the run&apos;s outcome (required) until you change its scoring on its page.
            </span>
          </div>
        )}
        <div className="field" style={{ maxWidth: 360 }}>
          <label htmlFor="add-key">Key (optional)</label>
          <input
            id="add-key"
            className="input mono"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="item-N when left empty"
            autoComplete="off"
            spellCheck={false}
            maxLength={64}
            data-testid="add-key"
            {...problemProps("key", p.key)}
          />
          <FieldProblems field="key" messages={p.key} />
        </div>
        {preview.isLoading ? (
          <Skeleton height={200} />
        ) : preview.isError || !preview.data ? (
          <ErrorBlock prefix="Could not prepare the item" error={preview.error} />
        ) : (
          <>
            <p className="small muted" data-testid="add-preview">
              Agent <span className="mono">{preview.data.agent}</span> · scenario {scenarioLabel(preview.data.scenarioTurns)}
            </p>
            <JsonField
              field="expected"
              label="Expected outcome"
              hint="Prefilled from how the run ended; add notes or scorers."
              value={prefill}
              tall
              problems={p.expected}
              testId="add-expected-editor"
              onChange={setExpected}
              onSubmit={() => void submit()}
            />
          </>
        )}
        {(problems.other.length > 0 || Object.values(p).some((l) => l.length)) && (
          <ErrorBlock testId="add-to-dataset-error">
            <div>
              <strong>Nothing was added.</strong>
              {problems.other.length > 0 ? (
                <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
                  {problems.other.map((m) => (
                    <li key={m}>{m}</li>
                  ))}
                </ul>
              ) : (
                <div className="small">Each problem is shown beside its field.</div>
              )}
            </div>
          </ErrorBlock>
        )}
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>{mod}+Enter</kbd> to add · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={busy || !preview.data || (datasetId === NEW && !newName.trim())}
          data-testid="add-to-dataset-submit"
        >
          {busy && <span className="spinner" aria-hidden="true" />}
          Add to dataset
        </button>
      </div>
    </form>
  );
}
