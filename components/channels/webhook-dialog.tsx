"use client";
// Add a webhook, or edit one (admins): its URL, what it is for, the event
// types it receives (or all of them) and whose runs (every team or one). The
// server's problems appear beside the field they are about.
import { useId, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, ErrorBlock, FieldError } from "@/components/ui";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";
import styles from "./channels.module.css";
import type { Endpoint } from "./format";

const FIELDS = ["url", "description", "eventTypes", "teamId"] as const;
type Field = (typeof FIELDS)[number];
const ALL = "*";

export function WebhookDialog({
  open,
  endpoint,
  onClose,
  onSaved,
}: {
  open: boolean;
  endpoint?: Endpoint;
  onClose(): void;
  onSaved(result: { endpoint: Endpoint; secret?: string }): void;
}) {
  return (
    <Dialog open={open} onClose={onClose} labelledBy="webhook-form-title" testId="webhook-dialog">
      <WebhookForm endpoint={endpoint} onClose={onClose} onSaved={onSaved} />
    </Dialog>
  );
}

function WebhookForm({
  endpoint,
  onClose,
  onSaved,
}: {
  endpoint?: Endpoint;
  onClose(): void;
  onSaved(result: { endpoint: Endpoint; secret?: string }): void;
}) {
  const id = useId();
  const utils = trpc.useUtils();
  const types = trpc.webhooks.eventTypes.useQuery(undefined, { staleTime: Infinity });
  const teams = trpc.teams.list.useQuery(undefined, { staleTime: 30_000 });
  const [url, setUrl] = useState(endpoint?.url ?? "");
  const [description, setDescription] = useState(endpoint?.description ?? "");
  const [chosen, setChosen] = useState<string[]>(endpoint?.eventTypes ?? []);
  const [teamId, setTeamId] = useState(endpoint?.teamId ?? "");
  const [errors, setErrors] = useState<FieldErrors<Field>>({ fields: {}, other: null });
  const done = (result: { endpoint: Endpoint; secret?: string }) => {
    void utils.webhooks.list.invalidate();
    utils.webhooks.get.setData({ id: result.endpoint.id }, result.endpoint);
    onSaved(result);
  };
  const onError = (err: unknown) => setErrors(errorsOf(err, FIELDS));
  const create = trpc.webhooks.create.useMutation({ onSuccess: (r) => done(r), onError });
  const update = trpc.webhooks.update.useMutation({ onSuccess: (e) => done({ endpoint: e }), onError });
  const busy = create.isPending || update.isPending;
  const all = chosen.includes(ALL);

  function toggle(type: string, on: boolean) {
    setChosen((c) => (on ? [...c.filter((t) => t !== type), type] : c.filter((t) => t !== type)));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const fields: Partial<Record<Field, string>> = {};
    if (!url.trim()) fields.url = "A URL is required";
    if (chosen.length === 0) fields.eventTypes = "Choose at least one event type, or all events";
    setErrors({ fields, other: null });
    if (Object.keys(fields).length) return;
    const data = { url: url.trim(), description: description.trim(), eventTypes: all ? [ALL] : chosen, teamId: teamId || null };
    if (endpoint) update.mutate({ id: endpoint.id, patch: data });
    else create.mutate(data);
  }

  const help = (f: Field, hint: string) =>
    errors.fields[f] ? (
      <FieldError id={`${id}-${f}-help`} message={errors.fields[f]} testId={`webhook-${f}-error`} live />
    ) : (
      <span className="hint" id={`${id}-${f}-help`}>
        {hint}
      </span>
    );
  const described = (f: Field) => ({
    id: `${id}-${f}`,
    "aria-invalid": errors.fields[f] ? true : undefined,
    "aria-describedby": `${id}-${f}-help`,
  });

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="webhook-form">
      <div className="dialog-header">
        <div>
          <h2 id="webhook-form-title">{endpoint ? "Edit the webhook" : "Add a webhook"}</h2>
          <p>Rein sends each chosen event to this URL as a signed JSON POST, and retries until it answers 2xx.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-url`}>URL</label>
          <input
            className="input mono"
            type="url"
            placeholder="https://hooks.example.com/rein"
            spellCheck={false}
            autoComplete="off"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            data-autofocus
            data-testid="webhook-url"
            {...described("url")}
          />
          {help("url", "A public https address; a host inside your network must be allowed under Allowed private hosts first.")}
        </div>
        <div className="field">
          <label htmlFor={`${id}-description`}>Description</label>
          <input
            className="input"
            placeholder="e.g. Deploy bot in #ops"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={300}
            data-testid="webhook-description"
            {...described("description")}
          />
          {help("description", "Optional: what receives it, for the people who read this list later.")}
        </div>
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }} aria-describedby={`${id}-eventTypes-help`}>
          <legend className="label">Events</legend>
          <div className={styles.typeList} data-testid="webhook-event-types">
            <label className={styles.typeItem}>
              <input
                type="checkbox"
                className="checkbox"
                checked={all}
                onChange={(e) => setChosen(e.target.checked ? [ALL] : [])}
                data-testid="webhook-type-all"
              />
              <span>
                <strong>All events</strong>
                <span className="small muted"> — including types added in later versions</span>
              </span>
            </label>
            {types.isLoading && <span className="small muted">Loading the event types…</span>}
            {types.isError && <FieldError message="Could not load the event types; close and try again." />}
            {types.data?.map((t) => (
              <label key={t.type} className={styles.typeItem}>
                <input
                  type="checkbox"
                  className="checkbox"
                  checked={all || chosen.includes(t.type)}
                  disabled={all}
                  onChange={(e) => toggle(t.type, e.target.checked)}
                  data-testid={`webhook-type-${t.type}`}
                />
                <span>
                  <code>{t.type}</code>
                  <span className="small muted"> — {t.label}</span>
                </span>
              </label>
            ))}
          </div>
          {help("eventTypes", "Each event is sent once per webhook that chose it.")}
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-teamId`}>Runs of</label>
          <select
            className="select"
            value={teamId}
            onChange={(e) => setTeamId(e.target.value)}
            data-testid="webhook-team"
            {...described("teamId")}
          >
            <option value="">Every team</option>
            {teams.data
              ?.filter((t) => !t.archivedAt || t.id === teamId)
              .map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
          </select>
          {help("teamId", "Only events of this team's runs, or of every team's.")}
        </div>
        <ErrorBlock message={errors.other} testId="webhook-form-error" />
      </div>
      <DialogFooter
        onClose={onClose}
        busy={busy}
        label={endpoint ? "Save" : "Add webhook"}
        busyLabel={endpoint ? "Saving…" : "Adding…"}
        testId="webhook-submit"
      />
    </form>
  );
}
