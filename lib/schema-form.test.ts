import { describe, expect, it } from "vitest";
import { formFromSchema, initialValues, readForm, type FormSpec } from "./schema-form";

const CAP = {
  type: "object",
  properties: {
    capPercent: { type: "number", minimum: 0, maximum: 50, description: "Discount cap in percent" },
    note: { type: "string" },
  },
  required: ["capPercent"],
  additionalProperties: false,
};

describe("formFromSchema", () => {
  it("gives an object's properties one field each, with required, limits and descriptions", () => {
    const spec = formFromSchema(CAP);
    expect(spec.mode).toBe("object");
    const fields = (spec as Extract<FormSpec, { mode: "object" }>).fields;
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["capPercent", "number", true],
      ["note", "string", false],
    ]);
    expect(fields[0]).toMatchObject({ label: "Cap percent", description: "Discount cap in percent", minimum: 0, maximum: 50 });
  });

  it("turns enums, booleans and integers into their own inputs and nested values into JSON fields", () => {
    const spec = formFromSchema({
      type: "object",
      properties: {
        env: { enum: ["staging", "production"] },
        dryRun: { type: "boolean", title: "Dry run" },
        replicas: { type: "integer", minimum: 1 },
        tags: { type: "array", items: { type: "string" } },
      },
    });
    const kinds = (spec as Extract<FormSpec, { mode: "object" }>).fields.map((f) => [f.key, f.kind, f.label]);
    expect(kinds).toEqual([
      ["env", "enum", "Env"],
      ["dryRun", "boolean", "Dry run"],
      ["replicas", "integer", "Replicas"],
      ["tags", "json", "Tags"],
    ]);
  });

  it("asks for a single value when the schema is not an object", () => {
    expect(formFromSchema({ type: "integer", maximum: 3 })).toMatchObject({
      mode: "single",
      field: { key: "", kind: "integer", maximum: 3, required: true },
    });
  });

  it("falls back to JSON for what it cannot render", () => {
    expect(formFromSchema({ anyOf: [{ type: "string" }, { type: "number" }] })).toEqual({ mode: "json" });
    expect(formFromSchema({ type: "array", items: { type: "number" } })).toEqual({ mode: "json" });
    expect(formFromSchema({ type: "object" })).toEqual({ mode: "json" });
    expect(formFromSchema(undefined)).toEqual({ mode: "json" });
  });
});

describe("readForm", () => {
  const spec = formFromSchema(CAP);

  it("builds the value, leaving out empty optional fields", () => {
    expect(readForm(spec, { capPercent: "20", note: "" })).toEqual({ ok: true, value: { capPercent: 20 } });
    expect(readForm(spec, { capPercent: "12.5", note: "launch week" })).toEqual({
      ok: true,
      value: { capPercent: 12.5, note: "launch week" },
    });
  });

  it("refuses missing, non-numeric and out-of-range values with a message per field", () => {
    expect(readForm(spec, { capPercent: "", note: "" })).toEqual({ ok: false, errors: { capPercent: "Required" } });
    expect(readForm(spec, { capPercent: "abc", note: "" })).toEqual({ ok: false, errors: { capPercent: "Enter a number" } });
    expect(readForm(spec, { capPercent: "80", note: "" })).toEqual({ ok: false, errors: { capPercent: "Must be at most 50" } });
    expect(readForm(spec, { capPercent: "-1", note: "" })).toEqual({ ok: false, errors: { capPercent: "Must be at least 0" } });
  });

  it("checks integers, string lengths and enum choices, and leaves patterns to the server", () => {
    const s = formFromSchema({
      type: "object",
      properties: {
        n: { type: "integer" },
        code: { type: "string", minLength: 2, maxLength: 4, pattern: "^[A-Z]+$" },
        env: { enum: ["a", 2] },
      },
      required: ["n", "code", "env"],
    });
    expect(readForm(s, { n: "1.5", code: "x", env: "" })).toEqual({
      ok: false,
      errors: { n: "Enter a whole number", code: "At least 2 characters", env: "Choose one" },
    });
    // Patterns are the server's to check (in linear time): the browser never compiles an agent's regex.
    expect(readForm(s, { n: "2", code: "ab", env: "1" })).toEqual({ ok: true, value: { n: 2, code: "ab", env: 2 } });
    expect(readForm(s, { n: "2", code: "AB", env: "1" })).toEqual({ ok: true, value: { n: 2, code: "AB", env: 2 } });
  });

  it("reads booleans and JSON fields, and reports JSON that does not parse", () => {
    const s = formFromSchema({ type: "object", properties: { on: { type: "boolean" }, extra: { type: "object" } } });
    expect(readForm(s, { on: true, extra: '{"a":1}' })).toEqual({ ok: true, value: { on: true, extra: { a: 1 } } });
    const bad = readForm(s, { on: false, extra: "{a:1" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors.extra).toMatch(/^Not valid JSON/);
    expect(readForm({ mode: "json" }, { "": "[1, 2]" })).toEqual({ ok: true, value: [1, 2] });
    expect(readForm({ mode: "json" }, { "": "" })).toMatchObject({ ok: false });
  });

  it("starts from the schema's defaults", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "number", default: 5 }, on: { type: "boolean", default: true }, env: { enum: ["a", "b"], default: "b" } },
    };
    expect(initialValues(formFromSchema(schema), schema)).toEqual({ n: "5", on: true, env: "1" });
  });
});
