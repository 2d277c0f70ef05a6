"use client";
// Your profile: name, e-mail and role, and which human requests reach you by
// mail (none; every request you may decide; only those escalated to you).
import { useEffect, useId, useState, type FormEvent } from "react";
import { ErrorBlock, ErrorState, SkeletonRows } from "@/components/ui";
import { useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import styles from "./profile.module.css";

type MailChoice = "none" | "decide" | "escalated";

const CHOICES: Array<{ value: MailChoice; label: string; hint: string; saved: string }> = [
  {
    value: "decide",
    label: "Every request I may decide",
    hint: "A mail for each approval, choice, value or veto you have the role to answer, as soon as a run asks.",
    saved: "You will get a mail for every request you may decide.",
  },
  {
    value: "escalated",
    label: "Only requests escalated to me",
    hint: "A mail only when nobody answered in time and the request comes to you as a level-2 approver or as on-call admin.",
    saved: "You will get a mail only when a request escalates to you.",
  },
  {
    value: "none",
    label: "No mail",
    hint: "Requests wait for you in the Inbox only. Nothing is sent to your address.",
    saved: "You will get no mail about requests; they wait in the Inbox.",
  },
];

export function ProfilePage() {
  const { me, isLoading } = useMe();
  const preference = trpc.identity.mailPreference.useQuery();
  return (
    <div className="page" style={{ maxWidth: 720 }}>
      <div className="page-header">
        <div className="page-title-block">
          <h1>Your profile</h1>
          <p>Who you are in Rein, and how Rein reaches you when a run waits for a person.</p>
        </div>
      </div>
      {isLoading || preference.isLoading ? (
        <SkeletonRows rows={4} columns={2} />
      ) : !me ? (
        <ErrorState title="Could not load your profile" message="Your account could not be read. Log in again, then try again." />
      ) : preference.isError || !preference.data ? (
        <ErrorState
          title="Could not load your e-mail choice"
          message={preference.error ? errorMessage(preference.error) : "No data"}
          onRetry={() => preference.refetch()}
        />
      ) : (
        <div className="stack" style={{ gap: 16 }}>
          <section className="card card-body stack" aria-labelledby="profile-who">
            <h2 id="profile-who">You</h2>
            <dl className={styles.facts}>
              <dt>Name</dt>
              <dd data-testid="profile-name">{me.name || "—"}</dd>
              <dt>E-mail</dt>
              <dd data-testid="profile-email">{me.email}</dd>
              <dt>Role</dt>
              <dd data-testid="profile-role">
                <span className="badge badge-role">{me.role}</span>
                {me.role === "admin" && <span className="muted small"> in every team</span>}
              </dd>
            </dl>
          </section>
          <MailChoiceForm saved={preference.data.mailRequests} email={preference.data.email} />
        </div>
      )}
    </div>
  );
}

function MailChoiceForm({ saved, email }: { saved: MailChoice; email: string }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [choice, setChoice] = useState<MailChoice>(saved);
  const [confirmed, setConfirmed] = useState<MailChoice | null>(null);
  useEffect(() => setChoice(saved), [saved]);
  const save = trpc.identity.setMailPreference.useMutation({
    onSuccess: (r) => {
      setConfirmed(r.mailRequests);
      void utils.identity.mailPreference.invalidate();
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setConfirmed(null);
    save.mutate({ mailRequests: choice });
  }

  const said = CHOICES.find((c) => c.value === confirmed);
  return (
    <form className="card card-body stack" onSubmit={submit} data-testid="mail-choice-form">
      <fieldset className={styles.choices}>
        <legend>E-mail me about human requests</legend>
        <p className="muted small" style={{ margin: "0 0 4px" }}>
          Mails go to {email}. Each has its own link that works once; you log in to answer.
        </p>
        {CHOICES.map((c) => (
          <label key={c.value} className={styles.choice} data-testid={`mail-choice-${c.value}`}>
            <input
              type="radio"
              name={`${id}-mail`}
              value={c.value}
              checked={choice === c.value}
              disabled={save.isPending}
              aria-describedby={`${id}-${c.value}-hint`}
              onChange={() => {
                setChoice(c.value);
                setConfirmed(null);
              }}
            />
            <span className={styles.choiceText}>
              <strong>{c.label}</strong>
              <span id={`${id}-${c.value}-hint`} className={styles.choiceHint}>
                {c.hint}
              </span>
            </span>
          </label>
        ))}
      </fieldset>
      {save.error && <ErrorBlock prefix="Your choice was not saved" error={save.error} />}
      {said && !save.isPending && (
        <div className="alert alert-success" role="status" data-testid="mail-choice-saved">
          Saved. {said.saved}
        </div>
      )}
      <div>
        <button type="submit" className="btn btn-primary" disabled={save.isPending || choice === saved} data-testid="mail-choice-save">
          {save.isPending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
