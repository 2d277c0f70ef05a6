"use client";
// One member of a team: their role in it (a select for those who manage the
// team), the effective role with why when their own role is higher, and
// Remove (confirmed). Refusals are shown under what was tried.
import { useState } from "react";
import type { Role } from "@/server/identity";
import { ConfirmAction, FieldError } from "@/components/ui";
import { RoleOptions } from "@/components/people/role-options";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { effectiveRoleHint } from "@/lib/people";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import styles from "./teams.module.css";

export type Member = RouterOutputs["teams"]["get"]["members"][number];

export function MemberRow({
  teamId,
  teamName,
  member,
  canManage,
  isSelf,
  now,
}: {
  teamId: string;
  teamName: string;
  member: Member;
  canManage: boolean;
  isSelf: boolean;
  now: number;
}) {
  const utils = trpc.useUtils();
  const [removing, setRemoving] = useState(false);
  const refresh = () =>
    Promise.all([utils.teams.invalidate(), utils.users.list.invalidate(), isSelf ? utils.identity.me.invalidate() : undefined]);
  const setRole = trpc.teams.setMemberRole.useMutation({ onSuccess: refresh });
  const remove = trpc.teams.removeMember.useMutation({
    onSuccess: async () => {
      setRemoving(false);
      await refresh();
    },
  });
  const hint = effectiveRoleHint(member);
  const who = member.name || member.email;

  return (
    <tr data-testid="member-row" data-email={member.email} className={member.disabled ? styles.disabledMember : undefined}>
      <td>
        <div style={{ fontWeight: 600 }}>
          {member.name || member.email}
          {isSelf && (
            <span className="badge badge-outline" style={{ marginLeft: 6 }}>
              you
            </span>
          )}
          {member.disabled && (
            <span className="badge status-canceled" style={{ marginLeft: 6 }}>
              disabled
            </span>
          )}
        </div>
        {member.name && <div className="small muted">{member.email}</div>}
      </td>
      <td>
        {canManage ? (
          <select
            className={`select ${styles.roleSelect}`}
            value={member.role}
            disabled={setRole.isPending}
            onChange={(e) => {
              setRole.reset();
              setRole.mutate({ teamId, userId: member.userId, role: e.target.value as Role });
            }}
            aria-label={`Role of ${who} in ${teamName}`}
            data-testid="member-role"
          >
            <RoleOptions />
          </select>
        ) : (
          <span data-testid="member-role-text">{member.role}</span>
        )}
        {setRole.error && (
          <FieldError message={errorMessage(setRole.error)} testId="member-role-error" live block className={styles.rowError} />
        )}
      </td>
      <td data-testid="member-effective-role">
        <strong>{member.effectiveRole}</strong>
        {hint && (
          <div className={styles.roleHint} title={`Their own role is ${member.ownRole}: the least they have everywhere`}>
            {hint}
          </div>
        )}
      </td>
      <td className="nowrap" title={formatDateTime(member.addedAt)}>
        {formatRelative(member.addedAt, now)}
      </td>
      <td className={styles.actions}>
        {canManage && (
          <button
            type="button"
            className="btn btn-danger btn-sm"
            onClick={() => {
              remove.reset();
              setRemoving(true);
            }}
            data-testid="member-remove"
          >
            Remove
          </button>
        )}
        <ConfirmAction
          open={removing}
          title={isSelf ? `Leave ${teamName}?` : `Remove ${who} from ${teamName}?`}
          confirmLabel={remove.isPending ? "Removing…" : isSelf ? "Leave team" : "Remove"}
          cancelLabel="Keep"
          action={remove}
          onConfirm={() => remove.mutate({ teamId, userId: member.userId })}
          onClose={() => setRemoving(false)}
        >
          {isSelf
            ? `You no longer see ${teamName}'s runs or manage it, unless you are an admin. Someone who manages it can add you again.`
            : `${who} no longer sees ${teamName}'s runs unless they are an admin. Runs they started there keep their history.`}
        </ConfirmAction>
      </td>
    </tr>
  );
}
