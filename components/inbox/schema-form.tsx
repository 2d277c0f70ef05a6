"use client";
// The inputs of a "provide" request, rendered from its JSON schema (lib/schema-form).
import { FieldError } from "@/components/ui";
import { optionLabel, type FieldSpec, type FormSpec, type FormValues } from "@/lib/schema-form";

function describe(f: FieldSpec): string | null {
  const limits: string[] = [];
  if (f.minimum !== undefined && f.maximum !== undefined) limits.push(`${f.minimum} to ${f.maximum}`);
  else if (f.minimum !== undefined) limits.push(`at least ${f.minimum}`);
  else if (f.maximum !== undefined) limits.push(`at most ${f.maximum}`);
  if (f.exclusiveMinimum !== undefined) limits.push(`more than ${f.exclusiveMinimum}`);
  if (f.exclusiveMaximum !== undefined) limits.push(`less than ${f.exclusiveMaximum}`);
  if (f.kind === "integer") limits.push("whole number");
  if (f.maxLength !== undefined) limits.push(`up to ${f.maxLength} characters`);
  if (f.kind === "json") limits.push("JSON");
  const parts = [f.description, limits.length ? limits.join(", ") : null].filter(Boolean);
  return parts.length ? parts.join(" · ") : null;
}

function SchemaField({
  f,
  id,
  value,
  error,
  disabled,
  onChange,
}: {
  f: FieldSpec;
  id: string;
  value: string | boolean | undefined;
  error?: string;
  disabled: boolean;
  onChange(v: string | boolean): void;
}) {
  const hint = describe(f);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const common = {
    id,
    disabled,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(" ") || undefined,
    "aria-required": f.required || undefined,
    "data-testid": `schema-field-${f.key || "value"}`,
  } as const;
  const text = typeof value === "string" ? value : "";

  let input;
  if (f.kind === "boolean") {
    return (
      <div className="field">
        <label className="checkbox" htmlFor={id}>
          <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          {f.label}
        </label>
        {hint && (
          <span className="hint" id={hintId}>
            {hint}
          </span>
        )}
      </div>
    );
  } else if (f.kind === "enum") {
    input = (
      <select {...common} className="select" value={text} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        {f.options!.map((o, i) => (
          <option key={i} value={String(i)}>
            {optionLabel(o)}
          </option>
        ))}
      </select>
    );
  } else if (f.kind === "number" || f.kind === "integer") {
    input = (
      <input
        {...common}
        className="input"
        type="number"
        inputMode={f.kind === "integer" ? "numeric" : "decimal"}
        step={f.kind === "integer" ? 1 : "any"}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        style={{ maxWidth: 220 }}
      />
    );
  } else if (f.kind === "json" || f.multiline) {
    input = (
      <textarea
        {...common}
        className={`textarea${f.kind === "json" ? " mono" : ""}`}
        rows={f.kind === "json" ? 5 : 2}
        value={text}
        spellCheck={f.kind !== "json"}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  } else {
    input = <input {...common} className="input" type="text" value={text} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {f.label}
        {f.required ? (
          <span aria-hidden="true" style={{ color: "var(--red)" }}>
            {" "}
            *
          </span>
        ) : (
          <span className="muted" style={{ fontWeight: 400 }}>
            {" "}
            (optional)
          </span>
        )}
      </label>
      {input}
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      <FieldError id={errorId} message={error} testId="schema-field-error" />
    </div>
  );
}

export function SchemaForm({
  spec,
  values,
  errors,
  disabled,
  idPrefix,
  onChange,
}: {
  spec: FormSpec;
  values: FormValues;
  errors: Record<string, string>;
  disabled: boolean;
  idPrefix: string;
  onChange(key: string, value: string | boolean): void;
}) {
  if (spec.mode === "json") {
    return (
      <SchemaField
        f={{
          key: "",
          label: "Value (JSON)",
          required: true,
          kind: "json",
          description: "This schema has no form; type the value as JSON.",
        }}
        id={`${idPrefix}-value`}
        value={values[""]}
        error={errors[""]}
        disabled={disabled}
        onChange={(v) => onChange("", v)}
      />
    );
  }
  const fields = spec.mode === "object" ? spec.fields : [spec.field];
  return (
    <div className="stack" data-testid="schema-form">
      {fields.map((f) => (
        <SchemaField
          key={f.key}
          f={f}
          id={`${idPrefix}-${f.key || "value"}`}
          value={values[f.key]}
          error={errors[f.key]}
          disabled={disabled}
          onChange={(v) => onChange(f.key, v)}
        />
      ))}
    </div>
  );
}
