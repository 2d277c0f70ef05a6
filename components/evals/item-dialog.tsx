"use client";
// Add or edit an item: its goal, the agent it was recorded with, a scenario
// for the scripted model and the expected outcome (JSON in Monaco). An edit
// saves the item's next version; Ctrl/Cmd+Enter saves from anywhere in it.
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { FieldProblems, problemProps } from "@/components/agents/field-problems";
import { Dialog, ErrorBlock } from "@/components/ui";
import { EMPTY_ITEM_DRAFT, itemDraftOf, itemOf, itemProblemsOf, type ItemDraft, type ItemField } from "@/lib/dataset-draft";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { useModifierLabel } from "@/lib/keyboard";
import { trpc } from "@/lib/trpc";
import { JsonField } from "./json-field";
import type { DatasetView, ItemView } from "./types";

type Problems = { fields: Partial<Record<ItemField, string[]>>; other: string[] };
const NONE: Problems = { fields: {}, other: [] };

export function ItemDialog({
  open,
  dataset,
  item,
  onClose,
  onSaved,
}: {
  open: boolean;
  dataset: DatasetView;
  /** The item to edit; null adds one. */ item: ItemView | null;
  onClose(): void;
  onSaved(item: ItemView): void;
}) {
  const titleId = useId();
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [dirty, setDirty] = useState(false);
  function close(force = false) {
    // Esc inside Monaco reaches the dialog too: unsaved edits ask once more before they are dropped.
    if (dirty && !force && !confirmDiscard) {
      setConfirmDiscard(true);
      return;
    }
    setConfirmDiscard(false);
    setDirty(false);
    onClose();
  }
  return (
    <Dialog open={open} onClose={() => close()} labelledBy={titleId} testId="item-dialog">
      <ItemForm
        key={item ? `${item.key}@${item.version}` : "new"}
        titleId={titleId}
        dataset={dataset}
        item={item}
        confirmDiscard={confirmDiscard}
        onDirty={(d) => {
          setDirty(d);
          setConfirmDiscard(false);
        }}
        onClose={close}
        onSaved={onSaved}
      />
    </Dialog>
  );
}

function ItemForm({
  titleId,
  dataset,
  item,
  confirmDiscard,
  onDirty,
  onClose,
  onSaved,
}: {
  titleId: string;
  dataset: DatasetView;
  item: ItemView | null;
  confirmDiscard: boolean;
  onDirty(dirty: boolean): void;
  onClose(force?: boolean): void;
  onSaved(item: ItemView): void;
}) {
  const mod = useModifierLabel();
  const agents = trpc.agents.list.useQuery({}, { staleTime: 60_000 });
  const add = trpc.evals.addItem.useMutation();
  const edit = trpc.evals.editItem.useMutation();
  const [start] = useState<ItemDraft>(() => (item ? itemDraftOf(item) : EMPTY_ITEM_DRAFT));
  const [draft, setDraft] = useState<ItemDraft>(start);
  const [problems, setProblems] = useState<Problems>(NONE);
  const [unchanged, setUnchanged] = useState(false);
  const busy = add.isPending || edit.isPending;
  const agentNames = (agents.data ?? []).filter((a) => !a.archived).map((a) => a.name);
  if (draft.agent && !agentNames.includes(draft.agent)) agentNames.push(draft.agent);

  function change(patch: Partial<ItemDraft>) {
    setDraft((d) => ({ ...d, ...patch }));
    setUnchanged(false);
  }
  const dirty = JSON.stringify(draft) !== JSON.stringify(start);
  const dirtyRef = useRef(onDirty);
  dirtyRef.current = onDirty;
  useEffect(() => dirtyRef.current(dirty), [dirty, draft]);

  function saved(result: ItemView) {
    onSaved(result);
    onClose(true);
  }

  function failed(err: unknown) {
    setProblems(itemProblemsOf(issuesOf(err), errorMessage(err)));
  }

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy) return;
    const checked = itemOf(draft);
    if (!checked.item) {
      setProblems({ fields: checked.problems, other: [] });
      return;
    }
    setProblems(NONE);
    if (!item) {
      add.mutate({ datasetId: dataset.id, ...checked.item }, { onSuccess: saved, onError: failed });
      return;
    }
    const { key: _key, ...changes } = checked.item;
    edit.mutate(
      { datasetId: dataset.id, key: item.key, ...changes },
      {
        onSuccess(result) {
          // An edit equal to the latest version saves nothing: say so rather than close as if saved.
          if (result.version === item.version) setUnchanged(true);
          else saved(result);
        },
        onError: failed,
      },
    );
  }

  function onKeyDown(e: KeyboardEvent) {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      submit();
    }
  }

  const p = problems.fields;
  const count = Object.values(p).reduce((n, l) => n + (l?.length ?? 0), 0) + problems.other.length;

  return (
    <form className="dialog-form" onSubmit={submit} onKeyDown={onKeyDown} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>{item ? `Edit ${item.key}` : `Add an item to ${dataset.name}`}</h2>
          <p>{item ? `Saving makes version ${item.version + 1}; version ${item.version} is kept.` : "It is saved as version 1."}</p>
        </div>
      </div>
      <div className="dialog-body">
        {!item && (
          <div className="field">
            <label htmlFor="item-key">Key (optional)</label>
            <input
              id="item-key"
              className="input mono"
              value={draft.key}
              onChange={(e) => change({ key: e.target.value })}
              placeholder="item-N when left empty"
              autoComplete="off"
              spellCheck={false}
              maxLength={64}
              data-testid="item-key"
              {...problemProps("key", p.key)}
            />
            <FieldProblems field="key" messages={p.key} />
          </div>
        )}
        <div className="field">
          <label htmlFor="item-goal">Goal</label>
          <textarea
            id="item-goal"
            className="textarea"
            rows={3}
            value={draft.goal}
            onChange={(e) => change({ goal: e.target.value })}
            placeholder="What the agent is asked to do"
            data-autofocus
            data-testid="item-goal"
            {...problemProps("goal", p.goal)}
          />
          <FieldProblems field="goal" messages={p.goal} />
        </div>
        <div className="field" style={{ maxWidth: 360 }}>
          <label htmlFor="item-agent">Agent</label>
          <select
            id="item-agent"
            className="select mono"
            value={draft.agent}
            onChange={(e) => change({ agent: e.target.value })}
            data-testid="item-agent"
            {...problemProps("agent", p.agent)}
          >
            <option value="">Any (the experiment picks)</option>
            {agentNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
          <FieldProblems field="agent" messages={p.agent} />
        </div>
        <JsonField
          field="expected"
          label="Expected outcome"
          hint='e.g. { "outcome": "succeeded", "text": "…", "scorers": [{ "kind": "file_exists", "path": "README.md" }] }'
          value={start.expected}
          tall
          problems={p.expected}
          testId="item-expected-editor"
          onChange={(expected) => change({ expected })}
          onSubmit={() => submit()}
        />
        <JsonField
          field="scenario"
          label="Scenario (optional)"
          hint="The scripted model's turns, to replay without a provider key; empty for none."
          value={start.scenario}
          problems={p.scenario}
          testId="item-scenario-editor"
          onChange={(scenario) => change({ scenario })}
          onSubmit={() => submit()}
        />
        {unchanged && (
          <div className="alert alert-info" role="status" data-testid="item-unchanged">
            Nothing changed, so no new version was saved.
          </div>
        )}
        {count > 0 && (
          <ErrorBlock testId="item-error">
            <div>
              <strong>{count === 1 ? "1 problem" : `${count} problems`}; nothing was saved.</strong>
              {problems.other.length > 0 ? (
                <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
                  {problems.other.map((m) => (
                    <li key={m}>{m}</li>
                  ))}
                </ul>
              ) : (
                <div className="small">Each is shown beside its field.</div>
              )}
            </div>
          </ErrorBlock>
        )}
        {confirmDiscard && (
          <div className="alert alert-warn" role="alert" data-testid="item-discard">
            <span style={{ flex: 1 }}>You have unsaved changes. Press Esc again or Discard to close without saving.</span>
            <button type="button" className="btn btn-sm btn-danger" onClick={() => onClose(true)}>
              Discard
            </button>
          </div>
        )}
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>{mod}+Enter</kbd> to save · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={() => onClose()}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || !draft.goal.trim()} data-testid="item-save">
          {busy && <span className="spinner" aria-hidden="true" />}
          {item ? `Save version ${item.version + 1}` : "Add item"}
        </button>
      </div>
    </form>
  );
}
