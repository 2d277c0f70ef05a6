"use client";
// Settings › Channels › Slack (admins): Slack on or off, the two Rein secrets
// it reads by name (the bot token and the signing secret), the channel each
// team's requests are posted to, a connection test, and who is who between
// Slack and Rein (synced by e-mail, editable by hand).
import Link from "next/link";
import { useEffect, useId, useState, type FormEvent } from "react";
import { EmptyState, ErrorBlock, ErrorState, FieldError, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { trpc, type RouterOutputs } from "@/lib/trpc";

const FIELDS = ["botTokenSecret", "signingSecretSecret", "defaultChannels"] as const;
type Field = (typeof FIELDS)[number];
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };
type View = RouterOutputs["slack"]["settings"];

interface Draft {
  enabled: boolean;
  botTokenSecret: string;
  signingSecretSecret: string;
  /** Team id, or "*" for every other team → channel id. */
  channels: Record<string, string>;
}

const draftOf = (v: View): Draft => ({
  enabled: v.enabled,
  botTokenSecret: v.botTokenSecret,
  signingSecretSecret: v.signingSecretSecret,
  channels: { ...v.defaultChannels },
});

/** The Slack tab of Settings › Channels; it needs the admin role (the server checks again). */
export function SlackSettings() {
  const settings = trpc.slack.settings.useQuery();
  if (settings.isLoading) return <SkeletonRows rows={5} columns={2} />;
  if (settings.isError || !settings.data) {
    return (
      <ErrorState
        title="Could not load the Slack settings"
        message={settings.error ? errorMessage(settings.error) : "No data"}
        onRetry={() => settings.refetch()}
      />
    );
  }
  return (
    <div className="stack" style={{ gap: 16 }} data-testid="slack-settings">
      <SlackForm view={settings.data} />
      <SlackPeople enabled={settings.data.enabled} />
    </div>
  );
}

function SlackForm({ view }: { view: View }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState<Draft>(() => draftOf(view));
  const [errors, setErrors] = useState(NO_ERRORS);
  const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
  const viewKey = JSON.stringify(view);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the saved content: a refetch of the same settings keeps the edits
  useEffect(() => setDraft(draftOf(view)), [viewKey]);
  const teams = trpc.teams.list.useQuery();
  const secrets = trpc.secrets.names.useQuery();
  const save = trpc.slack.saveSettings.useMutation({
    onSuccess: (s) => {
      setErrors(NO_ERRORS);
      setNotice({
        ok: true,
        message: s.enabled
          ? "Saved. New human requests are posted to Slack."
          : "Saved. Slack is switched off: nothing is posted, and clicks are refused.",
      });
      void utils.slack.settings.invalidate();
    },
    onError: (err) => setErrors(errorsOf(err, FIELDS)),
  });
  const test = trpc.slack.testConnection.useMutation({
    onSuccess: (r) => setNotice({ ok: r.ok, message: r.message }),
    onError: (err) => setNotice({ ok: false, message: errorMessage(err) }),
  });
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(view));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setNotice(null);
  };
  const setChannel = (team: string, channel: string) => set("channels", { ...draft.channels, [team]: channel });

  function submit(e: FormEvent) {
    e.preventDefault();
    setNotice(null);
    const defaultChannels = Object.fromEntries(
      Object.entries(draft.channels)
        .map(([k, v]) => [k, v.trim()])
        .filter(([, v]) => v),
    );
    save.mutate({
      enabled: draft.enabled,
      botTokenSecret: draft.botTokenSecret.trim(),
      signingSecretSecret: draft.signingSecretSecret.trim(),
      defaultChannels,
    });
  }

  const secretField = (name: "botTokenSecret" | "signingSecretSecret", label: string, stored: boolean, hint: string) => (
    <div className="field" style={{ flex: "1 1 260px" }}>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input
        id={`${id}-${name}`}
        className="input mono"
        list={`${id}-secrets`}
        value={draft[name]}
        onChange={(e) => set(name, e.target.value)}
        aria-invalid={errors.fields[name] ? true : undefined}
        aria-describedby={`${id}-${name}-note`}
        autoComplete="off"
        data-testid={`slack-${name}`}
      />
      {errors.fields[name] ? (
        <FieldError id={`${id}-${name}-note`} message={errors.fields[name]} live />
      ) : (
        <span id={`${id}-${name}-note`} className="hint">
          {hint}{" "}
          {draft[name] === view[name] &&
            (stored ? (
              <span className="badge status-succeeded">stored</span>
            ) : (
              <span className="badge status-failed" data-testid={`slack-${name}-missing`}>
                no such secret yet
              </span>
            ))}
        </span>
      )}
    </div>
  );

  return (
    <form className="card card-body stack" onSubmit={submit} noValidate data-testid="slack-settings-form">
      <h2>Slack</h2>
      <p className="muted small" style={{ margin: 0 }}>
        Each new human request is posted to its team&apos;s channel with buttons; a click decides it as the Inbox would, and every copy says
        who decided. Slack must reach <code>/api/channels/slack/actions</code> on this server (the app&apos;s Interactivity Request URL).
        The step-by-step set-up is in the Channels documentation.
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled", e.target.checked)} data-testid="slack-enabled" />
        Post human requests to Slack and take clicks on their buttons
      </label>
      <div className="row" style={{ gap: 12, alignItems: "flex-start", flexWrap: "wrap" }}>
        {secretField("botTokenSecret", "Bot token secret", view.stored.botToken, "The Rein secret holding the xoxb- token.")}
        {secretField(
          "signingSecretSecret",
          "Signing secret secret",
          view.stored.signingSecret,
          "The Rein secret holding the app's signing secret.",
        )}
      </div>
      <datalist id={`${id}-secrets`}>
        {(secrets.data ?? []).map((s) => (
          <option key={s.name} value={s.name} />
        ))}
      </datalist>
      <p className="small muted" style={{ margin: 0 }}>
        Create both in <Link href="/settings/secrets">Settings › Secrets</Link>; Rein keeps only their names here.
      </p>
      <fieldset className="stack" style={{ gap: 8, border: 0, padding: 0, margin: 0 }}>
        <legend className="small" style={{ fontWeight: 600, marginBottom: 4 }}>
          Channels
        </legend>
        <span className="hint">A channel id such as C0123ABCD (Channel details › About). Invite the app to it with /invite.</span>
        {[{ id: "*", name: "Every other team" }, ...(teams.data ?? []).filter((t) => !t.archivedAt)].map((t) => (
          <div key={t.id} className="row" style={{ gap: 8, alignItems: "center" }}>
            <label htmlFor={`${id}-ch-${t.id}`} style={{ width: 200 }}>
              {t.name}
            </label>
            <input
              id={`${id}-ch-${t.id}`}
              className="input mono"
              style={{ maxWidth: 220 }}
              value={draft.channels[t.id] ?? ""}
              onChange={(e) => setChannel(t.id, e.target.value)}
              placeholder={t.id === "*" ? "none" : "as every other team"}
              data-testid="slack-channel"
              data-team={t.id}
            />
          </div>
        ))}
        <FieldError message={errors.fields.defaultChannels} live />
      </fieldset>
      <ErrorBlock message={errors.other} />
      {notice && (
        <div
          className={`alert ${notice.ok ? "alert-success" : "alert-error"}`}
          role={notice.ok ? "status" : "alert"}
          data-testid="slack-notice"
        >
          {notice.message}
        </div>
      )}
      <div className="row" style={{ gap: 8 }}>
        <button type="submit" className="btn btn-primary" disabled={save.isPending || !dirty} data-testid="slack-save">
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={dirty || test.isPending}
          title={dirty ? "Save first; the test uses the saved settings" : undefined}
          onClick={() => {
            // The last answer is stale once a new test starts.
            setNotice(null);
            test.mutate();
          }}
          data-testid="slack-test"
        >
          {test.isPending && <span className="spinner" aria-hidden="true" />}
          {test.isPending ? "Testing…" : "Test connection"}
        </button>
      </div>
    </form>
  );
}

function SlackPeople({ enabled }: { enabled: boolean }) {
  const utils = trpc.useUtils();
  const users = trpc.slack.users.useQuery();
  const people = trpc.users.list.useQuery();
  const [notice, setNotice] = useState<{ ok: boolean; message: string } | null>(null);
  const sync = trpc.slack.sync.useMutation({
    onSuccess: (r) => {
      setNotice({
        ok: true,
        message: `Read ${r.seen} Slack member(s): ${r.mapped} linked by e-mail, ${r.unmatched} with no Rein account of the same e-mail.`,
      });
      void utils.slack.users.invalidate();
    },
    onError: (err) => setNotice({ ok: false, message: errorMessage(err) }),
  });
  const setMapping = trpc.slack.setMapping.useMutation({
    onSuccess: () => void utils.slack.users.invalidate(),
    onError: (err) => setNotice({ ok: false, message: errorMessage(err) }),
  });
  const rows = users.data ?? [];
  return (
    <div className="card" data-testid="slack-people">
      <div className="card-header">
        <h2>People</h2>
        <button
          type="button"
          className="btn btn-sm"
          style={{ marginLeft: "auto" }}
          onClick={() => sync.mutate()}
          disabled={sync.isPending || !enabled}
          title={enabled ? undefined : "Turn Slack on and save first"}
          data-testid="slack-sync"
        >
          {sync.isPending ? "Reading Slack…" : "Sync from Slack"}
        </button>
      </div>
      {notice && (
        <div
          className={`alert ${notice.ok ? "alert-success" : "alert-error"}`}
          style={{ margin: 12 }}
          role={notice.ok ? "status" : "alert"}
          data-testid="slack-people-notice"
        >
          {notice.message}
        </div>
      )}
      {users.isLoading ? (
        <SkeletonRows rows={3} columns={3} />
      ) : users.isError ? (
        <ErrorState title="Could not load the Slack people" message={errorMessage(users.error)} onRetry={() => users.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState icon="#" title="Nobody linked yet">
          A click counts only from a Slack member linked to a Rein account. Sync reads your workspace and links each member to the Rein user
          with the same e-mail; anyone left is linked at their first click when their e-mails match.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="slack-people-table">
            <thead>
              <tr>
                <th>Slack member</th>
                <th>E-mail in Slack</th>
                <th>Rein account</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <tr key={u.slackUserId} data-testid="slack-person" data-slack-user={u.slackUserId}>
                  <td>
                    {u.slackName ?? "—"} <span className="mono small muted">{u.slackUserId}</span>
                  </td>
                  <td>{u.email ?? "—"}</td>
                  <td>
                    <select
                      className="input"
                      aria-label={`Rein account of ${u.slackName ?? u.slackUserId}`}
                      value={u.user?.id ?? ""}
                      onChange={(e) => setMapping.mutate({ slackUserId: u.slackUserId, userId: e.target.value || null })}
                      disabled={setMapping.isPending}
                    >
                      <option value="">Not linked</option>
                      {(people.data ?? []).map((p) => (
                        <option key={p.id} value={p.id}>
                          {p.name} ({p.email})
                        </option>
                      ))}
                    </select>
                    {u.manual && <span className="small muted"> set by an admin</span>}
                    {u.user?.disabled && <span className="badge status-failed">disabled</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
