// The policy document as the rule form on Settings › Policy reads it
// (docs/human-requests-and-policy.md#the-rule-form). The YAML text stays the
// one source: the form shows the rules read from it, and each form edit
// (lib/policy-rule-edits.ts) changes that text. Reading is lenient: values
// the schema refuses are shown as written, and the server's check says what
// is wrong with them.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type YAMLMap, type YAMLSeq } from "yaml";

/** One argument condition: `command: { pattern: '^git push' }` is { name: "command", kind: "pattern", values: ["^git push"] }. */
export interface ArgCondition {
  name: string;
  /** A matcher key (equals, pattern, prefix, contains, oneOf), or "yaml" for one the form cannot show. */
  kind: string;
  /** One value; several for oneOf; the matcher's YAML text for "yaml". */
  values: string[];
}

/** What an `ask` says; "" is a key not written (its default applies). */
export interface AskFields {
  kind: string;
  role: string;
  ttl: string;
}

/** A rule as the form edits it; "" and [] are keys not written. */
export interface RuleFields {
  name: string;
  actor: string[];
  /** The `team:` entries as written: team names (resolved to ids when saved) or globs. */
  team: string[];
  tool: string[];
  /** The key the tier is written under: `tier`, or `environment` (the same thing). */
  tierKey: "tier" | "environment";
  tier: string[];
  args: ArgCondition[];
  decision: string;
  /** Null: no `ask:` key (a decision of ask then uses the defaults). */
  ask: AskFields | null;
}

export interface RuleView extends RuleFields {
  /** Keys the form does not edit (an unknown or misspelt one): the YAML keeps them as they are. */
  otherKeys: string[];
  /** The rule's first and last line in the YAML (1-based), to put the checker's problems on it. */
  lines: { from: number; to: number };
}

export type RulesRead = { ok: true; rules: RuleView[]; comments: number } | { ok: false; message: string; line?: number };

export const FORM_KEYS = ["name", "actor", "team", "tool", "tier", "environment", "args", "decision", "ask"] as const;

/** Parses as the server does (duplicate keys are errors), keeping comments and ranges. */
export function parsePolicyDocument(source: string, lineCounter?: LineCounter): Document.Parsed {
  return parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
}

/** The rules the document holds, or why the form cannot show them (the text is then left to the YAML view). */
export function readRules(source: string): RulesRead {
  const lineCounter = new LineCounter();
  const doc = parsePolicyDocument(source, lineCounter);
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  if (doc.errors.length) {
    const e = doc.errors[0];
    return { ok: false, line: lineAt(e.pos[0]), message: `The YAML does not parse: ${e.message.split("\n")[0]}` };
  }
  const rules = rulesSeq(doc);
  if (!rules.ok) return rules;
  const views: RuleView[] = [];
  for (const [i, item] of (rules.seq?.items ?? []).entries()) {
    if (!isMap(item)) {
      const at = (item as Node | null)?.range;
      return {
        ok: false,
        line: at ? lineAt(at[0]) : undefined,
        message: `Rule ${i + 1} is not a mapping of keys, so the form cannot show it.`,
      };
    }
    const range = item.range ?? [0, 0, 0];
    views.push({
      ...ruleFields(item),
      otherKeys: otherKeys(item),
      lines: { from: lineAt(range[0]), to: lineAt(Math.max(range[0], range[2] - 1)) },
    });
  }
  return { ok: true, rules: views, comments: commentsOf(doc).length };
}

/** The document's `rules:` list; null when there is none yet (an empty document, or a mapping without it). */
export function rulesSeq(doc: Document): { ok: true; seq: YAMLSeq | null } | { ok: false; message: string; line?: number } {
  if (doc.contents === null) return { ok: true, seq: null };
  if (!isMap(doc.contents))
    return { ok: false, line: 1, message: "The policy must be a mapping with a rules: list, so the form cannot show it." };
  const seq = doc.contents.get("rules", true);
  if (seq === undefined || (isScalar(seq) && seq.value === null)) return { ok: true, seq: null };
  if (!isSeq(seq)) return { ok: false, message: "rules: is not a list, so the form cannot show it." };
  return { ok: true, seq };
}

export function ruleFields(map: YAMLMap): RuleFields {
  const get = (key: string) => map.get(key, true) as Node | undefined;
  const tierKey = map.has("environment") && !map.has("tier") ? "environment" : "tier";
  const ask = get("ask");
  return {
    name: textOf(get("name")),
    actor: listOf(get("actor")),
    team: listOf(get("team")),
    tool: listOf(get("tool")),
    tierKey,
    tier: listOf(get(tierKey)),
    args: argsOf(get("args")),
    decision: textOf(get("decision")),
    ask: ask === undefined ? null : isMap(ask) ? askOf(ask) : { kind: "", role: "", ttl: textOf(ask) },
  };
}

function otherKeys(map: YAMLMap): string[] {
  return map.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)).filter((k) => !(FORM_KEYS as readonly string[]).includes(k));
}

export function textOf(node: Node | undefined | null): string {
  if (node === undefined || node === null) return "";
  if (isScalar(node)) return node.value === null ? "" : String(node.value);
  return String(node);
}

export function listOf(node: Node | undefined | null): string[] {
  if (node === undefined || node === null) return [];
  if (isSeq(node)) return node.items.map((n) => textOf(n as Node)).filter((s) => s !== "");
  const one = textOf(node);
  return one === "" ? [] : [one];
}

function askOf(map: YAMLMap): AskFields {
  const get = (key: string) => textOf(map.get(key, true) as Node | undefined);
  return { kind: get("kind"), role: get("role"), ttl: get("ttl") };
}

function argsOf(node: Node | undefined): ArgCondition[] {
  if (!node || !isMap(node)) return [];
  return node.items.map((pair) => ({ name: textOf(pair.key as Node), ...matcherOf(pair.value as Node | null) }));
}

/** A matcher as the form shows it: a plain value is `equals`. */
export function matcherOf(node: Node | null): Omit<ArgCondition, "name"> {
  if (node === null || isScalar(node)) return { kind: "equals", values: [textOf(node)] };
  if (isMap(node) && node.items.length === 1) {
    const kind = textOf(node.items[0].key as Node);
    const value = node.items[0].value as Node | null;
    if (kind === "oneOf" && isSeq(value) && value.items.every((v) => isScalar(v))) return { kind, values: listOf(value) };
    if (kind !== "oneOf" && (value === null || isScalar(value))) return { kind, values: [textOf(value)] };
  }
  return { kind: "yaml", values: [String(node).trim()] };
}

/** Every comment in the document, to tell when an edit dropped one. */
export function commentsOf(doc: Document): string[] {
  const out: string[] = [];
  const add = (c: string | null | undefined) => {
    if (c)
      out.push(
        ...c
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      );
  };
  add(doc.commentBefore);
  add(doc.comment);
  visit(doc, {
    Node(_key, node) {
      add(node.commentBefore);
      add(node.comment);
    },
  });
  return out;
}

/** A one-line summary of what a rule matches, for the list. */
export function scopeSummary(rule: RuleFields): string {
  const parts: string[] = [];
  if (rule.actor.length) parts.push(`actor ${rule.actor.join(", ")}`);
  if (rule.team.length) parts.push(`team ${rule.team.join(", ")}`);
  if (rule.tool.length) parts.push(`tool ${rule.tool.join(", ")}`);
  if (rule.args.length) parts.push(rule.args.map((a) => `${a.name} ${a.kind} ${a.values.join(", ")}`).join(" · "));
  if (rule.tier.length) parts.push(`${rule.tierKey} ${rule.tier.join(", ")}`);
  return parts.join(" · ");
}
