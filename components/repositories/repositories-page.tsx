"use client";
// Settings › Repositories (docs/changes.md): the git repositories
// agents may propose changes to. Admins register, change and archive them;
// everyone else reads the list.
import { useState } from "react";
import { ConfirmAction, EmptyState, ErrorBlock, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { trpc } from "@/lib/trpc";
import type { RepositoryView } from "@/components/changes/format";
import { RepositoryForm } from "./repository-form";

type Editing = { mode: "new" } | { mode: "edit"; repository: RepositoryView } | null;

export function RepositoriesPage() {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const [showArchived, setShowArchived] = useState(false);
  const [editing, setEditing] = useState<Editing>(null);
  const [archiving, setArchiving] = useState<RepositoryView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const utils = trpc.useUtils();
  const repositories = trpc.repositories.list.useQuery({ includeArchived: showArchived });
  const teams = trpc.teams.list.useQuery(undefined, { staleTime: 60_000 });
  const teamName = (id: string | null) => (id ? (teams.data?.find((t) => t.id === id)?.name ?? id) : null);
  const archive = trpc.repositories.archive.useMutation({
    onSuccess: (r) => {
      setArchiving(null);
      setNotice(`${r.name} ${r.archived ? "is archived: it takes no new change requests" : "is restored"}.`);
      void utils.repositories.list.invalidate();
    },
  });

  return (
    <div className="page" data-testid="repositories-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>Repositories</h1>
          <p>
            Git repositories agents may propose changes to. An agent works on a branch of its own in a worktree, its change is tested with
            the repository&apos;s test command, and an approver merges it (Improvements › Changes).{" "}
            {isAdmin ? "" : "Only admins register and change repositories."}
          </p>
        </div>
        {isAdmin && !editing && (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => (setNotice(null), setEditing({ mode: "new" }))}
            data-testid="repository-new"
          >
            <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
              +
            </span>
            Register a repository
          </button>
        )}
      </div>
      <div className="stack" style={{ gap: 16 }}>
        {editing && (
          <RepositoryForm
            key={editing.mode === "edit" ? editing.repository.id : "new"}
            repository={editing.mode === "edit" ? editing.repository : undefined}
            onDone={(saved) => {
              setEditing(null);
              if (saved) setNotice(`${saved.name} is ${editing.mode === "edit" ? "saved" : "registered"}.`);
            }}
          />
        )}
        {notice && (
          <div className="alert alert-success" role="status" data-testid="repository-notice">
            {notice}
          </div>
        )}
        <div className="card">
          <div className="card-header">
            <h2 style={{ flex: 1 }}>Registered repositories</h2>
            <label className="row small" style={{ gap: 6 }}>
              <input
                type="checkbox"
                className="checkbox"
                checked={showArchived}
                onChange={(e) => setShowArchived(e.target.checked)}
                data-testid="repositories-show-archived"
              />
              Show archived
            </label>
          </div>
          <PageShell query={repositories} loading={<SkeletonRows rows={3} columns={7} />} failed="Could not load the repositories">
            {(data) =>
              data.length === 0 ? (
                <EmptyState icon="⎇" title="No repositories">
                  {isAdmin
                    ? "Register one above: a local path or a git URL, its default branch and its test command."
                    : "An admin registers repositories here."}
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className="table" data-testid="repositories-table">
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Source</th>
                        <th scope="col">Branch</th>
                        <th scope="col">Test command</th>
                        <th scope="col">Protected paths</th>
                        <th scope="col">Team</th>
                        {isAdmin && <th scope="col" />}
                      </tr>
                    </thead>
                    <tbody>
                      {data.map((r) => (
                        <tr key={r.id} data-testid="repository-row" data-name={r.name} data-archived={r.archived}>
                          <td>
                            <strong className="mono">{r.name}</strong>{" "}
                            {r.builtIn && (
                              <span
                                className="badge badge-outline"
                                title="Registered by Rein for its demo"
                                data-testid="repository-built-in"
                              >
                                built-in
                              </span>
                            )}{" "}
                            {r.archived && <span className="badge badge-outline">archived</span>}
                          </td>
                          <td className="mono small" style={{ maxWidth: 260, overflowWrap: "anywhere" }}>
                            {r.source}
                          </td>
                          <td className="mono small">{r.defaultBranch}</td>
                          <td className="small">
                            <code>{r.testCommand}</code>
                            <div className="muted">up to {r.testTimeoutSec} s</div>
                          </td>
                          <td className="mono small">
                            {r.protectedPaths.length ? (
                              r.protectedPaths.map((g) => <div key={g}>{g}</div>)
                            ) : (
                              <span className="muted">—</span>
                            )}
                          </td>
                          <td className="small">{teamName(r.teamId) ?? <span className="muted">everyone</span>}</td>
                          {isAdmin && (
                            <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
                              <button
                                type="button"
                                className="btn btn-sm"
                                onClick={() => (setNotice(null), setEditing({ mode: "edit", repository: r }))}
                                data-testid="repository-edit"
                              >
                                Edit
                              </button>{" "}
                              {r.archived ? (
                                <button
                                  type="button"
                                  className="btn btn-sm"
                                  disabled={archive.isPending}
                                  onClick={() => archive.mutate({ id: r.id, archived: false })}
                                  data-testid="repository-restore"
                                >
                                  Restore
                                </button>
                              ) : (
                                <button
                                  type="button"
                                  className="btn btn-danger btn-sm"
                                  onClick={() => (archive.reset(), setArchiving(r))}
                                  data-testid="repository-archive"
                                >
                                  Archive
                                </button>
                              )}
                            </td>
                          )}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
          {archive.error && !archiving && <ErrorBlock error={archive.error} style={{ margin: 16 }} />}
        </div>
      </div>
      <ConfirmAction
        open={archiving !== null}
        title={`Archive ${archiving?.name ?? ""}?`}
        confirmLabel="Archive"
        busyLabel="Archiving…"
        action={archive}
        onConfirm={() => archiving && archive.mutate({ id: archiving.id, archived: true })}
        onClose={() => setArchiving(null)}
      >
        It leaves the lists and takes no new change requests. Its change requests and their history stay, and it can be restored.
      </ConfirmAction>
    </div>
  );
}
