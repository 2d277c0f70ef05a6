"use client";
// "Try it": runs the draft as it is now (not saved) on a goal. The run is
// recorded with the exact spec it used, as a draft version.
import { useState, type FormEvent } from "react";
import { ErrorBlock, FieldError } from "@/components/ui";
import type { AgentSpecFields, Problem } from "@/lib/agent-draft";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";

export function TryIt({
  spec,
  blocked,
  onStarted,
  onProblems,
}: {
  spec: AgentSpecFields;
  /** Why the draft cannot run as it is (its problems); null when it can. */
  blocked: string | null;
  onStarted(runId: string): void;
  onProblems(problems: Problem[]): void;
}) {
  const { canOperate } = useMe();
  const tryDraft = trpc.agents.tryDraft.useMutation();
  const [goal, setGoal] = useState("");
  const [goalError, setGoalError] = useState<string | null>(null);

  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (tryDraft.isPending || !canOperate || blocked) return;
    if (!goal.trim()) {
      setGoalError("Describe what the agent should achieve");
      return;
    }
    tryDraft.mutate(
      { spec, goal: goal.trim(), teamId: spec.teamId ?? undefined },
      {
        onSuccess: (run) => onStarted(run.id),
        onError: (err) => {
          const issues = issuesOf(err);
          if (issues?.length) onProblems(issues.map((i) => ({ field: i.path, message: i.message })));
        },
      },
    );
  }

  return (
    <section className="card" aria-labelledby="try-it-title" data-testid="try-it">
      <div className="card-header">
        <h2 id="try-it-title">Try it</h2>
        <span className="hint">Runs the draft as it is now, without saving it.</span>
      </div>
      <form className="card-body stack" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="try-goal">Goal</label>
          <textarea
            id="try-goal"
            className="textarea"
            rows={3}
            value={goal}
            onChange={(e) => {
              setGoal(e.target.value);
              setGoalError(null);
            }}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) submit();
            }}
            placeholder="What should it achieve? e.g. Write a FizzBuzz program and run its tests"
            aria-invalid={goalError ? true : undefined}
            data-testid="try-goal"
          />
          <FieldError message={goalError} />
        </div>
        {tryDraft.error && (
          <ErrorBlock
            message={
              issuesOf(tryDraft.error)?.length ? "The draft has problems: each is shown with its field." : errorMessage(tryDraft.error)
            }
            testId="try-error"
          />
        )}
        <div className="row">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={tryDraft.isPending || !canOperate || !!blocked}
            title={!canOperate ? `${OPERATOR_HINT}; you are a viewer` : (blocked ?? "Run the draft (Ctrl+Enter)")}
            data-testid="try-run"
          >
            {tryDraft.isPending && <span className="spinner" aria-hidden="true" />}
            {tryDraft.isPending ? "Starting…" : "Run"}
          </button>
          {blocked && <span className="hint">{blocked}</span>}
        </div>
      </form>
    </section>
  );
}
