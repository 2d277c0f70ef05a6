"use client";
// Add or edit a provider: kind, base URL and key, with a Test of the values
// as typed. The saved key never comes back: editing shows it masked and an
// empty field keeps it.
import { useId, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock, FieldError, RequiredMark } from "@/components/ui";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import {
  KIND_ORDER,
  NEW_PROVIDER,
  PROVIDER_FIELDS,
  PROVIDER_KINDS,
  providerDraftOf,
  sameConnection,
  toCreateInput,
  toTestInput,
  toUpdateInput,
  type ProviderDraft,
  type ProviderField,
} from "@/lib/provider-draft";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { TestResultView, type TestResult } from "./test-result";
import styles from "./models.module.css";

export type ProviderView = RouterOutputs["models"]["providers"][number];

const NO_ERRORS: FieldErrors<ProviderField> = { fields: {}, other: null };

export function ProviderDialog({
  open,
  saved,
  onClose,
  onSaved,
}: {
  open: boolean;
  saved: ProviderView | null;
  onClose(): void;
  onSaved(name: string, test: TestResult | null): void;
}) {
  return (
    <Dialog open={open} onClose={onClose} labelledBy="provider-dialog-title" testId="provider-dialog">
      <ProviderForm key={saved?.name ?? "new"} saved={saved} onClose={onClose} onSaved={onSaved} />
    </Dialog>
  );
}

function ProviderForm({
  saved,
  onClose,
  onSaved,
}: {
  saved: ProviderView | null;
  onClose(): void;
  onSaved(name: string, test: TestResult | null): void;
}) {
  const id = useId();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState<ProviderDraft>(saved ? providerDraftOf(saved) : NEW_PROVIDER);
  const [errors, setErrors] = useState(NO_ERRORS);
  const [test, setTest] = useState<{ draft: ProviderDraft; result: TestResult } | null>(null);
  const onError = (err: unknown) => setErrors(errorsOf(err, PROVIDER_FIELDS));
  const done = async (name: string) => {
    await Promise.all([utils.models.providers.invalidate(), utils.models.options.invalidate()]);
    onSaved(name, test && sameConnection(test.draft, draft) ? test.result : null);
  };
  const create = trpc.models.createProvider.useMutation({ onSuccess: (p) => done(p.name), onError });
  const update = trpc.models.updateProvider.useMutation({ onSuccess: (p) => done(p.name), onError });
  const tester = trpc.models.testProvider.useMutation();
  const busy = create.isPending || update.isPending;
  const kind = PROVIDER_KINDS[draft.kind];

  function change(patch: Partial<ProviderDraft>, field?: ProviderField) {
    setDraft((d) => ({ ...d, ...patch }));
    if (field) setErrors((e) => ({ ...e, fields: { ...e.fields, [field]: undefined } }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setErrors(NO_ERRORS);
    if (saved) update.mutate(toUpdateInput(draft, saved));
    else create.mutate(toCreateInput(draft));
  }

  async function runTest() {
    const tested = draft;
    setErrors(NO_ERRORS);
    setTest(null);
    try {
      setTest({ draft: tested, result: await tester.mutateAsync(toTestInput(tested, saved?.name ?? null)) });
    } catch (err) {
      onError(err);
    }
  }

  const fieldError = (f: ProviderField) =>
    errors.fields[f] ? <FieldError id={`${id}-${f}-error`} message={errors.fields[f]} testId={`provider-${f}-error`} /> : null;
  const current = test && sameConnection(test.draft, draft) ? test.result : null;

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="provider-form">
      <div className="dialog-header">
        <div>
          <h2 id="provider-dialog-title">{saved ? `Edit ${saved.name}` : "Add provider"}</h2>
          <p>Where Rein sends model calls. The key is stored encrypted and shown only masked.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="row" style={{ gap: 12, alignItems: "flex-start" }}>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor={`${id}-name`}>
              Name
              <RequiredMark />
            </label>
            <input
              id={`${id}-name`}
              className="input"
              value={draft.name}
              disabled={!!saved}
              autoFocus={!saved}
              spellCheck={false}
              onChange={(e) => change({ name: e.target.value }, "name")}
              placeholder="e.g. local, openai, openrouter"
              aria-invalid={errors.fields.name ? true : undefined}
              aria-describedby={`${id}-name-help`}
              data-testid="provider-name"
            />
            {fieldError("name") ?? (
              <span className="hint" id={`${id}-name-help`}>
                Models are named &quot;{draft.name.trim() || "name"}/&lt;model id&gt;&quot;.
              </span>
            )}
          </div>
          <div className="field" style={{ flex: 1.4 }}>
            <label htmlFor={`${id}-kind`}>
              Kind
              <RequiredMark />
            </label>
            <select
              id={`${id}-kind`}
              className="select"
              value={draft.kind}
              disabled={!!saved}
              onChange={(e) => change({ kind: e.target.value as ProviderDraft["kind"] }, "kind")}
              data-testid="provider-kind"
            >
              {KIND_ORDER.map((k) => (
                <option key={k} value={k}>
                  {PROVIDER_KINDS[k].label}
                </option>
              ))}
            </select>
            {fieldError("kind") ?? (
              <span className="hint" data-testid="provider-kind-hint">
                {kind.hint}
              </span>
            )}
          </div>
        </div>
        <div className="field">
          <label htmlFor={`${id}-url`}>Base URL{kind.baseUrlRequired ? <RequiredMark /> : " (optional)"}</label>
          <input
            id={`${id}-url`}
            className="input mono"
            value={draft.baseUrl}
            placeholder={kind.baseUrlPlaceholder}
            spellCheck={false}
            inputMode="url"
            onChange={(e) => change({ baseUrl: e.target.value }, "baseUrl")}
            aria-invalid={errors.fields.baseUrl ? true : undefined}
            data-testid="provider-base-url"
          />
          {fieldError("baseUrl")}
        </div>
        <div className="field">
          <label htmlFor={`${id}-key`}>API key{kind.keyRequired ? <RequiredMark /> : " (optional)"}</label>
          <input
            id={`${id}-key`}
            className="input mono"
            type="password"
            autoComplete="off"
            value={draft.apiKey}
            disabled={draft.removeKey}
            placeholder={saved?.apiKeyMasked ? `Leave empty to keep ${saved.apiKeyMasked}` : kind.keyRequired ? "sk-…" : "None"}
            onChange={(e) => change({ apiKey: e.target.value }, "apiKey")}
            aria-invalid={errors.fields.apiKey ? true : undefined}
            data-testid="provider-api-key"
          />
          {fieldError("apiKey") ?? (saved?.apiKeyMasked ? <span className="hint">Type a new key to replace the saved one.</span> : null)}
          {saved?.apiKeyMasked && (
            <label className="checkbox small">
              <input
                type="checkbox"
                checked={draft.removeKey}
                onChange={(e) => change({ removeKey: e.target.checked, apiKey: "" }, "apiKey")}
                data-testid="provider-remove-key"
              />
              Remove the saved key
            </label>
          )}
        </div>
        <div className={styles.checks}>
          <label className="checkbox" title="Pools with “all self-hosted models” include every model of this provider">
            <input
              type="checkbox"
              checked={draft.selfHosted}
              onChange={(e) => change({ selfHosted: e.target.checked })}
              data-testid="provider-self-hosted"
            />
            Self-hosted (runs on your own machines)
          </label>
          <label className="checkbox">
            <input
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => change({ enabled: e.target.checked })}
              data-testid="provider-enabled"
            />
            Enabled
          </label>
        </div>
        <div className="row" style={{ gap: 8 }}>
          <button type="button" className="btn" onClick={() => void runTest()} disabled={tester.isPending} data-testid="provider-form-test">
            {tester.isPending && <span className="spinner" aria-hidden="true" />}
            {tester.isPending ? "Testing…" : "Test"}
          </button>
          <span className="hint">Asks the provider for its models with these values; nothing is saved.</span>
        </div>
        {current && <TestResultView result={current} />}
        <ErrorBlock message={errors.other} testId="provider-form-error" />
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to save · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="provider-save">
          {busy && <span className="spinner" aria-hidden="true" />}
          {saved ? "Save" : "Add provider"}
        </button>
      </div>
    </form>
  );
}
