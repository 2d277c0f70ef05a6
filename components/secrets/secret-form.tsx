"use client";
// Adds a secret or replaces its value. The value field is a password field,
// emptied once saved: a value goes to the server and never comes back.
import { forwardRef, useId, useImperativeHandle, useRef, useState, type FormEvent } from "react";
import { ErrorBlock, FieldError } from "@/components/ui";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";

const FIELDS = ["name", "value"] as const;
type Field = (typeof FIELDS)[number];
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };
/** The server's rule, checked here first so a typo is caught before sending. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.:/-]{0,127}$/;

/** What the server calls the variable a tool sees (server/secrets env-names.ts). */
export const envNameOf = (name: string) => name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");

export interface SecretFormHandle {
  /** Fills in an existing secret's name and puts the cursor in the value. */
  replace(name: string): void;
}

export const SecretForm = forwardRef<SecretFormHandle, { existing: ReadonlySet<string> }>(function SecretForm({ existing }, ref) {
  const id = useId();
  const utils = trpc.useUtils();
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [errors, setErrors] = useState(NO_ERRORS);
  const [saved, setSaved] = useState<{ name: string; env: string; replaced: boolean } | null>(null);
  const valueRef = useRef<HTMLInputElement>(null);
  const save = trpc.secrets.set.useMutation({
    onSuccess: (s, input) => {
      setSaved({ name: s.name, env: s.env, replaced: existing.has(input.name) });
      setName("");
      setValue("");
      void utils.secrets.list.invalidate();
    },
    onError: (err) => setErrors(errorsOf(err, FIELDS)),
  });

  useImperativeHandle(ref, () => ({
    replace(n: string) {
      setName(n);
      setValue("");
      setSaved(null);
      setErrors(NO_ERRORS);
      valueRef.current?.focus();
    },
  }));

  const trimmed = name.trim();
  const replacing = existing.has(trimmed);

  function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(null);
    const fields: Partial<Record<Field, string>> = {};
    if (!trimmed) fields.name = "A name is required";
    else if (!NAME.test(trimmed)) fields.name = "Starts with a letter or _; then letters, digits or _ . : / - (at most 128)";
    else if (trimmed.startsWith("provider/")) fields.name = "Provider keys are managed in Settings → Models";
    if (!value) fields.value = "A value is required";
    setErrors({ fields, other: null });
    if (Object.keys(fields).length || save.isPending) return;
    save.mutate({ name: trimmed, value });
  }

  const fieldError = (f: Field) => (errors.fields[f] ? <FieldError message={errors.fields[f]} testId={`secret-${f}-error`} /> : null);

  return (
    <form className="card card-body stack" onSubmit={submit} noValidate data-testid="secret-form">
      <h2>{replacing ? `Replace the value of ${trimmed}` : "Add a secret"}</h2>
      {saved && (
        <div className="alert alert-success" role="status" data-testid="secret-saved">
          {saved.replaced ? "Value of" : "Secret"} <strong>{saved.name}</strong> {saved.replaced ? "replaced" : "saved"}. Tools see it as{" "}
          <code>${saved.env}</code>.
        </div>
      )}
      <div className="form-inline" style={{ alignItems: "flex-start" }}>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            className="input mono"
            value={name}
            spellCheck={false}
            autoComplete="off"
            placeholder="e.g. DEPLOY_TOKEN or github/token"
            onChange={(e) => {
              setName(e.target.value);
              setErrors((x) => ({ ...x, fields: { ...x.fields, name: undefined } }));
            }}
            aria-invalid={errors.fields.name ? true : undefined}
            data-testid="secret-name"
          />
          {fieldError("name") ?? (
            <span className="hint">
              {trimmed ? (
                <>
                  Tools see it as <code>${envNameOf(trimmed)}</code>.
                </>
              ) : (
                "Its tools see it as a variable of the same name in capitals."
              )}
            </span>
          )}
        </div>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor={`${id}-value`}>{replacing ? "New value" : "Value"}</label>
          <input
            id={`${id}-value`}
            ref={valueRef}
            className="input mono"
            type="password"
            autoComplete="new-password"
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              setErrors((x) => ({ ...x, fields: { ...x.fields, value: undefined } }));
            }}
            aria-invalid={errors.fields.value ? true : undefined}
            data-testid="secret-value"
          />
          {fieldError("value") ?? <span className="hint">Stored encrypted; never shown again.</span>}
        </div>
        <button type="submit" className="btn btn-primary" style={{ marginTop: 22 }} disabled={save.isPending} data-testid="secret-save">
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          {replacing ? "Replace value" : "Save secret"}
        </button>
      </div>
      <ErrorBlock message={errors.other} testId="secret-form-error" />
    </form>
  );
});
