"use client";
// Adds someone who already has an account to a team. Admins pick from
// everyone (users.list is theirs alone); a team's own admins type the e-mail.
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import { FieldError } from "@/components/ui";
import type { Role } from "@/server/identity";
import { RoleOptions } from "@/components/people/role-options";
import { errorsOf } from "@/lib/field-errors";
import { looksLikeEmail } from "@/lib/people";
import { trpc } from "@/lib/trpc";
import styles from "./teams.module.css";

export function AddMemberForm({ teamId, memberIds, isAdmin }: { teamId: string; memberIds: ReadonlySet<string>; isAdmin: boolean }) {
  const id = useId();
  const utils = trpc.useUtils();
  const people = trpc.users.list.useQuery(undefined, { enabled: isAdmin });
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("operator");
  const [error, setError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const add = trpc.teams.addMember.useMutation({
    onSuccess: async (_r, input) => {
      setAdded(input.email);
      setEmail("");
      await Promise.all([utils.teams.invalidate(), utils.users.list.invalidate(), utils.identity.me.invalidate()]);
    },
    onError: (err) => {
      const e = errorsOf(err, ["email", "role"] as const);
      setError(e.fields.email ?? e.fields.role ?? e.other);
    },
  });
  const candidates = (people.data ?? []).filter((p) => !memberIds.has(p.id) && p.status === "active");

  function submit(e: FormEvent) {
    e.preventDefault();
    if (add.isPending) return;
    setAdded(null);
    const problem = !email.trim()
      ? isAdmin
        ? "Choose a person"
        : "Type their e-mail address"
      : looksLikeEmail(email)
        ? null
        : "This does not look like an e-mail address";
    setError(problem);
    if (!problem) add.mutate({ teamId, email: email.trim(), role });
  }

  return (
    <form className={styles.addForm} onSubmit={submit} noValidate data-testid="add-member-form">
      <div className={`field ${styles.addWho}`}>
        <label htmlFor={`${id}-who`}>Add a member</label>
        {isAdmin ? (
          <select
            id={`${id}-who`}
            className="select"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setError(null);
            }}
            disabled={people.isLoading}
            aria-invalid={error ? true : undefined}
            data-testid="add-member-person"
          >
            <option value="">
              {people.isLoading ? "Loading people…" : candidates.length ? "Choose a person…" : "Everyone is already a member"}
            </option>
            {candidates.map((p) => (
              <option key={p.id} value={p.email}>
                {p.name ? `${p.name} <${p.email}>` : p.email}
              </option>
            ))}
          </select>
        ) : (
          <input
            id={`${id}-who`}
            className="input"
            type="email"
            placeholder="their e-mail address"
            autoComplete="off"
            value={email}
            onChange={(e) => {
              setEmail(e.target.value);
              setError(null);
            }}
            aria-invalid={error ? true : undefined}
            data-testid="add-member-email"
          />
        )}
        {error ? (
          <FieldError message={error} testId="add-member-error" live />
        ) : added ? (
          <span className="hint" role="status" data-testid="add-member-added">
            {added} added.
          </span>
        ) : (
          <span className="hint">
            {isAdmin ? (
              <>
                Someone new? <Link href="/settings/people">Invite them</Link> with this team.
              </>
            ) : (
              "They need an account already; an admin invites new people."
            )}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-role`}>Role in the team</label>
        <select
          id={`${id}-role`}
          className={`select ${styles.roleSelect}`}
          value={role}
          onChange={(e) => setRole(e.target.value as Role)}
          data-testid="add-member-role"
        >
          <RoleOptions />
        </select>
      </div>
      <button type="submit" className="btn" style={{ marginTop: 22 }} disabled={add.isPending} data-testid="add-member-submit">
        {add.isPending && <span className="spinner" aria-hidden="true" />}
        Add
      </button>
    </form>
  );
}
