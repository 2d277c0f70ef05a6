"use client";
// Retry (a failed or canceled run goes again from its last good checkpoint,
// with a higher step limit or cost ceiling) and Re-run (a new run like this
// one, its goal, model and limits editable): the run header's buttons and
// their dialogs.
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent, type KeyboardEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock, Field, FieldError, invalidProps } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { fieldErrors, issuesOf } from "@/lib/field-errors";
import { formatNumber, formatCost, pluralize } from "@/lib/format";
import { useModifierLabel } from "@/lib/keyboard";
import { DEFAULT_CALL_CAP, MAX_BUDGET_USD, MAX_GOAL_CHARS, MAX_STEPS } from "@/lib/limits";
import { trpc, type Run } from "@/lib/trpc";

type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/** A step limit as typed: a whole number from 1 to 500. */
export function parseSteps(raw: string): Parsed<number> {
  const s = raw.trim();
  if (!s) return { error: "Enter a step limit" };
  if (/^-/.test(s)) return { error: "The step limit cannot be negative" };
  if (!/^\d+$/.test(s)) return { error: "The step limit is a whole number of model calls, like 20" };
  const n = Number(s);
  if (n < 1) return { error: "The step limit is at least 1" };
  if (n > MAX_STEPS) return { error: `The step limit is at most ${MAX_STEPS}` };
  return { value: n };
}

/** A cost ceiling as typed, in USD ("$" allowed); empty is null. */
export function parseBudget(raw: string): Parsed<number | null> {
  const s = raw.trim().replace(/^\$\s*/, "");
  if (!s) return { value: null };
  if (/^-/.test(s)) return { error: "The cost ceiling cannot be negative" };
  if (!/^(\d+\.?\d*|\.\d+)$/.test(s)) return { error: "The cost ceiling is an amount in US dollars, like 5 or 2.50" };
  const n = Number(s);
  if (n <= 0) return { error: "The cost ceiling must be more than $0" };
  if (n > MAX_BUDGET_USD) return { error: `The cost ceiling is at most $${formatNumber(MAX_BUDGET_USD)}` };
  return { value: n };
}

/** A step limit worth suggesting to a run that used all of its own. */
function suggestedSteps(run: Run): number {
  const more = Math.max(run.stepCount + 10, run.maxSteps * 2);
  return Math.min(MAX_STEPS, run.stepCount < DEFAULT_CALL_CAP ? Math.min(DEFAULT_CALL_CAP, more) : more);
}

export function budgetText(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : String(v);
}

/** Checks the limits together; the messages go under their fields. */
export function checkLimits(stepsRaw: string, budgetRaw: string, run: Run, mustExceedSteps: boolean) {
  const errors: { steps?: string; budget?: string } = {};
  const steps = parseSteps(stepsRaw);
  const budget = parseBudget(budgetRaw);
  if (steps.error !== undefined) errors.steps = steps.error;
  if (budget.error !== undefined) errors.budget = budget.error;
  if (steps.value !== undefined && mustExceedSteps && steps.value <= run.stepCount) {
    errors.steps = `The run has made ${pluralize(run.stepCount, "model call")}: raise the limit above ${formatNumber(run.stepCount)}`;
  }
  // The server keeps a run's ceiling when none is sent: it can be raised, not removed.
  if (budget.value === null && run.budgetUsd !== null && !errors.budget) {
    errors.budget = `This run's ceiling is ${formatCost(run.budgetUsd)}: it can be raised but not removed`;
  }
  const budgetAfter = budget.value ?? run.budgetUsd;
  if (steps.value !== undefined && steps.value > DEFAULT_CALL_CAP && budgetAfter === null && !errors.steps) {
    errors.steps = `A step limit above ${DEFAULT_CALL_CAP} needs a cost ceiling: set one below`;
  }
  return { errors, steps: steps.value, budget: budget.value };
}

export function LimitFields({
  prefix,
  steps,
  budget,
  onSteps,
  onBudget,
  errors,
  stepsHint,
  budgetHint,
  autoFocusSteps = false,
}: {
  prefix: string;
  steps: string;
  budget: string;
  onSteps(v: string): void;
  onBudget(v: string): void;
  errors: { steps?: string; budget?: string };
  stepsHint: string;
  budgetHint: string;
  autoFocusSteps?: boolean;
}) {
  const id = useId();
  return (
    <div className="field-row">
      <Field label="Step limit" id={`${id}-steps`} error={errors.steps} errorTestId={`${prefix}-max-steps-error`} hint={stepsHint} keepHint>
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="numeric"
            autoComplete="off"
            value={steps}
            onChange={(e) => onSteps(e.target.value)}
            data-testid={`${prefix}-max-steps`}
            {...(autoFocusSteps ? { "data-autofocus": true } : {})}
          />
        )}
      </Field>
      <Field
        label="Cost ceiling (USD)"
        id={`${id}-budget`}
        error={errors.budget}
        errorTestId={`${prefix}-budget-error`}
        hint={budgetHint}
        keepHint
      >
        {(control) => (
          <input
            {...control}
            className="input"
            inputMode="decimal"
            autoComplete="off"
            placeholder="none"
            value={budget}
            onChange={(e) => onBudget(e.target.value)}
            data-testid={`${prefix}-budget`}
          />
        )}
      </Field>
    </div>
  );
}

export function submitOnModEnter(submit: () => void) {
  return (e: KeyboardEvent) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      submit();
    }
  };
}

// ---------- Retry ----------

export function RetryButton({ run }: { run: Run }) {
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const [open, setOpen] = useState(false);
  const titleId = useId();
  const trial = !!run.experimentId;
  return (
    <>
      <button
        type="button"
        className="btn"
        onClick={() => setOpen(true)}
        disabled={!canOperate || trial}
        title={
          !canOperate
            ? operatorHint
            : trial
              ? "A trial of an experiment cannot be retried: re-run the experiment instead"
              : "Go again from the last good checkpoint, with a higher step limit or cost ceiling if needed"
        }
        data-testid="retry-run"
      >
        ↻ Retry
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} size="sm" labelledBy={titleId} testId="retry-dialog">
        <RetryForm titleId={titleId} run={run} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function RetryForm({ titleId, run, onClose }: { titleId: string; run: Run; onClose(): void }) {
  const mod = useModifierLabel();
  const utils = trpc.useUtils();
  const usedAll = run.stepCount >= run.maxSteps;
  const suggestion = suggestedSteps(run);
  const [steps, setSteps] = useState(String(run.maxSteps));
  const [budget, setBudget] = useState(budgetText(run.budgetUsd));
  const [errors, setErrors] = useState<{ steps?: string; budget?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const retry = trpc.runs.retry.useMutation({
    onSuccess: () => {
      void utils.runs.get.invalidate({ id: run.id });
      onClose();
    },
    onError: (err) => {
      const found = fieldErrors(issuesOf(err), errorMessage(err), ["maxSteps", "budgetUsd"]);
      setErrors({ steps: found.fields.maxSteps, budget: found.fields.budgetUsd });
      setError(found.other);
    },
    onSettled: () => utils.runs.get.invalidate({ id: run.id }),
  });

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (retry.isPending) return;
    setError(null);
    const checked = checkLimits(steps, budget, run, true);
    setErrors(checked.errors);
    if (checked.errors.steps || checked.errors.budget) return;
    retry.mutate({
      id: run.id,
      ...(checked.steps !== undefined && checked.steps !== run.maxSteps ? { maxSteps: checked.steps } : {}),
      ...(checked.budget !== null && checked.budget !== undefined && checked.budget !== run.budgetUsd ? { budgetUsd: checked.budget } : {}),
    });
  }

  return (
    <form className="dialog-form" onSubmit={submit} onKeyDown={submitOnModEnter(submit)} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>Retry this run</h2>
          <p>It goes again from its last good checkpoint, in the same workspace. Nothing it did is undone.</p>
        </div>
      </div>
      <div className="dialog-body">
        {usedAll ? (
          <div className="alert alert-warn small" data-testid="retry-steps-used">
            <span>
              The run made {run.maxSteps === 1 ? "its only model call" : `all ${formatNumber(run.maxSteps)} of its model calls`}, so it
              stops again at once unless the step limit is raised above {formatNumber(run.stepCount)}.{" "}
              <button type="button" className="btn-link" onClick={() => setSteps(String(suggestion))} data-testid="retry-suggest-steps">
                Use {suggestion}
              </button>
            </span>
          </div>
        ) : (
          <p className="small muted">
            It made {formatNumber(run.stepCount)} of its {pluralize(run.maxSteps, "model call")}
            {run.budgetUsd !== null ? ` and spent ${formatCost(run.costUsd)} of its ${formatCost(run.budgetUsd)} ceiling` : ""}.
          </p>
        )}
        <LimitFields
          prefix="retry"
          steps={steps}
          budget={budget}
          onSteps={setSteps}
          onBudget={setBudget}
          errors={errors}
          autoFocusSteps
          stepsHint={`Model calls in all, the ones made so far included. Above ${DEFAULT_CALL_CAP} needs a cost ceiling.`}
          budgetHint={run.budgetUsd === null ? "Empty: no ceiling for this run." : "Raise it if the run stopped at its ceiling."}
        />
        {error && (
          <ErrorBlock testId="retry-error">
            <span>
              <strong>Not retried.</strong> {error}
            </span>
          </ErrorBlock>
        )}
      </div>
      <DialogFooter
        onClose={onClose}
        busy={retry.isPending}
        label="Retry"
        busyLabel="Retrying…"
        testId="retry-submit"
        hint={
          <>
            <kbd>{mod}+Enter</kbd> to retry · <kbd>Esc</kbd> to close
          </>
        }
      />
    </form>
  );
}

// ---------- Re-run ----------

export function RerunButton({ run }: { run: Run }) {
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
        title={canOperate ? "Start a new run like this one; its goal, model and limits can be changed" : operatorHint}
        data-testid="rerun-run"
      >
        Re-run
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} labelledBy={titleId} testId="rerun-dialog">
        <RerunForm titleId={titleId} run={run} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

type RerunField = "goal" | "model" | "maxSteps" | "budgetUsd";

function RerunForm({ titleId, run, onClose }: { titleId: string; run: Run; onClose(): void }) {
  const mod = useModifierLabel();
  const router = useRouter();
  const utils = trpc.useUtils();
  const id = useId();
  const [goal, setGoal] = useState(run.goal);
  const [model, setModel] = useState(run.model);
  const [steps, setSteps] = useState(String(run.maxSteps));
  const [budget, setBudget] = useState(budgetText(run.budgetUsd));
  const [errors, setErrors] = useState<Partial<Record<RerunField, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const rerun = trpc.runs.rerun.useMutation({
    onSuccess: (created) => {
      void utils.runs.lineage.invalidate({ id: run.id });
      void utils.runs.list.invalidate();
      router.push(`/runs/${encodeURIComponent(created.id)}`);
    },
    onError: (err) => {
      const found = fieldErrors<RerunField>(issuesOf(err), errorMessage(err), ["goal", "model", "maxSteps", "budgetUsd"]);
      setErrors(found.fields);
      setError(found.other);
    },
  });
  const busy = rerun.isPending || rerun.isSuccess;

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy) return;
    setError(null);
    const found: Partial<Record<RerunField, string>> = {};
    const g = goal.trim();
    if (!g) found.goal = "Write the goal of the new run";
    else if (g.length > MAX_GOAL_CHARS) found.goal = `The goal is at most ${formatNumber(MAX_GOAL_CHARS)} characters`;
    const m = model.trim();
    const checked = checkLimits(steps, budget, run, false);
    if (checked.errors.steps) found.maxSteps = checked.errors.steps;
    if (checked.errors.budget) found.budgetUsd = checked.errors.budget;
    setErrors(found);
    if (Object.keys(found).length) return;
    rerun.mutate({
      id: run.id,
      ...(g !== run.goal.trim() ? { goal: g } : {}),
      ...(!run.scenarioGiven && m && m !== run.model ? { model: m } : {}),
      ...(checked.steps !== undefined && checked.steps !== run.maxSteps ? { maxSteps: checked.steps } : {}),
      ...(checked.budget !== null && checked.budget !== undefined && checked.budget !== run.budgetUsd ? { budgetUsd: checked.budget } : {}),
    });
  }

  return (
    <form className="dialog-form" onSubmit={submit} onKeyDown={submitOnModEnter(submit)} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>Re-run</h2>
          <p>A new run of {run.agentName} (the same version) in a fresh workspace, linked to this one. Change what should differ.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-goal`}>Goal</label>
          <textarea
            id={`${id}-goal`}
            className="textarea"
            rows={4}
            value={goal}
            onChange={(e) => setGoal(e.target.value)}
            data-autofocus
            data-testid="rerun-goal"
            {...invalidProps(`${id}-goal-error`, errors.goal)}
          />
          <FieldError id={`${id}-goal-error`} message={errors.goal} testId="rerun-goal-error" />
        </div>
        <ModelField
          prefix="rerun"
          run={run}
          model={model}
          onModel={setModel}
          error={errors.model}
          id={`${id}-model`}
          scenarioNote="the re-run plays the same scenario"
        />
        <LimitFields
          prefix="rerun"
          steps={steps}
          budget={budget}
          onSteps={setSteps}
          onBudget={setBudget}
          errors={{ steps: errors.maxSteps, budget: errors.budgetUsd }}
          stepsHint={`The most model calls the new run may make. Above ${DEFAULT_CALL_CAP} needs a cost ceiling.`}
          budgetHint={run.budgetUsd === null ? "Empty: no ceiling." : "The most the new run may spend."}
        />
        {error && (
          <ErrorBlock testId="rerun-error">
            <span>
              <strong>Nothing was started.</strong> {error}
            </span>
          </ErrorBlock>
        )}
      </div>
      <DialogFooter
        onClose={onClose}
        busy={busy}
        label="Start re-run"
        busyLabel="Starting…"
        testId="rerun-submit"
        hint={
          <>
            <kbd>{mod}+Enter</kbd> to start · <kbd>Esc</kbd> to close
          </>
        }
      />
    </form>
  );
}

/** The model of a run started like another (Re-run, Fork): a configured model or "auto"; a scenario run keeps its scenario. */
export function ModelField({
  prefix,
  run,
  model,
  onModel,
  error,
  id,
  scenarioNote,
}: {
  prefix: string;
  run: Run;
  model: string;
  onModel(v: string): void;
  error?: string;
  id: string;
  scenarioNote: string;
}) {
  if (run.scenarioGiven) {
    return (
      <p className="small muted" data-testid={`${prefix}-scenario-note`}>
        This run played a scenario given with it on the scripted model; {scenarioNote}.
      </p>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>Model</label>
      <input
        id={id}
        className="input mono"
        value={model}
        onChange={(e) => onModel(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        maxLength={200}
        data-testid={`${prefix}-model`}
        {...invalidProps(`${id}-error`, error)}
      />
      <FieldError id={`${id}-error`} message={error} testId={`${prefix}-model-error`} />
      <span className="hint">
        &lt;provider&gt;/&lt;model id&gt;, or <code>auto</code> to let the routing rules choose. Empty keeps {run.model}.
      </span>
    </div>
  );
}
