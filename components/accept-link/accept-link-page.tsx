"use client";
// /invite?token=… and /reset?token=…: public pages (no session) where an
// invited person creates their account, or someone sets a new password with
// a reset link. Opening checks the link without using it; the form uses it
// once. A used, expired, revoked or broken link gets a page saying what to do.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { ErrorBlock, FieldError, Skeleton } from "@/components/ui";
import { Wordmark } from "@/components/top-nav";
import { errorCode, errorMessage } from "@/lib/errors";
import { errorsOf } from "@/lib/field-errors";
import { formatDateTime } from "@/lib/format";
import { MIN_PASSWORD, linkRefusalTitle, passwordProblems } from "@/lib/people";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type Inspected = RouterOutputs["invitations"]["inspect"];
type Kind = Inspected["kind"];

function Shell({ children }: { children: ReactNode }) {
  return (
    <div className="login-page">
      <div className="card login-card" style={{ width: "min(460px, 100%)" }}>
        <Wordmark />
        {children}
      </div>
    </div>
  );
}

function loginHref(email: string): string {
  return `/login?email=${encodeURIComponent(email)}`;
}

function Refusal({ kind, title, message }: { kind: Kind; title: string; message: string }) {
  return (
    <div className="stack" role="alert" data-testid="link-refusal">
      <h1 data-testid="link-refusal-title">{title}</h1>
      <p className="muted" data-testid="link-refusal-message">
        {/[.!?]$/.test(message) ? message : `${message}.`}
      </p>
      <p>
        {kind === "invite"
          ? "Ask your admin for a new link. If you already set up your account, log in instead."
          : "Ask your admin for a new link. If you remember your password, log in instead."}
      </p>
      <div>
        <Link href="/login" className="btn">
          Log in
        </Link>
      </div>
    </div>
  );
}

export function AcceptLinkPage({ kind }: { kind: Kind }) {
  const token = useSearchParams().get("token") ?? "";
  // Checked once: refetching after the link was used would only say so.
  const inspect = trpc.invitations.inspect.useQuery(
    { token },
    { enabled: !!token, retry: false, staleTime: Infinity, refetchOnReconnect: false },
  );
  const [done, setDone] = useState<{ email: string; kind: Kind } | null>(null);

  if (!token) {
    return (
      <Shell>
        <Refusal
          kind={kind}
          title="This link is incomplete"
          message="The address has no token. Open the whole link you were sent; some mail programs break long links in two."
        />
      </Shell>
    );
  }
  if (done) {
    return (
      <Shell>
        <div className="stack" role="status" data-testid="accept-done">
          <h1>{done.kind === "invite" ? "Your account is ready" : "Your password is set"}</h1>
          <p className="muted">
            {done.kind === "invite"
              ? `Log in as ${done.email} with the password you just chose.`
              : `Log in as ${done.email} with your new password. Everywhere else you were logged in, you have been logged out.`}
          </p>
          <Link
            href={loginHref(done.email)}
            className="btn btn-primary"
            style={{ height: 38, justifyContent: "center" }}
            data-testid="accept-login"
          >
            Log in
          </Link>
        </div>
      </Shell>
    );
  }
  if (inspect.isLoading) {
    return (
      <Shell>
        <div className="stack" aria-busy="true">
          <Skeleton width={220} height={24} />
          <Skeleton height={14} />
          <Skeleton height={34} />
          <Skeleton height={34} />
        </div>
      </Shell>
    );
  }
  if (inspect.isError || !inspect.data) {
    const message = inspect.error ? errorMessage(inspect.error) : "The link could not be checked.";
    return (
      <Shell>
        <Refusal kind={kind} title={linkRefusalTitle(inspect.error ? errorCode(inspect.error) : undefined, message)} message={message} />
      </Shell>
    );
  }
  return (
    <Shell>
      <AcceptForm token={token} link={inspect.data} onDone={setDone} />
    </Shell>
  );
}

const FIELDS = ["name", "password", "confirm"] as const;
type Field = (typeof FIELDS)[number];

function AcceptForm({ token, link, onDone }: { token: string; link: Inspected; onDone(done: { email: string; kind: Kind }): void }) {
  const id = useId();
  const invite = link.kind === "invite";
  const [name, setName] = useState(link.name ?? "");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [other, setOther] = useState<{ code: string | undefined; message: string } | null>(null);
  const accept = trpc.invitations.accept.useMutation({
    onSuccess: (r) => onDone({ email: r.email, kind: link.kind }),
    onError: (err) => {
      const e = errorsOf(err, FIELDS);
      setErrors(e.fields);
      setOther(e.other ? { code: errorCode(err), message: e.other } : null);
    },
  });

  // The link was used up or withdrawn while the form was open: the refusal page, not a line in the form.
  if (other && (other.code === "CONFLICT" || other.code === "NOT_FOUND")) {
    return <Refusal kind={link.kind} title={linkRefusalTitle(other.code, other.message)} message={other.message} />;
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (accept.isPending) return;
    const problems: Partial<Record<Field, string>> = passwordProblems({ password, confirm });
    if (invite && name.trim().length > 100) problems.name = "At most 100 characters";
    setErrors(problems);
    setOther(null);
    if (Object.keys(problems).length) return;
    accept.mutate({ token, password, ...(invite && name.trim() ? { name: name.trim() } : {}) });
  }

  const fieldError = (f: Field) =>
    errors[f] ? <FieldError id={`${id}-${f}-error`} message={errors[f]} testId={`accept-${f}-error`} /> : null;

  return (
    <form className="stack" style={{ gap: 18 }} onSubmit={submit} noValidate data-testid="accept-form" aria-labelledby={`${id}-title`}>
      <div>
        <h1 id={`${id}-title`}>{invite ? "Join Rein" : "Choose a new password"}</h1>
        <p className="muted" data-testid="accept-summary">
          {invite ? (
            <>
              {link.invitedBy ? <strong>{link.invitedBy}</strong> : "An admin"} invited <strong>{link.email}</strong> as{" "}
              {/* The role they will have where they look first: in the team, the higher of the team's and their own. */}
              <strong>{link.teamRole ?? link.role}</strong>
              {link.teamName && (
                <>
                  {" "}
                  in the team <strong>{link.teamName}</strong>
                  {link.teamRole && link.teamRole !== link.role && (
                    <>
                      {" "}
                      (<strong>{link.role}</strong> elsewhere)
                    </>
                  )}
                </>
              )}
              .
            </>
          ) : (
            <>
              For <strong>{link.email}</strong>
              {link.invitedBy && <>, made by {link.invitedBy}</>}.
            </>
          )}{" "}
          The link works once, until {formatDateTime(link.expiresAt)}.
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-email`}>Email</label>
        <input
          id={`${id}-email`}
          className="input"
          type="email"
          value={link.email}
          readOnly
          autoComplete="username"
          data-testid="accept-email"
        />
      </div>
      {invite && (
        <div className="field">
          <label htmlFor={`${id}-name`}>Your name</label>
          <input
            id={`${id}-name`}
            className="input"
            autoComplete="name"
            maxLength={100}
            value={name}
            autoFocus
            onChange={(e) => {
              setName(e.target.value);
              setErrors((x) => ({ ...x, name: undefined }));
            }}
            aria-invalid={errors.name ? true : undefined}
            data-testid="accept-name"
          />
          {fieldError("name") ?? <span className="hint">How others see you in Rein (optional).</span>}
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-password`}>{invite ? "Password" : "New password"}</label>
        <input
          id={`${id}-password`}
          className="input"
          type="password"
          autoComplete="new-password"
          value={password}
          autoFocus={!invite}
          onChange={(e) => {
            setPassword(e.target.value);
            setErrors((x) => ({ ...x, password: undefined }));
          }}
          aria-invalid={errors.password ? true : undefined}
          aria-describedby={errors.password ? `${id}-password-error` : undefined}
          data-testid="accept-password"
        />
        {fieldError("password") ?? <span className="hint">At least {MIN_PASSWORD} characters.</span>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-confirm`}>Password again</label>
        <input
          id={`${id}-confirm`}
          className="input"
          type="password"
          autoComplete="new-password"
          value={confirm}
          onChange={(e) => {
            setConfirm(e.target.value);
            setErrors((x) => ({ ...x, confirm: undefined }));
          }}
          aria-invalid={errors.confirm ? true : undefined}
          aria-describedby={errors.confirm ? `${id}-confirm-error` : undefined}
          data-testid="accept-confirm"
        />
        {fieldError("confirm")}
      </div>
      {other && <ErrorBlock message={other.message} testId="accept-error" />}
      <button type="submit" className="btn btn-primary" disabled={accept.isPending} style={{ height: 38 }} data-testid="accept-submit">
        {accept.isPending && <span className="spinner" aria-hidden="true" />}
        {invite ? "Create my account" : "Set the password"}
      </button>
    </form>
  );
}
