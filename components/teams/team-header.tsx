"use client";
// A team's name, renamed in place (admins and the team's admins), and
// Archive / Unarchive (admins, confirmed).
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { ConfirmAction, FieldError } from "@/components/ui";
import { errorsOf } from "@/lib/field-errors";
import { teamNameProblem } from "@/lib/people";
import { trpc } from "@/lib/trpc";
import styles from "./teams.module.css";

export function TeamHeader({
  team,
  canManage,
  isAdmin,
}: {
  team: { id: string; name: string; archivedAt: Date | string | null };
  canManage: boolean;
  isAdmin: boolean;
}) {
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(team.name);
  const [error, setError] = useState<string | null>(null);
  const [archiving, setArchiving] = useState(false);
  const refresh = () => Promise.all([utils.teams.invalidate(), utils.identity.me.invalidate(), utils.users.list.invalidate()]);
  const rename = trpc.teams.rename.useMutation({
    onSuccess: async () => {
      setEditing(false);
      await refresh();
    },
    onError: (err) => {
      const e = errorsOf(err, ["name"] as const);
      setError(e.fields.name ?? e.other);
    },
  });
  const onArchived = async () => {
    setArchiving(false);
    await refresh();
  };
  const archive = trpc.teams.archive.useMutation({ onSuccess: onArchived });
  const unarchive = trpc.teams.unarchive.useMutation({ onSuccess: onArchived });
  const change = team.archivedAt ? unarchive : archive;

  function startEditing() {
    setName(team.name);
    setError(null);
    setEditing(true);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (rename.isPending) return;
    if (name.trim() === team.name) return setEditing(false);
    const problem = teamNameProblem(name);
    setError(problem);
    if (!problem) rename.mutate({ id: team.id, name: name.trim() });
  }

  return (
    <div className="page-header">
      <div className="page-title-block">
        <Link href="/settings/teams" className={styles.back}>
          ← Teams
        </Link>
        {editing ? (
          <form className={styles.renameForm} onSubmit={submit} noValidate data-testid="rename-form">
            <div className="field">
              <input
                className={`input ${styles.renameInput}`}
                autoFocus
                value={name}
                aria-label="Team name"
                maxLength={80}
                onChange={(e) => {
                  setName(e.target.value);
                  setError(null);
                }}
                onKeyDown={(e) => {
                  if (e.key === "Escape") {
                    e.preventDefault();
                    setEditing(false);
                  }
                }}
                aria-invalid={error ? true : undefined}
                data-testid="rename-input"
              />
              {error ? (
                <FieldError message={error} testId="rename-error" live />
              ) : (
                <span className="hint">
                  <kbd>Enter</kbd> to save · <kbd>Esc</kbd> to cancel
                </span>
              )}
            </div>
            <button type="submit" className="btn btn-primary" disabled={rename.isPending} data-testid="rename-save">
              {rename.isPending && <span className="spinner" aria-hidden="true" />}
              Save
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <div className={styles.titleRow}>
            <h1 data-testid="team-name">{team.name}</h1>
            {team.archivedAt && (
              <span className="badge status-canceled" data-testid="team-archived">
                archived
              </span>
            )}
            {canManage && (
              <button type="button" className="btn btn-sm btn-ghost" onClick={startEditing} data-testid="rename-team">
                Rename
              </button>
            )}
          </div>
        )}
      </div>
      <span className="spacer" />
      {isAdmin && (
        <div className="row" style={{ gap: 6 }}>
          <Link
            href={`/audit?kind=team.*&q=${encodeURIComponent(team.name)}`}
            className="btn btn-ghost"
            title="Every change to this team and its members in the audit log"
            data-testid="team-history"
          >
            History
          </Link>
          <button
            type="button"
            className={`btn${team.archivedAt ? "" : " btn-danger"}`}
            onClick={() => {
              change.reset();
              setArchiving(true);
            }}
            data-testid={team.archivedAt ? "unarchive-team" : "archive-team"}
          >
            {team.archivedAt ? "Unarchive" : "Archive"}
          </button>
        </div>
      )}
      <ConfirmAction
        open={archiving}
        title={team.archivedAt ? `Unarchive ${team.name}?` : `Archive ${team.name}?`}
        confirmLabel={change.isPending ? "Saving…" : team.archivedAt ? "Unarchive" : "Archive team"}
        cancelLabel="Cancel"
        action={change}
        onConfirm={() => change.mutate({ id: team.id })}
        onClose={() => setArchiving(false)}
      >
        {team.archivedAt
          ? "It is offered again when inviting people and starting runs."
          : "It is listed last and no longer offered when inviting people or starting runs. Its members, runs, budget and history stay, and you can unarchive it at any time."}
      </ConfirmAction>
    </div>
  );
}
