// Policy YAML -> CompiledPolicy, or the errors with their lines.
import { DomainError } from "@/server/errors";
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { z } from "zod";
import { unreachableRules } from "./analysis";
import { compileRule } from "./matchers";
import { ASK_KEYS, MATCHER_KEYS, MAX_POLICY_CHARS, PolicySchema, RULE_KEYS, TOP_KEYS, suggest } from "./schema";
import { LEVELS, type CompiledPolicy, type CompiledRule, type ParseResult, type PolicyError, type PolicyLevel } from "./types";

export class PolicyValidationError extends DomainError {
  constructor(readonly errors: PolicyError[]) {
    super("INVALID_INPUT", `The policy is not valid: ${errors.map(formatPolicyError).join("; ")}`);
    this.name = "PolicyValidationError";
  }
}

export function formatPolicyError(e: PolicyError): string {
  return e.line ? `line ${e.line}: ${e.message}` : e.message;
}

/** Parses and checks a policy document; `version` is what verdicts will name (0 for a draft); `teams`: see compileRule. */
export function parsePolicy(source: string, version = 0, teams?: Readonly<Record<string, readonly string[]>>): ParseResult {
  if (source.length > MAX_POLICY_CHARS) {
    return { ok: false, errors: [{ message: `the policy is ${source.length} characters; at most ${MAX_POLICY_CHARS} are allowed` }] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length) {
    return { ok: false, errors: doc.errors.map((e) => ({ line: lineAt(e.pos[0]), message: `YAML: ${e.message}` })) };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, errors: [{ message: `YAML: ${(err as Error).message}` }] };
  }
  if (data === null || data === undefined) {
    return { ok: false, errors: [{ line: 1, message: "the policy is empty; it needs a rules: list" }] };
  }
  const parsed = PolicySchema.safeParse(data);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => describeIssue(doc, issue, lineAt));
    errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { ok: false, errors };
  }
  const rules = parsed.data.rules.map((r, i) => compileRule(r, i, version, teams));
  const levels = Object.fromEntries(LEVELS.map((l) => [l, [] as CompiledRule[]])) as Record<PolicyLevel, CompiledRule[]>;
  for (const rule of rules) levels[rule.level].push(rule);
  const warnings = unreachableRules(parsed.data.rules).map((w) => ({ line: nodeLine(doc, ["rules", w.rule], lineAt), message: w.message }));
  return { ok: true, policy: { version, ruleCount: rules.length, levels }, warnings };
}

type Issue = z.core.$ZodIssue;

/** "rule 3, args.command" for a path into the document. */
function where(path: PropertyKey[]): string {
  if (path[0] !== "rules") return path.length ? path.join(".") : "";
  if (path.length === 1) return "rules";
  const rest = path.slice(2).join(".");
  return `rule ${Number(path[1]) + 1}${rest ? `, ${rest}` : ""}`;
}

function allowedKeys(path: PropertyKey[]): readonly string[] {
  if (path.length === 0) return TOP_KEYS;
  if (path.length === 2) return RULE_KEYS;
  if (path[2] === "ask") return ASK_KEYS;
  return MATCHER_KEYS;
}

function describeIssue(doc: Document, issue: Issue, lineAt: (offset: number) => number): PolicyError {
  const path = issue.path as PropertyKey[];
  if (issue.code === "unrecognized_keys") {
    const allowed = allowedKeys(path);
    const key = issue.keys[0];
    const place = where(path);
    const list = issue.keys.map((k) => `"${k}"`).join(", ");
    return {
      line: keyLine(doc, path, key, lineAt) ?? nodeLine(doc, path, lineAt),
      message: `${place ? `${place}: ` : ""}unknown key ${list}${suggest(key, allowed)}; allowed: ${allowed.join(", ")}`,
    };
  }
  const place = where(path);
  return { line: nodeLine(doc, path, lineAt), message: place ? `${place}: ${issue.message}` : issue.message };
}

/** The line of the node at path, or of its closest ancestor that exists. */
function nodeLine(doc: Document, path: PropertyKey[], lineAt: (offset: number) => number): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as unknown[], true)) as Node | null | undefined;
    if (node && typeof node === "object" && "range" in node && node.range) return lineAt(node.range[0]);
  }
  return undefined;
}

function keyLine(doc: Document, path: PropertyKey[], key: string, lineAt: (offset: number) => number): number | undefined {
  const map = path.length ? doc.getIn(path as unknown[], true) : doc.contents;
  if (!isMap(map)) return undefined;
  const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
  const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
  return range ? lineAt(range[0]) : undefined;
}
