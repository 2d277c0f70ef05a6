"use client";
// Settings › Secrets (admins, docs/secrets.md): the secrets a run's tools may
// use. Names, the variable each reaches the shell as, who created it and
// when it was last used — never a value. Provider keys live in Settings ›
// Models and are not listed here.
import Link from "next/link";
import { useMemo, useRef, useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { SecretForm, type SecretFormHandle } from "./secret-form";
import { SecretScopeEditor, describeScope } from "./secret-scope";

type SecretView = RouterOutputs["secrets"]["list"][number];

export function SecretsPage() {
  return (
    <RequireRole role="admin" title="Secrets need the admin role" why="Only admins can see which secrets exist and change them.">
      {() => <Secrets />}
    </RequireRole>
  );
}

function When({ at, now }: { at: Date | string | null; now: number }) {
  if (!at) return <span className="muted">never</span>;
  return <span title={formatDateTime(at)}>{formatRelative(at, now)}</span>;
}

function Secrets() {
  const secrets = trpc.secrets.list.useQuery();
  const utils = trpc.useUtils();
  const form = useRef<SecretFormHandle>(null);
  const [deleting, setDeleting] = useState<SecretView | null>(null);
  const [scoping, setScoping] = useState<SecretView | null>(null);
  const remove = trpc.secrets.delete.useMutation({
    onSuccess: () => {
      setDeleting(null);
      void utils.secrets.list.invalidate();
    },
  });
  const names = useMemo(() => new Set((secrets.data ?? []).map((s) => s.name)), [secrets.data]);
  const now = Date.now();

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Secrets</h1>
          <p>
            Values a run&apos;s tools may use, such as a deploy token. Each goes only to the agents and teams you allow (nobody until you
            say), and to runs that play a launcher&apos;s scenario only if you allow that too. Within that, a run gets a secret when its
            agent lists it or it is launched with it (<code>secrets: [&quot;NAME&quot;]</code> over the API, <code>--secret NAME</code> in
            the CLI); its shell commands see it as a variable, and the value is redacted from outputs, the timeline, traces and what models
            are sent. Model provider keys are managed in <Link href="/settings/models">Settings › Models</Link>.
          </p>
        </div>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        <SecretForm ref={form} existing={names} />
        {scoping && <SecretScopeEditor key={scoping.name} secret={scoping} onDone={() => setScoping(null)} />}
        <div className="card">
          <div className="card-header">
            <h2>Secrets</h2>
          </div>
          <PageShell query={secrets} loading={<SkeletonRows rows={3} columns={7} />} failed="Could not load the secrets">
            {(data) =>
              data.length === 0 ? (
                <EmptyState icon="⚷" title="No secrets yet">
                  Add one above; then launch a run with it to give its shell commands the value.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className="table" data-testid="secrets-table">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>Variable</th>
                        <th>Given to</th>
                        <th>Created by</th>
                        <th>Created</th>
                        <th>Updated</th>
                        <th>Last used</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {data.map((s) => (
                        <tr key={s.name} data-testid="secret-row" data-secret={s.name}>
                          <td>
                            <code>{s.name}</code>
                          </td>
                          <td>
                            <code>${s.env}</code>
                          </td>
                          <td data-testid="secret-scope" className={s.scope.agents.length && s.scope.teams.length ? undefined : "muted"}>
                            {describeScope(s)}
                          </td>
                          <td>{s.createdBy ? s.createdBy.name || s.createdBy.email : <span className="muted">system</span>}</td>
                          <td>
                            <When at={s.createdAt} now={now} />
                          </td>
                          <td>
                            <When at={s.updatedAt} now={now} />
                          </td>
                          <td data-testid="secret-last-used">
                            <When at={s.lastUsedAt} now={now} />
                          </td>
                          <td style={{ textAlign: "right", whiteSpace: "nowrap" }}>
                            <button type="button" className="btn btn-sm" onClick={() => setScoping(s)} data-testid="edit-secret-scope">
                              Who may have it
                            </button>{" "}
                            <button
                              type="button"
                              className="btn btn-sm"
                              onClick={() => form.current?.replace(s.name)}
                              data-testid="replace-secret"
                            >
                              Replace value
                            </button>{" "}
                            <button
                              type="button"
                              className="btn btn-danger btn-sm"
                              onClick={() => {
                                remove.reset();
                                setDeleting(s);
                              }}
                              data-testid="delete-secret"
                            >
                              Delete
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
        </div>
      </div>
      <ConfirmAction
        open={deleting !== null}
        title={`Delete the secret ${deleting?.name ?? ""}?`}
        confirmLabel="Delete secret"
        busyLabel="Deleting…"
        cancelLabel="Keep it"
        action={remove}
        onConfirm={() => deleting && remove.mutate({ name: deleting.name })}
        onClose={() => setDeleting(null)}
      >
        Its value is gone for good. Runs given it can no longer run shell commands (they fail with SECRET_UNAVAILABLE), and new runs naming
        it are refused, until it is added again.
      </ConfirmAction>
    </div>
  );
}
