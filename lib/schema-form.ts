// A form from a JSON schema, for "provide" requests
// (docs/human-requests-and-policy.md#the-inbox): objects whose properties are
// strings, numbers, integers, booleans or enums get one field each; anything
// else is typed as JSON. The server checks the value against the schema again;
// this catches mistakes before anything is sent.

export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

export interface FieldSpec {
  /** The property name; "" for a schema that is a single value. */
  key: string;
  label: string;
  description?: string;
  required: boolean;
  kind: FieldKind;
  /** enum: the allowed values, in order. */
  options?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  multiline?: boolean;
}

export type FormSpec = { mode: "object"; fields: FieldSpec[] } | { mode: "single"; field: FieldSpec } | { mode: "json" };

/** What the inputs hold: text for text-like fields, the option's index for enums, a flag for booleans. */
export type FormValues = Record<string, string | boolean>;

type Schema = Record<string, unknown>;

function isObject(v: unknown): v is Schema {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim();
  return words ? words[0].toUpperCase() + words.slice(1).toLowerCase() : key;
}

function fieldOf(key: string, schema: unknown, required: boolean): FieldSpec {
  const s = isObject(schema) ? schema : {};
  const base: FieldSpec = {
    key,
    label: typeof s.title === "string" && s.title ? s.title : humanize(key) || "Value",
    description: typeof s.description === "string" ? s.description : undefined,
    required,
    kind: "json",
  };
  if (Array.isArray(s.enum) && s.enum.length > 0) return { ...base, kind: "enum", options: s.enum };
  if ("const" in s) return { ...base, kind: "enum", options: [s.const] };
  const type = s.type;
  if (type === "string") {
    const maxLength = num(s.maxLength);
    return {
      ...base,
      kind: "string",
      minLength: num(s.minLength),
      maxLength,
      pattern: typeof s.pattern === "string" ? s.pattern : undefined,
      multiline: maxLength === undefined || maxLength > 200,
    };
  }
  if (type === "number" || type === "integer") {
    return {
      ...base,
      kind: type,
      minimum: num(s.minimum),
      maximum: num(s.maximum),
      exclusiveMinimum: num(s.exclusiveMinimum),
      exclusiveMaximum: num(s.exclusiveMaximum),
    };
  }
  if (type === "boolean") return { ...base, kind: "boolean" };
  return base;
}

/** How to ask for a value matching `schema`. */
export function formFromSchema(schema: unknown): FormSpec {
  if (!isObject(schema)) return { mode: "json" };
  const combined = ["anyOf", "oneOf", "allOf", "$ref", "not", "if"].some((k) => k in schema);
  if (combined) return { mode: "json" };
  if (schema.type === "object" || (schema.type === undefined && isObject(schema.properties))) {
    if (!isObject(schema.properties) || Object.keys(schema.properties).length === 0) return { mode: "json" };
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
    return { mode: "object", fields: Object.entries(schema.properties).map(([key, prop]) => fieldOf(key, prop, required.has(key))) };
  }
  const single = fieldOf("", schema, true);
  return single.kind === "json" ? { mode: "json" } : { mode: "single", field: single };
}

export function fieldsOf(spec: FormSpec): FieldSpec[] {
  return spec.mode === "object" ? spec.fields : spec.mode === "single" ? [spec.field] : [];
}

/** Empty inputs, or the schema's defaults where it gives them. */
export function initialValues(spec: FormSpec, schema: unknown): FormValues {
  const values: FormValues = {};
  const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  for (const f of fieldsOf(spec)) {
    const s = spec.mode === "object" ? props[f.key] : schema;
    const def = isObject(s) ? s.default : undefined;
    if (f.kind === "boolean") values[f.key] = def === true;
    else if (f.kind === "enum")
      values[f.key] =
        def === undefined
          ? ""
          : String(
              Math.max(
                f.options!.findIndex((o) => JSON.stringify(o) === JSON.stringify(def)),
                0,
              ),
            );
    else if (f.kind === "json") values[f.key] = def === undefined ? "" : JSON.stringify(def, null, 2);
    else values[f.key] = def === undefined || def === null ? "" : String(def);
  }
  return values;
}

/** Label of an enum option as people read it. */
export function optionLabel(option: unknown): string {
  return typeof option === "string" ? option : JSON.stringify(option);
}

function readField(f: FieldSpec, raw: string | boolean | undefined): { value?: unknown; error?: string; empty?: boolean } {
  if (f.kind === "boolean") return { value: raw === true };
  const text = typeof raw === "string" ? raw : "";
  if (f.kind !== "string" && text.trim() === "")
    return f.required ? { error: f.kind === "enum" ? "Choose one" : "Required" } : { empty: true };
  if (f.kind === "string" && text === "") return f.required ? { error: "Required" } : { empty: true };
  switch (f.kind) {
    case "enum": {
      const i = Number(text);
      return Number.isInteger(i) && i >= 0 && i < f.options!.length ? { value: f.options![i] } : { error: "Choose one of the options" };
    }
    case "string": {
      if (f.minLength !== undefined && text.length < f.minLength) return { error: `At least ${f.minLength} characters` };
      if (f.maxLength !== undefined && text.length > f.maxLength) return { error: `At most ${f.maxLength} characters` };
      // A pattern is the agent's: the browser never compiles it (a catastrophic one would freeze the
      // approver's tab); the server checks it in linear time and its answer shows under the form.
      return { value: text };
    }
    case "number":
    case "integer": {
      const n = Number(text.trim());
      if (!Number.isFinite(n)) return { error: "Enter a number" };
      if (f.kind === "integer" && !Number.isInteger(n)) return { error: "Enter a whole number" };
      if (f.minimum !== undefined && n < f.minimum) return { error: `Must be at least ${f.minimum}` };
      if (f.maximum !== undefined && n > f.maximum) return { error: `Must be at most ${f.maximum}` };
      if (f.exclusiveMinimum !== undefined && n <= f.exclusiveMinimum) return { error: `Must be more than ${f.exclusiveMinimum}` };
      if (f.exclusiveMaximum !== undefined && n >= f.exclusiveMaximum) return { error: `Must be less than ${f.exclusiveMaximum}` };
      return { value: n };
    }
    default: {
      try {
        return { value: JSON.parse(text) };
      } catch (err) {
        return { error: `Not valid JSON: ${(err as Error).message}` };
      }
    }
  }
}

/** The value the inputs describe, or an error per field (key "" for a single value). */
export function readForm(spec: FormSpec, values: FormValues): { ok: true; value: unknown } | { ok: false; errors: Record<string, string> } {
  if (spec.mode === "json") {
    const r = readField({ key: "", label: "Value", required: true, kind: "json" }, values[""]);
    return r.error ? { ok: false, errors: { "": r.error } } : { ok: true, value: r.value };
  }
  const errors: Record<string, string> = {};
  const out: Record<string, unknown> = {};
  for (const f of fieldsOf(spec)) {
    const r = readField(f, values[f.key]);
    if (r.error) errors[f.key] = r.error;
    else if (!r.empty) out[f.key] = r.value;
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  return { ok: true, value: spec.mode === "single" ? out[""] : out };
}
