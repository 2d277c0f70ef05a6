"use client";
// The default cost ceiling of every run: a run stops before a model call that
// would take its spend over it (its own ceiling, if lower, applies too).
import { useEffect, useState, type FormEvent } from "react";
import { FieldError } from "@/components/ui";
import { budgetText } from "@/lib/budget-draft";
import { formatCost } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useBudgetSave } from "./use-budget-save";

export function RunBudgetForm({ current }: { current: number | null }) {
  const setRun = trpc.budgets.setRun.useMutation();
  const { save, error, busy, savedAt, clear } = useBudgetSave((budgetUsd) => setRun.mutateAsync({ budgetUsd }));
  const [text, setText] = useState(budgetText(current));
  useEffect(() => setText(budgetText(current)), [current]);
  const dirty = text.trim() !== budgetText(current);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void save(text);
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit} noValidate data-testid="run-budget-form">
      <h2>Default cost ceiling per run</h2>
      <p className="muted small">
        Every run stops with a clear reason before a model call that would take its cost over this amount. A run launched with its own
        ceiling is held to both. {current === null ? "No default ceiling is set." : `Now ${formatCost(current)} per run.`}
      </p>
      <div className="field" style={{ maxWidth: 260 }}>
        <label htmlFor="run-budget">Ceiling (USD)</label>
        <input
          id="run-budget"
          className="input"
          inputMode="decimal"
          placeholder="No ceiling"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            clear();
          }}
          aria-invalid={error ? true : undefined}
          data-testid="run-budget-input"
        />
        {error ? (
          <FieldError message={error} testId="run-budget-error" />
        ) : (
          <span className="hint">Leave it empty for no default ceiling.</span>
        )}
      </div>
      <div className="row" style={{ gap: 8 }}>
        <button type="submit" className="btn btn-primary" disabled={busy || !dirty} data-testid="run-budget-save">
          {busy ? "Saving…" : "Save"}
        </button>
        {savedAt && !dirty && (
          <span className="muted small" role="status" data-testid="run-budget-saved">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
