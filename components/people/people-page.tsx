"use client";
// Settings › People (admins, docs/people-and-teams.md): everyone who can log in, their
// role, teams and status; invitations; and the actions on a person (role,
// disable/enable, a password reset link).
import Link from "next/link";
import { useMemo, useState } from "react";
import { ConfirmAction, EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { useMe } from "@/lib/access";
import { matchesPerson } from "@/lib/people";
import { trpc } from "@/lib/trpc";
import { InvitationsCard } from "./invitations-card";
import { InviteDialog } from "./invite-dialog";
import { PersonRow, personName, type Person } from "./person-row";
import { ResetLinkDialog } from "./reset-link-dialog";
import styles from "./people.module.css";

export function PeoplePage() {
  return (
    <RequireRole role="admin" title="People need the admin role" why="Only admins can see who has access and change it.">
      {() => <People />}
    </RequireRole>
  );
}

function People() {
  const users = trpc.users.list.useQuery();
  const { me } = useMe();
  const utils = trpc.useUtils();
  const [query, setQuery] = useState("");
  const [inviting, setInviting] = useState(false);
  const [added, setAdded] = useState<string | null>(null);
  const [statusOf, setStatusOf] = useState<Person | null>(null);
  const [resetting, setResetting] = useState<Person | null>(null);
  const onStatusDone = async () => {
    setStatusOf(null);
    await Promise.all([utils.users.list.invalidate(), utils.teams.invalidate()]);
  };
  const disable = trpc.users.disable.useMutation({ onSuccess: onStatusDone });
  const enable = trpc.users.enable.useMutation({ onSuccess: onStatusDone });
  const statusChange = statusOf?.status === "disabled" ? enable : disable;
  const shown = useMemo(() => (users.data ?? []).filter((p) => matchesPerson(p, query)), [users.data, query]);
  const now = Date.now();

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block" style={{ maxWidth: 820 }}>
          <h1>People</h1>
          <p>
            Everyone who can log in. A person&apos;s role is the least they have everywhere; a team can give them more there (see{" "}
            <Link href="/settings/teams">Teams</Link>). Admins are admin in every team.
          </p>
        </div>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => {
            setAdded(null);
            setInviting(true);
          }}
          data-testid="invite-person"
        >
          Invite person
        </button>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        {added && (
          <div className="alert alert-success" role="status" data-testid="person-added">
            <span>
              <strong>{added}</strong> can log in now with the password you set.
            </span>
            <span className="spacer" />
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setAdded(null)} aria-label="Dismiss">
              ✕
            </button>
          </div>
        )}
        <section className="card">
          <div className="card-header">
            <h2>People</h2>
            {users.data && <span className="muted small">{users.data.length}</span>}
            <span className="spacer" />
            <input
              className={`input ${styles.search}`}
              type="search"
              placeholder="Search name, e-mail, role or team"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              aria-label="Search people"
              data-testid="people-search"
            />
          </div>
          <PageShell query={users} loading={<SkeletonRows rows={4} columns={7} />} failed="Could not load the people">
            {() =>
              shown.length === 0 ? (
                <EmptyState icon="⌕" title={query.trim() ? `Nobody matches "${query.trim()}"` : "Nobody here yet"}>
                  {query.trim()
                    ? "Search looks at names, e-mail addresses, roles and team names."
                    : "Invite someone with the button above."}
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className={`table ${styles.table}`} data-testid="people-table">
                    <thead>
                      <tr>
                        <th>Name</th>
                        <th>E-mail</th>
                        <th>Role</th>
                        <th>Teams</th>
                        <th>Last seen</th>
                        <th>Status</th>
                        <th />
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((p) => (
                        <PersonRow
                          key={p.id}
                          person={p}
                          isSelf={p.id === me?.userId}
                          now={now}
                          onStatus={(x) => {
                            disable.reset();
                            enable.reset();
                            setStatusOf(x);
                          }}
                          onReset={setResetting}
                        />
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </PageShell>
        </section>
        <InvitationsCard now={now} />
        <p className="small muted">
          Every change here is recorded in the <Link href="/audit">audit log</Link>. Rein sends no e-mail: invitation and reset links are
          shown to you once, to send yourself.
        </p>
      </div>
      <InviteDialog
        open={inviting}
        onClose={() => setInviting(false)}
        onAdded={(email) => {
          setInviting(false);
          setAdded(email);
        }}
      />
      <ResetLinkDialog person={resetting} onClose={() => setResetting(null)} />
      <ConfirmAction
        open={statusOf !== null}
        title={
          statusOf?.status === "disabled"
            ? `Enable ${statusOf ? personName(statusOf) : ""}?`
            : `Disable ${statusOf ? personName(statusOf) : ""}?`
        }
        confirmLabel={
          statusChange.isPending
            ? statusOf?.status === "disabled"
              ? "Enabling…"
              : "Disabling…"
            : statusOf?.status === "disabled"
              ? "Enable"
              : "Disable"
        }
        cancelLabel="Cancel"
        action={statusChange}
        onConfirm={() => statusOf && statusChange.mutate({ id: statusOf.id })}
        onClose={() => setStatusOf(null)}
      >
        {statusOf?.status === "disabled"
          ? "They can log in again with their password, and their API tokens work again. Their roles and teams are as they were."
          : "They are logged out at once: their sessions and API tokens stop working immediately, and they cannot log in. Runs they started keep their history. You can enable them again later."}
      </ConfirmAction>
    </div>
  );
}
