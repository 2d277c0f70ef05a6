// `pattern` in a JSON schema an agent wrote (a provide request's form):
// checked in linear time here, never compiled as a JavaScript regex. The
// schema goes to the validator without its patterns; the patterns are then
// applied by walking the schema along the value.
import { linearPattern, patternProblem } from "./index";

type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys whose values are schemas, or lists or maps of schemas. */
const ONE = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "$defs", "definitions", "dependentSchemas"];

function* subschemas(s: Schema): Generator<Schema> {
  for (const k of ONE) if (isObject(s[k])) yield s[k] as Schema;
  for (const k of MANY) if (Array.isArray(s[k])) for (const x of s[k] as unknown[]) if (isObject(x)) yield x;
  for (const k of MAP) if (isObject(s[k])) for (const x of Object.values(s[k] as Schema)) if (isObject(x)) yield x;
}

/** Every pattern of a schema that cannot run in linear time (or at all), in words; empty when all can. */
export function schemaPatternProblems(schema: unknown, depth = 0): string[] {
  if (!isObject(schema) || depth > 64) return depth > 64 ? ["the schema is nested more than 64 levels deep"] : [];
  const problems: string[] = [];
  if (schema.pattern !== undefined) {
    const why = typeof schema.pattern === "string" ? patternProblem(schema.pattern) : "it is not text";
    if (why) problems.push(`pattern ${JSON.stringify(schema.pattern)} cannot be used: ${why}`);
  }
  if (schema.patternProperties !== undefined)
    problems.push("patternProperties is not supported in a request's schema; list the properties");
  for (const sub of subschemas(schema)) problems.push(...schemaPatternProblems(sub, depth + 1));
  return problems;
}

/** A copy of the schema without `pattern`, for a validator that would compile it as a JavaScript regex. */
export function withoutPatterns(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((x) => withoutPatterns(x, depth + 1));
  if (!isObject(schema) || depth > 64) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "pattern" || k === "patternProperties") continue;
    out[k] = k === "enum" || k === "const" || k === "default" || k === "examples" ? v : withoutPatterns(v, depth + 1);
  }
  return out;
}

/**
 * Where a value breaks a pattern of its schema, as "path: must match …", or
 * null. Follows properties, items, allOf and local $refs; for anyOf/oneOf it
 * is enough that one branch's patterns hold.
 */
export function patternViolation(schema: unknown, value: unknown, root: unknown = schema, at = "value", depth = 0): string | null {
  if (!isObject(schema) || depth > 64) return null;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    const found = target ? patternViolation(target, value, root, at, depth + 1) : null;
    if (found) return found;
  }
  if (typeof schema.pattern === "string" && typeof value === "string" && !linearPattern(schema.pattern).test(value)) {
    return `${at}: must match ${schema.pattern}`;
  }
  if (isObject(schema.properties) && isObject(value)) {
    for (const [key, sub] of Object.entries(schema.properties as Schema)) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      const found = patternViolation(sub, value[key], root, at === "value" ? key : `${at}.${key}`, depth + 1);
      if (found) return found;
    }
  }
  if (isObject(schema.items) && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = patternViolation(schema.items, value[i], root, `${at}[${i}]`, depth + 1);
      if (found) return found;
    }
  }
  for (const sub of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const found = patternViolation(sub, value, root, at, depth + 1);
    if (found) return found;
  }
  for (const key of ["anyOf", "oneOf"]) {
    const branches = Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [];
    if (branches.length === 0) continue;
    const each = branches.map((b) => patternViolation(b, value, root, at, depth + 1));
    if (each.every((v) => v !== null)) return each[0];
  }
  return null;
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return null;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node)) return null;
    node = node[key];
  }
  return node;
}
