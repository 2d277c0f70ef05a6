"use client";
// One person in Settings › People: their role (changed in place; taking admin
// away asks first), teams, last seen, status and the row's actions. The
// server's refusals (the last admin, …) are shown under what was tried.
import Link from "next/link";
import { useState } from "react";
import type { Role } from "@/server/identity";
import { ConfirmAction, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { removesAdmin } from "@/lib/people";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { RoleOptions } from "./role-options";
import styles from "./people.module.css";

export type Person = RouterOutputs["users"]["list"][number];

export function personName(p: { name: string | null; email: string }): string {
  return p.name || p.email;
}

export function PersonRow({
  person,
  isSelf,
  now,
  onStatus,
  onReset,
}: {
  person: Person;
  isSelf: boolean;
  now: number;
  onStatus(person: Person): void;
  onReset(person: Person): void;
}) {
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState<Role | null>(null);
  const setRole = trpc.users.setRole.useMutation({
    onSuccess: async () => {
      setConfirming(null);
      await Promise.all([utils.users.list.invalidate(), utils.teams.invalidate(), isSelf ? utils.identity.me.invalidate() : undefined]);
    },
  });
  const disabled = person.status === "disabled";

  function changeRole(to: Role) {
    if (to === person.role) return;
    setRole.reset();
    if (removesAdmin(person.role, to)) setConfirming(to);
    else setRole.mutate({ id: person.id, role: to });
  }

  return (
    <tr data-testid="person-row" data-email={person.email} className={disabled ? styles.disabledRow : undefined}>
      <td>
        <span className={styles.person}>{person.name || <span className="muted">no name</span>}</span>
        {isSelf && <span className={`badge badge-outline ${styles.you}`}>you</span>}
      </td>
      <td className={styles.email}>{person.email}</td>
      <td>
        <select
          className={`select ${styles.roleSelect}`}
          value={person.role}
          onChange={(e) => changeRole(e.target.value as Role)}
          disabled={setRole.isPending}
          aria-label={`Role of ${personName(person)}`}
          data-testid="person-role"
        >
          <RoleOptions />
        </select>
        {setRole.error && !confirming && (
          <FieldError message={errorMessage(setRole.error)} testId="person-role-error" live block className={styles.rowError} />
        )}
        <ConfirmAction
          open={confirming !== null}
          title={isSelf ? "Give up your admin role?" : `Remove admin from ${personName(person)}?`}
          confirmLabel={`Make ${isSelf ? "me" : "them"} ${confirming ?? ""}`}
          busyLabel="Changing…"
          cancelLabel="Keep admin"
          action={setRole}
          onConfirm={() => confirming && setRole.mutate({ id: person.id, role: confirming })}
          onClose={() => setConfirming(null)}
        >
          {isSelf
            ? `You become ${confirming ?? ""} everywhere except where a team gives you more, and lose People, Teams and the admin settings at once. Only another admin can give the role back.`
            : `${personName(person)} becomes ${confirming ?? ""} everywhere except where a team gives them more, and can no longer manage people, teams or settings.`}
        </ConfirmAction>
      </td>
      <td>
        {person.teams.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <div className={styles.teams} data-testid="person-teams">
            {person.teams.map((t) => (
              <Link
                key={t.id}
                href={`/settings/teams/${t.id}`}
                className={styles.teamChip}
                title={
                  t.effectiveRole !== t.role
                    ? `${t.effectiveRole} in ${t.name} through their own role (${t.role} as a member of the team)`
                    : `${t.role} in ${t.name}`
                }
              >
                {t.name} <span className={styles.teamChipRole}>· {t.effectiveRole}</span>
              </Link>
            ))}
          </div>
        )}
      </td>
      <td className="nowrap" title={person.lastSeenAt ? formatDateTime(person.lastSeenAt) : undefined}>
        {person.lastSeenAt ? formatRelative(person.lastSeenAt, now) : <span className="muted">never</span>}
      </td>
      <td>
        <span
          className={`badge ${disabled ? "status-canceled" : "status-succeeded"}`}
          data-testid="person-status"
          title={person.disabledAt ? `Disabled ${formatDateTime(person.disabledAt)}` : undefined}
        >
          {disabled ? "disabled" : "active"}
        </span>
      </td>
      <td className={styles.actions}>
        <Link
          href={`/audit?q=${encodeURIComponent(person.email)}`}
          className="btn btn-sm btn-ghost"
          title="Changes to this person, and changes they made, in the audit log"
          data-testid="person-history"
        >
          History
        </Link>
        {!disabled && (
          <button type="button" className="btn btn-sm" onClick={() => onReset(person)} data-testid="person-reset">
            Reset password
          </button>
        )}
        {!isSelf && (
          <button
            type="button"
            className={`btn btn-sm${disabled ? "" : " btn-danger"}`}
            onClick={() => onStatus(person)}
            data-testid={disabled ? "person-enable" : "person-disable"}
          >
            {disabled ? "Enable" : "Disable"}
          </button>
        )}
      </td>
    </tr>
  );
}
