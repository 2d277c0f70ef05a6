"use client";
// "Invite person": an invitation link (shown once, sent by the admin) or, on
// the other tab, an account with a password the admin sets. Either may put
// the person in a team with a role there.
import { useId, useState, type FormEvent } from "react";
import type { Role } from "@/server/identity";
import { Dialog, ErrorBlock, FieldError, Tabs } from "@/components/ui";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { MIN_PASSWORD, looksLikeEmail } from "@/lib/people";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { LinkReveal } from "./link-reveal";
import { RoleOptions } from "./role-options";
import styles from "./people.module.css";

type Mode = "invite" | "password";
type Invited = RouterOutputs["invitations"]["create"] & { email: string };

const FIELDS = ["email", "name", "password", "role", "teamId", "teamRole"] as const;
type Field = (typeof FIELDS)[number];
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };

export function InviteDialog({ open, onClose, onAdded }: { open: boolean; onClose(): void; onAdded(email: string): void }) {
  return (
    <Dialog open={open} onClose={onClose} labelledBy="invite-dialog-title" testId="invite-dialog">
      <InviteForm onClose={onClose} onAdded={onAdded} />
    </Dialog>
  );
}

function InviteForm({ onClose, onAdded }: { onClose(): void; onAdded(email: string): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const teams = trpc.teams.list.useQuery();
  const [mode, setMode] = useState<Mode>("invite");
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("operator");
  const [teamId, setTeamId] = useState("");
  const [teamRole, setTeamRole] = useState<Role | null>(null);
  const [errors, setErrors] = useState(NO_ERRORS);
  const [invited, setInvited] = useState<Invited | null>(null);
  const onError = (err: unknown) => setErrors(errorsOf(err, FIELDS));
  const invite = trpc.invitations.create.useMutation({
    onSuccess: (made, input) => {
      setInvited({ ...made, email: input.email });
      void utils.invitations.list.invalidate();
    },
    onError,
  });
  const create = trpc.users.create.useMutation({
    onSuccess: (_made, input) => {
      void utils.users.list.invalidate();
      void utils.teams.list.invalidate();
      onAdded(input.email);
    },
    onError,
  });
  const busy = invite.isPending || create.isPending;
  const openTeams = (teams.data ?? []).filter((t) => !t.archivedAt);

  function clearError(field: Field) {
    setErrors((e) => ({ ...e, fields: { ...e.fields, [field]: undefined } }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const fields: Partial<Record<Field, string>> = {};
    if (!email.trim()) fields.email = "An e-mail address is required";
    else if (!looksLikeEmail(email)) fields.email = "This does not look like an e-mail address";
    if (mode === "password" && password.length < MIN_PASSWORD) fields.password = `At least ${MIN_PASSWORD} characters`;
    setErrors({ fields, other: null });
    if (Object.keys(fields).length) return;
    const team = teamId ? { teamId, teamRole: teamRole ?? role } : {};
    const common = { email: email.trim(), name: name.trim() || undefined, role, ...team };
    if (mode === "invite") invite.mutate(common);
    else create.mutate({ ...common, password });
  }

  const fieldError = (f: Field) => (errors.fields[f] ? <FieldError message={errors.fields[f]} testId={`invite-${f}-error`} /> : null);

  if (invited) {
    return (
      <div className="dialog-form">
        <div className="dialog-header">
          <div>
            <h2 id="invite-dialog-title">Invitation for {invited.email}</h2>
            <p>They choose their name and password when they open it.</p>
          </div>
        </div>
        <div className="dialog-body">
          <LinkReveal url={invited.url} expiresAt={invited.expiresAt} email={invited.email} label="Invitation link" />
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={onClose} data-testid="invite-done">
            I have copied it
          </button>
        </div>
      </div>
    );
  }

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="invite-form">
      <div className="dialog-header">
        <div>
          <h2 id="invite-dialog-title">Invite person</h2>
          <p>
            {mode === "invite"
              ? "Rein makes a link that works once, for 7 days; you send it."
              : "The account works at once; tell them the password."}
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <Tabs
          tabs={[
            { id: "invite", label: "Invite with a link", testId: "invite-mode-link" },
            { id: "password", label: "Add with a password", testId: "invite-mode-password" },
          ]}
          active={mode}
          onSelect={setMode}
          label="How to add them"
          className={styles.tabs}
          tabClassName={styles.tab}
        />
        <div className="row" style={{ gap: 12, alignItems: "flex-start" }}>
          <div className="field" style={{ flex: 1.3 }}>
            <label htmlFor={`${id}-email`}>E-mail</label>
            <input
              id={`${id}-email`}
              className="input"
              type="email"
              autoComplete="off"
              autoFocus
              value={email}
              spellCheck={false}
              onChange={(e) => {
                setEmail(e.target.value);
                clearError("email");
              }}
              aria-invalid={errors.fields.email ? true : undefined}
              data-testid="invite-email"
            />
            {fieldError("email")}
          </div>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor={`${id}-name`}>Name (optional)</label>
            <input
              id={`${id}-name`}
              className="input"
              autoComplete="off"
              maxLength={100}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                clearError("name");
              }}
              aria-invalid={errors.fields.name ? true : undefined}
              data-testid="invite-name"
            />
            {fieldError("name") ?? (mode === "invite" && <span className="hint">They can change it when they accept.</span>)}
          </div>
        </div>
        {mode === "password" && (
          <div className="field">
            <label htmlFor={`${id}-password`}>Password</label>
            <input
              id={`${id}-password`}
              className="input"
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => {
                setPassword(e.target.value);
                clearError("password");
              }}
              aria-invalid={errors.fields.password ? true : undefined}
              data-testid="invite-password"
            />
            {fieldError("password") ?? (
              <span className="hint">
                At least {MIN_PASSWORD} characters. You can send them a reset link later so they choose their own.
              </span>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor={`${id}-role`}>Role</label>
          <select
            id={`${id}-role`}
            className="select"
            value={role}
            onChange={(e) => {
              setRole(e.target.value as Role);
              clearError("role");
            }}
            data-testid="invite-role"
          >
            <RoleOptions hints />
          </select>
          {fieldError("role") ?? <span className="hint">The least they have everywhere; a team can give them more.</span>}
        </div>
        <div className="row" style={{ gap: 12, alignItems: "flex-start" }}>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor={`${id}-team`}>Team (optional)</label>
            <select
              id={`${id}-team`}
              className="select"
              value={teamId}
              onChange={(e) => {
                setTeamId(e.target.value);
                clearError("teamId");
              }}
              disabled={teams.isLoading}
              data-testid="invite-team"
            >
              <option value="">{teams.isLoading ? "Loading teams…" : "No team"}</option>
              {openTeams.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
            {fieldError("teamId") ?? (teams.isError ? <FieldError message="Could not load the teams" /> : null)}
          </div>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor={`${id}-team-role`}>Role in the team</label>
            <select
              id={`${id}-team-role`}
              className="select"
              value={teamRole ?? role}
              disabled={!teamId}
              onChange={(e) => {
                setTeamRole(e.target.value as Role);
                clearError("teamRole");
              }}
              data-testid="invite-team-role"
            >
              <RoleOptions />
            </select>
            {fieldError("teamRole")}
          </div>
        </div>
        <ErrorBlock message={errors.other} testId="invite-form-error" />
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to {mode === "invite" ? "create the link" : "add"} · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="invite-submit">
          {busy && <span className="spinner" aria-hidden="true" />}
          {mode === "invite" ? "Create invitation link" : "Add person"}
        </button>
      </div>
    </form>
  );
}
