"use client";
// Registers a repository or changes one (admins): protected paths one glob per
// line; the server's problems are shown beside the field they are about.
import { useId, useState, type FormEvent } from "react";
import { ErrorBlock, FieldError } from "@/components/ui";
import { issuesOf, fieldErrors, type FieldErrors } from "@/lib/field-errors";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { RepositoryView } from "@/components/changes/format";

const FIELDS = ["name", "source", "defaultBranch", "testCommand", "testTimeoutSec", "protectedPaths", "evalDatasetId", "teamId"] as const;
type Field = (typeof FIELDS)[number];
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };

interface Draft {
  name: string;
  source: string;
  defaultBranch: string;
  testCommand: string;
  testTimeoutSec: string;
  protectedPaths: string;
  evalDatasetId: string;
  teamId: string;
}

const EMPTY: Draft = {
  name: "",
  source: "",
  defaultBranch: "main",
  testCommand: "",
  testTimeoutSec: "600",
  protectedPaths: "",
  evalDatasetId: "",
  teamId: "",
};

const draftOf = (r: RepositoryView): Draft => ({
  name: r.name,
  source: r.source,
  defaultBranch: r.defaultBranch,
  testCommand: r.testCommand,
  testTimeoutSec: String(r.testTimeoutSec),
  protectedPaths: r.protectedPaths.join("\n"),
  evalDatasetId: r.evalDatasetId ?? "",
  teamId: r.teamId ?? "",
});

/** The server names a glob by its index ("protectedPaths.2") and starts each message with the field. */
function errorsOfSave(err: unknown): FieldErrors<Field> {
  const issues = issuesOf(err)?.map((i) => {
    const field = i.path.split(".")[0];
    return { path: field, message: i.message.replace(/^[A-Za-z.0-9]+: /, "") };
  });
  return fieldErrors(issues, errorMessage(err), FIELDS);
}

export function RepositoryForm({ repository, onDone }: { repository?: RepositoryView; onDone(saved?: RepositoryView): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const teams = trpc.teams.list.useQuery(undefined, { staleTime: 60_000 });
  const datasets = trpc.evals.datasets.list.useQuery(undefined, { staleTime: 60_000 });
  const [draft, setDraft] = useState<Draft>(repository ? draftOf(repository) : EMPTY);
  const [errors, setErrors] = useState(NO_ERRORS);
  const saved = {
    onSuccess: (r: RepositoryView) => {
      void utils.repositories.list.invalidate();
      onDone(r);
    },
    onError: (err: unknown) => setErrors(errorsOfSave(err)),
  };
  const create = trpc.repositories.create.useMutation(saved);
  const update = trpc.repositories.update.useMutation(saved);
  const pending = create.isPending || update.isPending;

  const set = (f: Field) => (e: { target: { value: string } }) => {
    setDraft((d) => ({ ...d, [f]: e.target.value }));
    setErrors((x) => ({ ...x, fields: { ...x.fields, [f]: undefined } }));
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    if (pending) return;
    const fields: Partial<Record<Field, string>> = {};
    if (!draft.name.trim()) fields.name = "A name is required";
    if (!repository && !draft.source.trim()) fields.source = "A local path or a git URL is required";
    if (!draft.testCommand.trim()) fields.testCommand = "A test command is required";
    const timeout = Number(draft.testTimeoutSec);
    if (!/^\d+$/.test(draft.testTimeoutSec.trim()) || timeout < 5 || timeout > 3600)
      fields.testTimeoutSec = "A whole number of seconds from 5 to 3600";
    setErrors({ fields, other: null });
    if (Object.keys(fields).length) return;
    const values = {
      name: draft.name.trim(),
      defaultBranch: draft.defaultBranch.trim() || "main",
      testCommand: draft.testCommand.trim(),
      testTimeoutSec: timeout,
      protectedPaths: draft.protectedPaths
        .split("\n")
        .map((g) => g.trim())
        .filter(Boolean),
      evalDatasetId: draft.evalDatasetId || null,
      teamId: draft.teamId || null,
    };
    if (repository) update.mutate({ id: repository.id, patch: values });
    else create.mutate({ ...values, source: draft.source.trim() });
  }

  const error = (f: Field, hint?: string) =>
    errors.fields[f] ? (
      <FieldError id={`${id}-${f}-help`} message={errors.fields[f]} testId={`repository-${f}-error`} live />
    ) : hint ? (
      <span className="hint" id={`${id}-${f}-help`}>
        {hint}
      </span>
    ) : null;
  const input = (f: Field) => ({
    id: `${id}-${f}`,
    value: draft[f],
    onChange: set(f),
    "aria-invalid": errors.fields[f] ? true : undefined,
    "aria-describedby": `${id}-${f}-help`,
    "data-testid": `repository-${f}`,
  });

  return (
    <form className="card card-body stack" onSubmit={submit} noValidate data-testid="repository-form">
      <h2>{repository ? `Change ${repository.name}` : "Register a repository"}</h2>
      <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
        <div className="field" style={{ flex: 1, minWidth: 200 }}>
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            className="input mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="e.g. billing-service"
            disabled={repository?.builtIn}
            {...input("name")}
          />
          {error(
            "name",
            repository?.builtIn ? "A built-in repository keeps its name." : "Lower-case letters, digits, dots, dashes and underscores.",
          )}
        </div>
        <div className="field" style={{ flex: 2, minWidth: 280 }}>
          <label htmlFor={`${id}-source`}>Source</label>
          <input
            className="input mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="/srv/git/billing or https://git.example.com/billing.git"
            readOnly={!!repository}
            {...input("source")}
          />
          {error(
            "source",
            repository
              ? "The source never changes; register a new repository for another."
              : "An absolute local path to a git repository, or a git URL (https://, ssh:// or file://).",
          )}
        </div>
      </div>
      <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
        <div className="field" style={{ width: 180 }}>
          <label htmlFor={`${id}-defaultBranch`}>Default branch</label>
          <input className="input mono" spellCheck={false} {...input("defaultBranch")} />
          {error("defaultBranch", "Changes merge into it.")}
        </div>
        <div className="field" style={{ flex: 1, minWidth: 240 }}>
          <label htmlFor={`${id}-testCommand`}>Test command</label>
          <input className="input mono" spellCheck={false} placeholder="npm test" {...input("testCommand")} />
          {error("testCommand", "Runs in a sandbox on a clean checkout of each proposed commit; exit 0 passes.")}
        </div>
        <div className="field" style={{ width: 160 }}>
          <label htmlFor={`${id}-testTimeoutSec`}>Test time limit (s)</label>
          <input className="input" inputMode="numeric" {...input("testTimeoutSec")} />
          {error("testTimeoutSec")}
        </div>
      </div>
      <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
        <div className="field" style={{ flex: 2, minWidth: 280 }}>
          <label htmlFor={`${id}-protectedPaths`}>Protected paths</label>
          <textarea className="textarea mono" rows={4} spellCheck={false} placeholder={".ci/**\nsecrets/**"} {...input("protectedPaths")} />
          {error(
            "protectedPaths",
            "One glob per line. A change touching one is refused; Rein's own security-sensitive paths are always protected.",
          )}
        </div>
        <div className="stack" style={{ flex: 1, minWidth: 220 }}>
          <div className="field">
            <label htmlFor={`${id}-teamId`}>Team</label>
            <select className="select" {...input("teamId")}>
              <option value="">Everyone</option>
              {teams.data?.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
            {error("teamId", "Who sees it and starts changes to it; its approvers review them.")}
          </div>
          <div className="field">
            <label htmlFor={`${id}-evalDatasetId`}>Eval dataset</label>
            <select className="select" {...input("evalDatasetId")}>
              <option value="">None</option>
              {datasets.data?.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
            {error("evalDatasetId")}
          </div>
        </div>
      </div>
      <ErrorBlock message={errors.other} testId="repository-form-error" />
      <div className="row">
        <span className="spacer" />
        <button type="button" className="btn" onClick={() => onDone()}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={pending} data-testid="repository-save">
          {pending && <span className="spinner" aria-hidden="true" />}
          {repository ? "Save changes" : "Register"}
        </button>
      </div>
    </form>
  );
}
