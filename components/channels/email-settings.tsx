"use client";
// Settings › Channels › E-mail (admins): the SMTP server Rein mails human
// requests through, and a test mail to the admin's own address. The password
// is the name of a Rein secret (Settings › Secrets), never a value typed here.
import Link from "next/link";
import { useEffect, useId, useState, type FormEvent, type ReactNode } from "react";
import { EmptyState, ErrorBlock, ErrorState, FieldError, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { trpc, type RouterOutputs } from "@/lib/trpc";

const FIELDS = ["host", "port", "security", "user", "passwordSecret", "from"] as const;
type Field = (typeof FIELDS)[number];
type Security = "tls" | "starttls" | "none";
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };

const SECURITY: Array<{ value: Security; label: string; port: number }> = [
  { value: "starttls", label: "STARTTLS (usually port 587)", port: 587 },
  { value: "tls", label: "TLS from the start (usually port 465)", port: 465 },
  { value: "none", label: "None: plain text (a local relay only)", port: 25 },
];

type Saved = NonNullable<RouterOutputs["email"]["get"]["settings"]>;

interface Draft {
  enabled: boolean;
  host: string;
  port: string;
  security: Security;
  user: string;
  passwordSecret: string;
  from: string;
}

const draftOf = (s: Saved | null): Draft => ({
  enabled: s?.enabled ?? true,
  host: s?.host ?? "",
  port: String(s?.port ?? 587),
  security: s?.security ?? "starttls",
  user: s?.user ?? "",
  passwordSecret: s?.passwordSecret ?? "",
  from: s?.from ?? "",
});

/** The E-mail tab of Settings › Channels; it needs the admin role (the server checks again). */
export function EmailSettings() {
  const current = trpc.email.get.useQuery();
  const [starting, setStarting] = useState(false);
  if (current.isLoading) return <SkeletonRows rows={5} columns={2} />;
  if (current.isError || !current.data) {
    return (
      <ErrorState
        title="Could not load the e-mail settings"
        message={current.error ? errorMessage(current.error) : "No data"}
        onRetry={() => current.refetch()}
      />
    );
  }
  const { settings, testTo } = current.data;
  if (!settings && !starting) {
    return (
      <EmptyState
        icon="✉"
        title="E-mail is not set up"
        action={
          <button type="button" className="btn btn-primary" onClick={() => setStarting(true)} data-testid="email-set-up">
            Set up e-mail
          </button>
        }
      >
        When a run waits for a person, Rein can mail each approver a link that opens the request after they log in; the link works once.
        Escalations mail the team&apos;s level-2 approvers and then the on-call admins. Each person chooses in their profile which requests
        reach them. Give Rein an SMTP server to send through.
      </EmptyState>
    );
  }
  return <EmailForm saved={settings} testTo={testTo} />;
}

function EmailForm({ saved, testTo }: { saved: Saved | null; testTo: string }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState<Draft>(() => draftOf(saved));
  const [errors, setErrors] = useState(NO_ERRORS);
  const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
  const savedKey = JSON.stringify(saved);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the saved content: a refetch of the same settings keeps the edits
  useEffect(() => setDraft(draftOf(saved)), [savedKey]);
  const secrets = trpc.secrets.names.useQuery();
  const save = trpc.email.save.useMutation({
    onSuccess: (s) => {
      setErrors(NO_ERRORS);
      setNotice({
        ok: true,
        message: s.enabled ? "Saved. Approvers are mailed about new requests." : "Saved. E-mail is switched off: nothing is mailed.",
      });
      void utils.email.get.invalidate();
    },
    onError: (err) => setErrors(errorsOf(err, FIELDS)),
  });
  const test = trpc.email.sendTest.useMutation({
    onSuccess: (r) => setNotice({ ok: r.ok, message: r.message }),
    onError: (err) => setNotice({ ok: false, message: errorMessage(err) }),
  });
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(saved));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setNotice(null);
    if (key in errors.fields) setErrors((e) => ({ ...e, fields: { ...e.fields, [key]: undefined } }));
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    setNotice(null);
    const port = Number(draft.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      setErrors({ fields: { port: "A port from 1 to 65535" }, other: null });
      return;
    }
    save.mutate({
      enabled: draft.enabled,
      host: draft.host.trim(),
      port,
      security: draft.security,
      user: draft.user.trim() || undefined,
      passwordSecret: draft.passwordSecret.trim() || undefined,
      from: draft.from.trim(),
    });
  }

  const field = (name: Field) => ({
    id: `${id}-${name}`,
    "aria-invalid": errors.fields[name] ? true : undefined,
    "aria-describedby": `${id}-${name}-note`,
  });
  const problem = (name: Field, hint?: ReactNode) =>
    errors.fields[name] ? (
      <FieldError id={`${id}-${name}-note`} message={errors.fields[name]} live />
    ) : (
      <span id={`${id}-${name}-note`} className="hint">
        {hint}
      </span>
    );

  return (
    <form className="card card-body stack" onSubmit={submit} data-testid="email-settings-form" noValidate>
      <h2>E-mail</h2>
      <p className="muted small" style={{ margin: 0 }}>
        Approvers get a mail for each human request with their own link that works once. People choose in their profile which requests reach
        them.
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled", e.target.checked)} data-testid="email-enabled" />
        Mail human requests to approvers
      </label>
      <div className="row" style={{ gap: 12, alignItems: "flex-start", flexWrap: "wrap" }}>
        <div className="field" style={{ flex: "2 1 240px" }}>
          <label htmlFor={`${id}-host`}>SMTP server</label>
          <input
            {...field("host")}
            className="input"
            value={draft.host}
            onChange={(e) => set("host", e.target.value)}
            placeholder="smtp.example.com"
            autoComplete="off"
            data-testid="email-host"
          />
          {problem("host", "The host name, without smtp:// or a port")}
        </div>
        <div className="field" style={{ flex: "0 1 110px" }}>
          <label htmlFor={`${id}-port`}>Port</label>
          <input
            {...field("port")}
            className="input"
            inputMode="numeric"
            value={draft.port}
            onChange={(e) => set("port", e.target.value)}
            data-testid="email-port"
          />
          {problem("port")}
        </div>
        <div className="field" style={{ flex: "1 1 240px" }}>
          <label htmlFor={`${id}-security`}>Security</label>
          <select
            {...field("security")}
            className="input"
            value={draft.security}
            onChange={(e) => {
              const next = e.target.value as Security;
              const known = SECURITY.map((s) => String(s.port));
              set("security", next);
              // Follow the usual port for the security chosen, unless a port of one's own was typed.
              if (known.includes(draft.port))
                setDraft((d) => ({ ...d, security: next, port: String(SECURITY.find((s) => s.value === next)!.port) }));
            }}
            data-testid="email-security"
          >
            {SECURITY.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
          {problem("security")}
        </div>
      </div>
      <div className="row" style={{ gap: 12, alignItems: "flex-start", flexWrap: "wrap" }}>
        <div className="field" style={{ flex: "1 1 240px" }}>
          <label htmlFor={`${id}-user`}>User (optional)</label>
          <input
            {...field("user")}
            className="input"
            value={draft.user}
            onChange={(e) => set("user", e.target.value)}
            autoComplete="off"
            data-testid="email-user"
          />
          {problem("user", "Leave empty when the server needs no login")}
        </div>
        <div className="field" style={{ flex: "1 1 240px" }}>
          <label htmlFor={`${id}-passwordSecret`}>Password secret (optional)</label>
          <input
            {...field("passwordSecret")}
            className="input mono"
            list={`${id}-secrets`}
            value={draft.passwordSecret}
            onChange={(e) => set("passwordSecret", e.target.value)}
            placeholder="SMTP_PASSWORD"
            autoComplete="off"
            data-testid="email-password-secret"
          />
          <datalist id={`${id}-secrets`}>
            {(secrets.data ?? []).map((s) => (
              <option key={s.name} value={s.name} />
            ))}
          </datalist>
          {problem(
            "passwordSecret",
            <>
              The name of a Rein secret holding the password, not the password itself. Create it in{" "}
              <Link href="/settings/secrets">Settings › Secrets</Link>.
            </>,
          )}
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          {...field("from")}
          className="input"
          value={draft.from}
          onChange={(e) => set("from", e.target.value)}
          placeholder="Rein <rein@example.com>"
          data-testid="email-from"
        />
        {problem("from", "The sender approvers see; the server must allow it")}
      </div>
      <ErrorBlock message={errors.other} />
      {notice && (
        <div
          className={`alert ${notice.ok ? "alert-success" : "alert-error"}`}
          role={notice.ok ? "status" : "alert"}
          data-testid="email-notice"
        >
          {notice.message}
        </div>
      )}
      <div className="row" style={{ gap: 8, flexWrap: "wrap" }}>
        <button type="submit" className="btn btn-primary" disabled={save.isPending || (!dirty && !!saved)} data-testid="email-save">
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!saved || dirty || test.isPending}
          title={!saved || dirty ? "Save the settings first; the test uses the saved ones" : `Sends a mail to ${testTo}`}
          onClick={() => {
            setNotice(null);
            test.mutate();
          }}
          data-testid="email-send-test"
        >
          {test.isPending ? "Sending…" : "Send a test mail"}
        </button>
        <span className="muted small">The test mail goes to {testTo}.</span>
      </div>
    </form>
  );
}
