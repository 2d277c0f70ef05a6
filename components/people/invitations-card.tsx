"use client";
// Invitations: who was invited, as what and where, by whom, until when, and
// whether the link was used; pending ones can be revoked.
import { useState } from "react";
import { ConfirmAction, EmptyState, ErrorState, SkeletonRows } from "@/components/ui";
import { roleAtLeast } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import styles from "./people.module.css";

type Invitation = RouterOutputs["invitations"]["list"][number];

const STATE_CLASS: Record<Invitation["state"], string> = {
  pending: "status-running",
  used: "status-succeeded",
  expired: "status-paused",
  revoked: "status-canceled",
};

export function InvitationsCard({ now }: { now: number }) {
  // An invitee accepts in another browser: while some are pending, the list looks again now and then, and
  // every time the person comes back to the tab (never "fresh enough" to skip that look).
  const invitations = trpc.invitations.list.useQuery(undefined, {
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.some((i) => i.state === "pending") ? 15_000 : false),
  });
  const utils = trpc.useUtils();
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const [showAll, setShowAll] = useState(false);
  const revoke = trpc.invitations.revoke.useMutation({
    onSuccess: () => {
      setRevoking(null);
      void utils.invitations.list.invalidate();
    },
  });
  const all = invitations.data ?? [];
  const shown = showAll ? all : all.filter((i) => i.state === "pending");
  const others = all.length - all.filter((i) => i.state === "pending").length;

  return (
    <section className="card" data-testid="invitations">
      <div className="card-header">
        <h2>{showAll ? "Invitations" : "Pending invitations"}</h2>
        <span className="spacer" />
        {others > 0 && (
          <label className="checkbox small">
            <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} data-testid="invitations-show-all" />
            Show used, expired and revoked ({others})
          </label>
        )}
      </div>
      {invitations.isLoading ? (
        <SkeletonRows rows={2} columns={6} />
      ) : invitations.isError ? (
        <ErrorState
          title="Could not load the invitations"
          message={errorMessage(invitations.error)}
          onRetry={() => invitations.refetch()}
        />
      ) : shown.length === 0 ? (
        <EmptyState icon="✉" title="No pending invitations">
          Invite someone with the button above; their link shows here until they use it or it expires.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className={`table ${styles.table}`} data-testid="invitations-table">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Team</th>
                <th>Invited by</th>
                <th>Expires</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {shown.map((i) => (
                <tr key={i.id} data-testid="invitation-row" data-email={i.email}>
                  <td className={styles.email}>{i.email}</td>
                  <td>{i.role}</td>
                  <td>
                    {i.team ? (
                      <>
                        {i.team.name}
                        {i.teamRole && (
                          <span className="muted" data-testid="invitation-team-role">
                            {" "}
                            · {roleAtLeast(i.role, i.teamRole) ? i.role : i.teamRole}
                          </span>
                        )}
                      </>
                    ) : (
                      <span className="muted">none</span>
                    )}
                  </td>
                  <td>
                    {i.createdBy?.name ?? <span className="muted">—</span>}
                    <div className="small muted" title={formatDateTime(i.createdAt)}>
                      {formatRelative(i.createdAt, now)}
                    </div>
                  </td>
                  <td className="nowrap" title={formatDateTime(i.expiresAt)}>
                    {formatDateTime(i.expiresAt)}
                  </td>
                  <td>
                    <span className={`badge ${STATE_CLASS[i.state]}`} data-testid="invitation-state">
                      {i.state}
                    </span>
                  </td>
                  <td className={styles.actions}>
                    {i.state === "pending" && (
                      <button
                        type="button"
                        className="btn btn-danger btn-sm"
                        onClick={() => {
                          revoke.reset();
                          setRevoking(i);
                        }}
                        data-testid="invitation-revoke"
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmAction
        open={revoking !== null}
        title={`Revoke the invitation for ${revoking?.email ?? ""}?`}
        confirmLabel="Revoke invitation"
        busyLabel="Revoking…"
        cancelLabel="Keep it"
        action={revoke}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        The link stops working at once; opening it says it was withdrawn. You can invite them again later.
      </ConfirmAction>
    </section>
  );
}
