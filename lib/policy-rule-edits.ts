// The rule form's edits, applied to the policy YAML through the `yaml`
// package's Document, so comments, key order, flow style and quoting survive
// (docs/human-requests-and-policy.md#the-rule-form). Lines an edit did not
// touch are kept exactly as written; a comment the edit had to drop (one
// beside a value that was replaced, or in a deleted rule) is reported.
import { isMap, isScalar, isSeq, Scalar, YAMLMap, YAMLSeq, type Document, type Node } from "yaml";
import { diffLines } from "@/lib/line-diff";
import {
  commentsOf,
  listOf,
  matcherOf,
  parsePolicyDocument,
  ruleFields,
  rulesSeq,
  textOf,
  type ArgCondition,
  type AskFields,
  type RuleFields,
} from "@/lib/policy-rules";

export interface EditResult {
  source: string;
  /** Comments the edit could not keep. */
  lostComments: string[];
}

/** Key order for keys the form adds: the schema's (policy.grammar's ruleKeys). */
export type KeyOrder = readonly string[];

const STRINGIFY = { lineWidth: 0 } as const;
const ASK_ORDER = ["kind", "role", "ttl"];

/** Changes some of a rule's fields; the others, and keys the form does not know, stay as written. */
export function updateRule(source: string, index: number, patch: Partial<RuleFields>, order: KeyOrder): EditResult {
  return edit(source, (doc, seq) => {
    const map = seq.items[index];
    if (!isMap(map)) throw new Error(`rule ${index + 1} is not a mapping`);
    const now = ruleFields(map);
    const tierKey = patch.tierKey ?? now.tierKey;
    if (patch.name !== undefined) setText(doc, map, "name", patch.name, order);
    for (const key of ["actor", "team", "tool"] as const) if (patch[key]) setList(doc, map, key, patch[key], order);
    if (patch.tier || tierKey !== now.tierKey) {
      const other = tierKey === "tier" ? "environment" : "tier";
      if (map.has(other)) {
        if (!map.has(tierKey)) renameKey(map, other, tierKey);
        else map.delete(other);
      }
      setList(doc, map, tierKey, patch.tier ?? now.tier, order);
    }
    if (patch.args) setArgs(doc, map, patch.args, order);
    if (patch.decision !== undefined) {
      setText(doc, map, "decision", patch.decision, order);
      // ask only goes with decision: ask (the schema refuses it elsewhere).
      if (patch.decision !== "ask") map.delete("ask");
    }
    if (patch.ask !== undefined) setAsk(doc, map, patch.ask, order);
  });
}

/** Adds a rule at the end of the list. */
export function addRule(source: string, rule: RuleFields, order: KeyOrder): EditResult & { index: number } {
  let index = 0;
  const result = edit(source, (doc, seq) => {
    if (seq.flow && seq.items.length === 0) seq.flow = false; // `rules: []` grows into a block list
    const map = ruleNode(doc, rule, order);
    if (seq.items.some((item) => (item as Node).spaceBefore)) map.spaceBefore = true;
    seq.items.push(map);
    index = seq.items.length - 1;
  });
  return { ...result, index };
}

export function removeRule(source: string, index: number): EditResult {
  return edit(source, (_doc, seq) => {
    const [removed] = seq.items.splice(index, 1);
    // The first rule keeps its place's spacing (no blank line after `rules:`).
    if (index === 0 && seq.items[0] && removed) (seq.items[0] as Node).spaceBefore = (removed as Node).spaceBefore;
  });
}

/** Moves a rule; its comments go with it, while each place keeps its blank line before. */
export function moveRule(source: string, from: number, to: number): EditResult {
  return edit(source, (_doc, seq) => {
    if (from === to || to < 0 || to >= seq.items.length) return;
    const spacing = seq.items.map((item) => (item as Node).spaceBefore);
    const [item] = seq.items.splice(from, 1);
    seq.items.splice(to, 0, item);
    seq.items.forEach((it, i) => ((it as Node).spaceBefore = spacing[i]));
  });
}

/** A whole policy written from the form's rules alone (what the form knows is enough to write the document). */
export function policyYaml(rules: RuleFields[], order: KeyOrder): string {
  let source = "rules: []\n";
  for (const rule of rules) source = addRule(source, rule, order).source;
  return source;
}

function edit(source: string, change: (doc: Document, seq: YAMLSeq) => void): EditResult {
  const doc = parsePolicyDocument(source);
  if (doc.errors.length) throw new Error(`the YAML does not parse: ${doc.errors[0].message}`);
  const found = rulesSeq(doc);
  if (!found.ok) throw new Error(found.message);
  const before = doc.toString(STRINGIFY);
  const comments = commentsOf(doc);
  let seq = found.seq;
  if (!seq) {
    seq = new YAMLSeq();
    if (!isMap(doc.contents)) doc.contents = new YAMLMap() as unknown as typeof doc.contents;
    (doc.contents as YAMLMap).set(doc.createNode("rules"), seq);
  }
  change(doc, seq);
  const after = doc.toString(STRINGIFY);
  return { source: keepUntouchedLines(source, before, after), lostComments: lost(comments, commentsOf(doc)) };
}

/**
 * The stringifier may respace a line it did not change (`[a, b]` as `[ a, b ]`):
 * where the source and its unchanged stringification line up, lines the edit
 * left alone are taken from the source.
 */
export function keepUntouchedLines(source: string, before: string, after: string): string {
  const src = source.replace(/\n$/, "").split("\n");
  if (source === "" || src.length !== before.replace(/\n$/, "").split("\n").length) return after;
  const diff = diffLines(before, after);
  if (!diff.ok) return after;
  const out = diff.lines.filter((l) => l.kind !== "removed").map((l) => (l.kind === "same" ? src[l.oldNo! - 1] : l.text));
  return out.join("\n") + (source.endsWith("\n") || after.endsWith("\n") ? "\n" : "");
}

function lost(before: string[], after: string[]): string[] {
  const left = new Map<string, number>();
  for (const c of after) left.set(c, (left.get(c) ?? 0) + 1);
  return before.filter((c) => {
    const n = left.get(c) ?? 0;
    if (n > 0) left.set(c, n - 1);
    return n === 0;
  });
}

// --- nodes ---

function ruleNode(doc: Document, rule: RuleFields, order: KeyOrder): YAMLMap {
  const map = new YAMLMap();
  setText(doc, map, "name", rule.name, order);
  for (const key of ["actor", "team", "tool"] as const) setList(doc, map, key, rule[key], order);
  setList(doc, map, rule.tierKey, rule.tier, order);
  setArgs(doc, map, rule.args, order);
  setText(doc, map, "decision", rule.decision, order);
  if (rule.ask) setAsk(doc, map, rule.ask, order);
  return map;
}

/** Puts key: value in the map: in place when the key is there, else where the key order says. */
function put(doc: Document, map: YAMLMap, key: string, value: Node, order: KeyOrder) {
  const pair = map.items.find((p) => textOf(p.key as Node) === key);
  if (pair) {
    pair.value = value;
    return;
  }
  const rank = (k: string) => (order.includes(k) ? order.indexOf(k) : order.length);
  const at = map.items.findIndex((p) => rank(textOf(p.key as Node)) > rank(key));
  const created = doc.createPair(key, value);
  if (at < 0) map.items.push(created);
  else map.items.splice(at, 0, created);
}

function renameKey(map: YAMLMap, from: string, to: string) {
  const pair = map.items.find((p) => textOf(p.key as Node) === from);
  if (pair && isScalar(pair.key)) pair.key.value = to;
}

function setText(doc: Document, map: YAMLMap, key: string, value: string | number, order: KeyOrder) {
  const node = map.get(key, true) as Node | undefined;
  if (value === "") return void map.delete(key);
  if (isScalar(node)) {
    if (textOf(node) !== String(value)) node.value = value;
    return;
  }
  put(doc, map, key, new Scalar(value), order);
}

/** One value as a scalar, several as a flow list (`tool: [a, b]`), none as no key. */
function setList(doc: Document, map: YAMLMap, key: string, values: string[], order: KeyOrder) {
  const node = map.get(key, true) as Node | undefined;
  if (sameList(listOf(node), values)) return;
  if (values.length === 0) return void map.delete(key);
  if (values.length === 1) return setText(doc, map, key, values[0], order);
  if (isSeq(node)) {
    // Reuse the list's scalars so their quoting and comments stay.
    node.items = values.map((v, i) => {
      const old = node.items[i];
      if (isScalar(old)) {
        if (textOf(old) !== v) old.value = v;
        return old;
      }
      return new Scalar(v);
    });
    return;
  }
  put(doc, map, key, flowSeq(values), order);
}

function setArgs(doc: Document, map: YAMLMap, args: ArgCondition[], order: KeyOrder) {
  const node = map.get("args", true) as Node | undefined;
  const conditions = args.filter((a) => a.name.trim() !== "");
  if (conditions.length === 0) return void map.delete("args");
  const old = isMap(node) ? node : null;
  const items = conditions.map((c) => {
    const pair = old?.items.find((p) => textOf(p.key as Node) === c.name);
    if (pair && sameCondition(matcherOf(pair.value as Node | null), c)) return pair;
    const value = matcherNode(c);
    if (pair) {
      pair.value = value;
      return pair;
    }
    return doc.createPair(c.name, value);
  });
  if (old) old.items = items;
  else {
    const created = new YAMLMap();
    created.items = items;
    put(doc, map, "args", created, order);
  }
}

function setAsk(doc: Document, map: YAMLMap, ask: AskFields | null, order: KeyOrder) {
  if (ask === null) return void map.delete("ask");
  const node = map.get("ask", true) as Node | undefined;
  const target = isMap(node) ? node : new YAMLMap();
  if (!isMap(node)) {
    target.flow = true;
    put(doc, map, "ask", target, order);
  }
  for (const key of ASK_ORDER) {
    const value = ask[key as keyof AskFields];
    // A ttl in plain seconds is a number in YAML; "90" as text is not a duration.
    setText(doc, target, key, key === "ttl" && /^\d+$/.test(value) ? Number(value) : value, ASK_ORDER);
  }
}

/** `{ pattern: '^git' }`; a plain value for equals; `{ oneOf: [a, b] }`. */
function matcherNode(c: ArgCondition): Node {
  if (c.kind === "equals") return new Scalar(c.values[0] ?? "");
  const map = new YAMLMap();
  map.flow = true;
  map.set(new Scalar(c.kind), c.kind === "oneOf" ? flowSeq(c.values) : new Scalar(c.values[0] ?? ""));
  return map;
}

function flowSeq(values: string[]): YAMLSeq {
  const seq = new YAMLSeq();
  seq.flow = true;
  seq.items = values.map((v) => new Scalar(v));
  return seq;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameCondition = (a: Omit<ArgCondition, "name">, b: ArgCondition) => a.kind === b.kind && sameList(a.values, b.values);
