"use client";
// Fork from here: a model turn's button and its dialog. A fork is a new run
// that starts after this step with the conversation, task list, notes and
// workspace exactly as they were; its goal, model and limits may change, and
// a message may tell the agent what to do differently.
import { useRouter } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock, FieldError, invalidProps } from "@/components/ui";
import { ForkIcon } from "@/components/icons";
import { errorMessage } from "@/lib/errors";
import { fieldErrors, issuesOf } from "@/lib/field-errors";
import { formatNumber, pluralize } from "@/lib/format";
import { useModifierLabel } from "@/lib/keyboard";
import { MAX_GOAL_CHARS, MAX_MESSAGE_CHARS } from "@/lib/limits";
import { trpc, type Run } from "@/lib/trpc";
import { LimitFields, ModelField, budgetText, checkLimits, submitOnModEnter } from "./steer-dialogs";

export interface ForkAccess {
  canOperate: boolean;
  operatorHint: string;
}

/**
 * The button on a model turn. `done`: every tool call of the step has its
 * result (or the run has gone on past it), so there is a checkpoint to fork from.
 */
export function ForkButton({ run, step, done, access }: { run: Run; step: number; done: boolean; access: ForkAccess }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const close = () => {
    setOpen(false);
    // The dialog unmounts: focus goes back to the button that opened it.
    requestAnimationFrame(() => button.current?.focus());
  };
  const disabled = !access.canOperate || !done;
  const title = !access.canOperate
    ? access.operatorHint
    : !done
      ? `Step ${step}'s tool calls have not all finished yet: it can be forked once they have`
      : `Start a new run after step ${step}, with the conversation and the workspace as they were then`;
  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn btn-sm fork-button"
        onClick={() => setOpen(true)}
        disabled={disabled}
        aria-disabled={disabled}
        title={title}
        aria-label={`Fork from step ${step}`}
        data-testid="fork-from-here"
        data-step={step}
      >
        <ForkIcon /> Fork from here
      </button>
      {/* A disabled button shows no tooltip on touch screens or to keyboards: say it once in text for assistive tech. */}
      {disabled && <span className="sr-only">{title}</span>}
      {/* Mounted only while open: a long run has a button on every turn, and one dialog at a time. */}
      {open && (
        <Dialog open onClose={close} labelledBy={titleId} testId="fork-dialog">
          <ForkForm titleId={titleId} run={run} step={step} onClose={close} />
        </Dialog>
      )}
    </>
  );
}

type ForkField = "goal" | "message" | "model" | "maxSteps" | "budgetUsd";

function ForkForm({ titleId, run, step, onClose }: { titleId: string; run: Run; step: number; onClose(): void }) {
  const mod = useModifierLabel();
  const router = useRouter();
  const utils = trpc.useUtils();
  const id = useId();
  const [goal, setGoal] = useState(run.goal);
  const [message, setMessage] = useState("");
  const [model, setModel] = useState(run.model);
  const [steps, setSteps] = useState(String(Math.max(run.maxSteps, step + 1)));
  const [budget, setBudget] = useState(budgetText(run.budgetUsd));
  const [errors, setErrors] = useState<Partial<Record<ForkField, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const fork = trpc.runs.fork.useMutation({
    onSuccess: (created) => {
      void utils.runs.lineage.invalidate({ id: run.id });
      void utils.runs.list.invalidate();
      router.push(`/runs/${encodeURIComponent(created.id)}`);
    },
    onError: (err) => {
      const found = fieldErrors<ForkField>(issuesOf(err), errorMessage(err), ["goal", "message", "model", "maxSteps", "budgetUsd"]);
      setErrors(found.fields);
      setError(found.other);
    },
  });
  const busy = fork.isPending || fork.isSuccess;

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy) return;
    setError(null);
    const found: Partial<Record<ForkField, string>> = {};
    const g = goal.trim();
    if (!g) found.goal = "Write the goal of the fork";
    else if (g.length > MAX_GOAL_CHARS) found.goal = `The goal is at most ${formatNumber(MAX_GOAL_CHARS)} characters`;
    const msg = message.trim();
    if (msg.length > MAX_MESSAGE_CHARS) found.message = `A message is at most ${formatNumber(MAX_MESSAGE_CHARS)} characters`;
    const m = model.trim();
    const checked = checkLimits(steps, budget, run, false);
    if (checked.errors.steps) found.maxSteps = checked.errors.steps;
    else if (checked.steps !== undefined && checked.steps <= step) {
      found.maxSteps = `The fork starts with ${pluralize(step, "step")} taken: raise the limit above ${formatNumber(step)}`;
    }
    if (checked.errors.budget) found.budgetUsd = checked.errors.budget;
    setErrors(found);
    if (Object.keys(found).length) return;
    fork.mutate({
      id: run.id,
      step,
      ...(g !== run.goal.trim() ? { goal: g } : {}),
      ...(msg ? { message: msg } : {}),
      ...(!run.scenarioGiven && m && m !== run.model ? { model: m } : {}),
      ...(checked.steps !== undefined && checked.steps !== run.maxSteps ? { maxSteps: checked.steps } : {}),
      ...(checked.budget !== null && checked.budget !== undefined && checked.budget !== run.budgetUsd ? { budgetUsd: checked.budget } : {}),
    });
  }

  return (
    <form className="dialog-form" onSubmit={submit} onKeyDown={submitOnModEnter(submit)} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id={titleId}>Fork from step {step}</h2>
          <p data-testid="fork-explain">
            A new run starts after step {step} with the conversation and the workspace exactly as they were. This run is not changed; the
            two are linked.
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-goal`}>Goal</label>
          <textarea
            id={`${id}-goal`}
            className="textarea"
            rows={3}
            value={goal}
            onChange={(e) => setGoal(e.target.value)}
            data-autofocus
            data-testid="fork-goal"
            {...invalidProps(`${id}-goal-error`, errors.goal)}
          />
          <FieldError id={`${id}-goal-error`} message={errors.goal} testId="fork-goal-error" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-message`}>
            Message to the agent <span className="muted">(optional)</span>
          </label>
          <textarea
            id={`${id}-message`}
            className="textarea"
            rows={3}
            value={message}
            placeholder="What should it do differently from here?"
            onChange={(e) => setMessage(e.target.value)}
            data-testid="fork-message"
            {...invalidProps(`${id}-message-error`, errors.message)}
          />
          <FieldError id={`${id}-message-error`} message={errors.message} testId="fork-message-error" />
          <span className="hint">The agent reads it before the fork&apos;s first model call.</span>
        </div>
        <ModelField
          prefix="fork"
          run={run}
          model={model}
          onModel={setModel}
          error={errors.model}
          id={`${id}-model`}
          scenarioNote="the fork plays on from the same scenario"
        />
        <LimitFields
          prefix="fork"
          steps={steps}
          budget={budget}
          onSteps={setSteps}
          onBudget={setBudget}
          errors={{ steps: errors.maxSteps, budget: errors.budgetUsd }}
          stepsHint={`Model calls in all, the ${pluralize(step, "step")} it starts with included.`}
          budgetHint={run.budgetUsd === null ? "Empty: no ceiling." : "The most the fork may spend."}
        />
        {error && (
          <ErrorBlock testId="fork-error">
            <span>
              <strong>Nothing was started.</strong> {error}
            </span>
          </ErrorBlock>
        )}
      </div>
      <DialogFooter
        onClose={onClose}
        busy={busy}
        label="Start fork"
        busyLabel="Starting…"
        testId="fork-submit"
        hint={
          <>
            <kbd>{mod}+Enter</kbd> to start · <kbd>Esc</kbd> to close
          </>
        }
      />
    </form>
  );
}
