// Rules that can never decide anything: shadowed by a rule checked before them
// that matches every call they match, or with conditions no call can meet.
// Conservative: a warning only when that is certain; when in doubt, silence.
// Globs and patterns are the admin's text: they run through linear-time
// matchers (server/patterns), never as JavaScript regular expressions.
import { linearPattern, type LinearPattern } from "@/server/patterns";
import { globToRegExp, ruleLevel } from "./matchers";
import type { MatcherSpec, RuleSpec } from "./schema";
import { LEVELS, type PolicyLevel } from "./types";

export interface RuleWarning {
  /** 0-based index of the rule in the document. */
  rule: number;
  message: string;
}

/** Beyond this many rules the pairwise check is skipped (it is quadratic). */
export const MAX_ANALYZED_RULES = 1_000;

const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
const isGlob = (v: string) => /[*?]/.test(v);
/** "*", "**": every name, including the empty one. */
const matchesEverything = (v: string) => /^\*+$/.test(v);

interface Scope {
  index: number;
  name?: string;
  level: PolicyLevel;
  actor?: string[];
  team?: string[];
  tool?: string[];
  tier?: string[];
  args?: Record<string, MatcherSpec>;
}

/**
 * Globs and patterns compiled once per analysis: the pairwise check meets
 * each rule's up to a thousand times, and compiling them anew each time took
 * 14 s for 1,000 rules on the event loop (docs/security.md#the-policy-reads-command-lines).
 */
class Compiled {
  private readonly tests = new Map<string, ((text: string) => boolean) | null>();

  glob(glob: string, caseInsensitive: boolean): (text: string) => boolean {
    return this.get(`g${caseInsensitive ? "i" : ""}\u0000${glob}`, () => {
      const re = globToRegExp(glob, caseInsensitive ? "i" : "");
      return (t) => re.test(t);
    })!;
  }

  /** null for a pattern that does not compile. */
  pattern(pattern: string): ((text: string) => boolean) | null {
    return this.get(`p\u0000${pattern}`, () => {
      let re: LinearPattern;
      try {
        re = linearPattern(pattern);
      } catch {
        return null;
      }
      return (t) => re.test(t);
    });
  }

  private get(key: string, make: () => ((text: string) => boolean) | null): ((text: string) => boolean) | null {
    if (!this.tests.has(key)) this.tests.set(key, make());
    return this.tests.get(key)!;
  }
}

const label = (s: Scope) => `rule ${s.index + 1}${s.name ? ` "${s.name}"` : ""}`;

export function unreachableRules(rules: readonly RuleSpec[]): RuleWarning[] {
  if (rules.length > MAX_ANALYZED_RULES) return [];
  const scopes: Scope[] = rules.map((r, index) => ({
    index,
    name: r.name,
    level: ruleLevel(r),
    actor: list(r.actor),
    team: list(r.team),
    tool: list(r.tool),
    tier: list(r.tier ?? r.environment),
    args: r.args,
  }));
  // The order evaluate() checks them in: level by level, document order within a level.
  const order = LEVELS.flatMap((level) => scopes.filter((s) => s.level === level));
  const warnings: RuleWarning[] = [];
  const compiled = new Compiled();
  order.forEach((rule, position) => {
    const impossible = contradiction(rule);
    if (impossible) {
      warnings.push({ rule: rule.index, message: `${label(rule)} can never match: ${impossible}` });
      return;
    }
    const shadow = order.slice(0, position).find((earlier) => covers(earlier, rule, compiled));
    if (shadow) {
      const where =
        shadow.level === rule.level ? "comes before it" : `is at the ${shadow.level} level, checked before the ${rule.level} level`;
      warnings.push({
        rule: rule.index,
        message: `${label(rule)} can never match: ${label(shadow)} matches every call it matches and ${where}`,
      });
    }
  });
  return warnings.sort((a, b) => a.rule - b.rule);
}

/** Why no call can meet the rule's argument conditions, or null. */
function contradiction(rule: Scope): string | null {
  const paths = Object.keys(rule.args ?? {});
  for (const parent of paths) {
    const child = paths.find((p) => p.startsWith(`${parent}.`));
    if (!child) continue;
    // The child exists only when the parent is an object or a list, whose text starts with { or [.
    const m = rule.args![parent];
    if (!canBeStructured(m)) return `argument "${child}" needs "${parent}" to be an object, but "${parent}" must be ${describe(m)}`;
  }
  return null;
}

function canBeStructured(m: MatcherSpec): boolean {
  const structured = (v: string) => v.startsWith("{") || v.startsWith("[");
  if ("equals" in m) return structured(m.equals);
  if ("oneOf" in m) return m.oneOf.some(structured);
  if ("prefix" in m) return structured(m.prefix);
  return true;
}

function describe(m: MatcherSpec): string {
  if ("equals" in m) return JSON.stringify(m.equals);
  if ("oneOf" in m) return `one of ${m.oneOf.map((v) => JSON.stringify(v)).join(", ")}`;
  if ("prefix" in m) return `text starting with ${JSON.stringify(m.prefix)}`;
  return "text";
}

/** True when every call `later` matches is also matched by `earlier`. */
function covers(earlier: Scope, later: Scope, compiled: Compiled): boolean {
  return (
    actorsCover(earlier.actor, later.actor) &&
    namesCover(earlier.team, later.team, { caseInsensitive: false, nullable: true }, compiled) &&
    namesCover(earlier.tool, later.tool, { caseInsensitive: false, nullable: false }, compiled) &&
    namesCover(earlier.tier, later.tier, { caseInsensitive: true, nullable: false }, compiled) &&
    argsCover(earlier.args, later.args, compiled)
  );
}

function actorsCover(earlier: string[] | undefined, later: string[] | undefined): boolean {
  if (!earlier) return true;
  if (!later) return false;
  const wanted = new Set(earlier.map((v) => v.toLowerCase()));
  return later.every((v) => wanted.has(v.toLowerCase()));
}

/**
 * Names and globs. A later glob is covered only by the same glob or by "*";
 * a later exact name by an equal name or an earlier glob matching it.
 * A team condition never matches a run without a team, so "*" covers teams
 * only when the later rule names a team too.
 */
function namesCover(
  earlier: string[] | undefined,
  later: string[] | undefined,
  o: { caseInsensitive: boolean; nullable: boolean },
  compiled: Compiled,
): boolean {
  if (!earlier) return true;
  if (!later) return !o.nullable && earlier.some(matchesEverything);
  const norm = (s: string) => (o.caseInsensitive ? s.toLowerCase() : s);
  const exact = new Set(earlier.filter((v) => !isGlob(v)).map(norm));
  const globs = earlier.filter(isGlob);
  if (globs.some(matchesEverything)) return true;
  const tests = globs.map((g) => compiled.glob(g, o.caseInsensitive));
  return later.every((v) => (isGlob(v) ? globs.some((g) => norm(g) === norm(v)) : exact.has(norm(v)) || tests.some((test) => test(v))));
}

function argsCover(
  earlier: Record<string, MatcherSpec> | undefined,
  later: Record<string, MatcherSpec> | undefined,
  compiled: Compiled,
): boolean {
  if (!earlier) return true;
  return Object.entries(earlier).every(([path, m]) => {
    const narrower = later?.[path];
    return narrower !== undefined && matcherCovers(m, narrower, compiled);
  });
}

/** Every text `later` accepts is accepted by `earlier`. */
export function matcherCovers(earlier: MatcherSpec, later: MatcherSpec, compiled = new Compiled()): boolean {
  // Texts `later` can accept when there are finitely many of them.
  const finite = "equals" in later ? [later.equals] : "oneOf" in later ? later.oneOf : null;
  if (finite) {
    const accepts = textTest(earlier, compiled);
    return accepts !== null && finite.every(accepts);
  }
  if ("pattern" in earlier) return "pattern" in later && later.pattern === earlier.pattern;
  if ("prefix" in earlier) return "prefix" in later && later.prefix.startsWith(earlier.prefix);
  if ("contains" in earlier) {
    if ("prefix" in later) return later.prefix.includes(earlier.contains);
    if ("contains" in later) return later.contains.includes(earlier.contains);
  }
  return false;
}

function textTest(m: MatcherSpec, compiled: Compiled): ((text: string) => boolean) | null {
  if ("equals" in m) return (t) => t === m.equals;
  if ("oneOf" in m) return (t) => m.oneOf.includes(t);
  if ("prefix" in m) return (t) => t.startsWith(m.prefix);
  if ("contains" in m) return (t) => t.includes(m.contains);
  return compiled.pattern(m.pattern);
}
