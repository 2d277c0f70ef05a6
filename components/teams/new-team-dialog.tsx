"use client";
// "New team" (admins): a name, checked here first and then by the server
// (unique regardless of case).
import { useId, useState, type FormEvent } from "react";
import { Dialog, FieldError } from "@/components/ui";
import { errorsOf } from "@/lib/field-errors";
import { teamNameProblem } from "@/lib/people";
import { trpc } from "@/lib/trpc";

export function NewTeamDialog({ open, onClose, onCreated }: { open: boolean; onClose(): void; onCreated(id: string): void }) {
  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy="new-team-title" testId="new-team-dialog">
      <NewTeamForm onClose={onClose} onCreated={onCreated} />
    </Dialog>
  );
}

function NewTeamForm({ onClose, onCreated }: { onClose(): void; onCreated(id: string): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const create = trpc.teams.create.useMutation({
    onSuccess: async (team) => {
      await Promise.all([utils.teams.list.invalidate(), utils.identity.me.invalidate()]);
      onCreated(team.id);
    },
    onError: (err) => {
      const e = errorsOf(err, ["name"] as const);
      setError(e.fields.name ?? e.other);
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (create.isPending) return;
    const problem = teamNameProblem(name);
    setError(problem);
    if (!problem) create.mutate({ name: name.trim() });
  }

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="new-team-form">
      <div className="dialog-header">
        <div>
          <h2 id="new-team-title">New team</h2>
          <p>Teams scope runs, budgets and policies. Add its members next.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            className="input"
            autoFocus
            autoComplete="off"
            maxLength={80}
            value={name}
            placeholder="e.g. payments"
            onChange={(e) => {
              setName(e.target.value);
              setError(null);
            }}
            aria-invalid={error ? true : undefined}
            data-testid="new-team-name"
          />
          {error ? (
            <FieldError message={error} testId="new-team-error" live />
          ) : (
            <span className="hint">Up to 64 letters, digits, spaces and - _ .</span>
          )}
        </div>
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to create · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={create.isPending} data-testid="new-team-submit">
          {create.isPending && <span className="spinner" aria-hidden="true" />}
          Create team
        </button>
      </div>
    </form>
  );
}
