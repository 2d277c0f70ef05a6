"use client";
// Add or edit a model: what it is (family, context window, capabilities,
// strength) and what it costs. The server's refusals show under their fields.
import { useId, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock, FieldError, RequiredMark } from "@/components/ui";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { MODEL_FIELDS, MODEL_FIELD_ALIAS, toModelInput, type ModelDraft, type ModelField } from "@/lib/model-draft";
import { trpc } from "@/lib/trpc";
import styles from "./models.module.css";

export interface ModelFormState {
  draft: ModelDraft;
  /** Editing a saved model: its provider and id name it and stay as they are. */
  editing: boolean;
}

const NO_ERRORS: FieldErrors<ModelField> = { fields: {}, other: null };

const TEXT_FIELDS: Array<{ key: ModelField; label: string; hint?: string; mode?: "numeric" | "decimal"; required?: boolean }> = [
  { key: "family", label: "Family", required: true, hint: "gpt, claude, llama… Judges never share the judged agent's family." },
  { key: "contextWindow", label: "Context window (tokens)", mode: "numeric" },
  { key: "maxOutputTokens", label: "Max output tokens (optional)", mode: "numeric" },
  {
    key: "strength",
    label: "Strength (0–1)",
    mode: "decimal",
    hint: "Routing puts models at least as strong as a task's complexity first.",
  },
];

const PRICE_FIELDS: Array<{ key: ModelField; label: string }> = [
  { key: "inputPerMTok", label: "Input" },
  { key: "outputPerMTok", label: "Output" },
  { key: "cacheReadPerMTok", label: "Cache read" },
  { key: "cacheWritePerMTok", label: "Cache write" },
];

export function ModelDialog({ state, providers, onClose }: { state: ModelFormState | null; providers: string[]; onClose(): void }) {
  return (
    <Dialog open={state !== null} onClose={onClose} labelledBy="model-dialog-title" testId="model-dialog">
      {state && <ModelForm key={`${state.draft.provider}/${state.draft.modelId}`} state={state} providers={providers} onClose={onClose} />}
    </Dialog>
  );
}

function ModelForm({ state, providers, onClose }: { state: ModelFormState; providers: string[]; onClose(): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState<ModelDraft>(() => ({ ...state.draft, provider: state.draft.provider || providers[0] || "" }));
  const [errors, setErrors] = useState(NO_ERRORS);
  const save = trpc.models.save.useMutation({
    onSuccess: async () => {
      await Promise.all([
        utils.models.list.invalidate(),
        utils.models.providers.invalidate(),
        utils.models.options.invalidate(),
        utils.prices.list.invalidate(),
      ]);
      onClose();
    },
    onError: (err) => setErrors(errorsOf(err, MODEL_FIELDS, MODEL_FIELD_ALIAS)),
  });

  function change(patch: Partial<ModelDraft>, field?: ModelField) {
    setDraft((d) => ({ ...d, ...patch }));
    if (field) setErrors((e) => ({ ...e, fields: { ...e.fields, [field]: undefined } }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (save.isPending) return;
    const parsed = toModelInput(draft);
    if (!parsed.ok) return setErrors({ fields: parsed.errors, other: null });
    setErrors(NO_ERRORS);
    save.mutate(parsed.input);
  }

  const input = (
    key: ModelField,
    label: string,
    opts: {
      mode?: "numeric" | "decimal";
      mono?: boolean;
      disabled?: boolean;
      placeholder?: string;
      autoFocus?: boolean;
      required?: boolean;
    } = {},
  ) => (
    <>
      <label htmlFor={`${id}-${key}`}>
        {label}
        {opts.required && <RequiredMark />}
      </label>
      <input
        id={`${id}-${key}`}
        className={`input${opts.mono ? " mono" : ""}`}
        value={draft[key] as string}
        inputMode={opts.mode}
        disabled={opts.disabled}
        placeholder={opts.placeholder}
        autoFocus={opts.autoFocus}
        spellCheck={false}
        onChange={(e) => change({ [key]: e.target.value }, key)}
        aria-invalid={errors.fields[key] ? true : undefined}
        data-testid={`model-${key}`}
      />
      {errors.fields[key] && <FieldError message={errors.fields[key]} testId={`model-${key}-error`} />}
    </>
  );

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="model-form">
      <div className="dialog-header">
        <div>
          <h2 id="model-dialog-title">{state.editing ? `Edit ${draft.provider}/${draft.modelId}` : "Add model"}</h2>
          <p>A model runs may use, named &quot;&lt;provider&gt;/&lt;model id&gt;&quot; in runs, rules and prices.</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="row" style={{ gap: 12, alignItems: "flex-start" }}>
          <div className="field" style={{ flex: 1 }}>
            <label htmlFor={`${id}-provider`}>
              Provider
              <RequiredMark />
            </label>
            <select
              id={`${id}-provider`}
              className="select"
              value={draft.provider}
              disabled={state.editing}
              onChange={(e) => change({ provider: e.target.value }, "provider")}
              data-testid="model-provider"
            >
              {providers.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <FieldError message={errors.fields.provider} testId="model-provider-error" />
          </div>
          <div className="field" style={{ flex: 1.6 }}>
            {input("modelId", "Model id", {
              required: true,
              mono: true,
              disabled: state.editing,
              placeholder: "e.g. gpt-4.1-mini, llama3.1:8b",
              autoFocus: !state.editing && !draft.modelId,
            })}
          </div>
        </div>
        <div className={styles.grid}>
          {TEXT_FIELDS.map((f) => (
            <div key={f.key} className="field">
              {input(f.key, f.label, {
                mode: f.mode,
                required: f.required,
                autoFocus: f.key === "family" && !!draft.modelId && !state.editing,
              })}
              {!errors.fields[f.key] && f.hint && <span className="hint">{f.hint}</span>}
            </div>
          ))}
        </div>
        <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="label" style={{ marginBottom: 6 }}>
            Capabilities
          </legend>
          <div className={styles.checks}>
            {(["tools", "vision", "streaming", "enabled"] as const).map((k) => (
              <label key={k} className="checkbox">
                <input type="checkbox" checked={draft[k]} onChange={(e) => change({ [k]: e.target.checked })} data-testid={`model-${k}`} />
                {k === "tools" ? "Tool calls" : k === "vision" ? "Vision" : k === "streaming" ? "Streaming" : "Enabled"}
              </label>
            ))}
          </div>
        </fieldset>
        <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="label" style={{ marginBottom: 6 }}>
            Prices (USD per million tokens, optional)
          </legend>
          <div className={styles.grid}>
            {PRICE_FIELDS.map((f) => (
              <div key={f.key} className="field">
                {input(f.key, f.label, { mode: "decimal", placeholder: state.editing ? "unchanged" : "" })}
              </div>
            ))}
          </div>
          <span className="hint">
            Written to Settings › Prices. Empty: {state.editing ? "the saved prices stay" : "calls count as $0 until priced"}.
          </span>
        </fieldset>
        <ErrorBlock message={errors.other} testId="model-form-error" />
      </div>
      <div className="dialog-footer">
        <span className="hint">
          <kbd>Enter</kbd> to save · <kbd>Esc</kbd> to close
        </span>
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={save.isPending || providers.length === 0} data-testid="model-save">
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          {state.editing ? "Save" : "Add model"}
        </button>
      </div>
    </form>
  );
}
