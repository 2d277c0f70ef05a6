// Rules compiled once into closures: sets for names, regexes for globs and
// patterns, argument paths split ahead of time. evaluate() only calls them.
import { escapePattern, linearPattern } from "@/server/patterns";
import type { MatcherSpec, RuleSpec } from "./schema";
import type { AskSpec, CompiledRule, Effect, PolicyInput, PolicyLevel, PolicyVerdict } from "./types";

type Test<T> = (value: T) => boolean;

const list = (v: string | string[]) => (Array.isArray(v) ? v : [v]);

/** "browser_*" matches browser_ and anything after it; "?" is one character. Linear time (RE2). */
export function globToRegExp(glob: string, flags = ""): { test(value: string): boolean } {
  const body = escapePattern(glob).replace(/\\\*/g, ".*").replace(/\\\?/g, ".");
  const compiled = linearPattern(`^(?:${body})$`, { ignoreCase: flags.includes("i") });
  return { test: (v) => compiled.test(v) };
}

/** Names and globs; exact names go through a set. */
function nameTest(values: string[], caseInsensitive: boolean): Test<string> {
  const norm = (s: string) => (caseInsensitive ? s.toLowerCase() : s);
  const exact = new Set(values.filter((v) => !/[*?]/.test(v)).map(norm));
  const globs = values.filter((v) => /[*?]/.test(v)).map((g) => globToRegExp(g, caseInsensitive ? "i" : ""));
  if (globs.length === 0) return (v) => exact.has(norm(v));
  return (v) => exact.has(norm(v)) || globs.some((g) => g.test(v));
}

function actorTest(values: string[]): Test<PolicyInput["actor"]> {
  const wanted = new Set(values.map((v) => v.toLowerCase()));
  return (a) => wanted.has(a.id.toLowerCase()) || (a.email !== undefined && wanted.has(a.email.toLowerCase()));
}

function valueTest(m: MatcherSpec): Test<string> {
  if ("equals" in m) return (v) => v === m.equals;
  if ("prefix" in m) return (v) => v.startsWith(m.prefix);
  if ("contains" in m) return (v) => v.includes(m.contains);
  if ("oneOf" in m) {
    const set = new Set(m.oneOf);
    return (v) => set.has(v);
  }
  // An admin's pattern, run on the agent's arguments: linear time, whatever either of them wrote.
  const re = linearPattern(m.pattern);
  return (v) => re.test(v);
}

/** The argument at a dotted path as text (JSON for non-strings), or undefined. */
export function argText(args: unknown, path: readonly string[]): string | undefined {
  let v: unknown = args;
  for (const key of path) {
    if (v === null || typeof v !== "object" || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  if (v === undefined) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v);
}

function argsTest(args: Record<string, MatcherSpec>): Test<unknown> {
  const checks = Object.entries(args).map(([path, m]) => ({ path: path.split("."), test: valueTest(m) }));
  return (input) =>
    checks.every((c) => {
      const text = argText(input, c.path);
      return text !== undefined && c.test(text);
    });
}

function action(effect: Effect, ask?: AskSpec): string {
  if (effect === "allow") return "allows the call";
  if (effect === "deny") return "denies the call";
  const role = ask!.role === "approver" ? "" : ` (${ask!.role})`;
  switch (ask!.kind) {
    case "approve":
      return `asks for approval${role}`;
    case "veto":
      return `asks for a veto window${role}`;
    case "choose":
      return `asks a human to choose${role}`;
    case "provide":
      return `asks a human to provide a value${role}`;
  }
}

/** A rule's level: the first of actor, team, tool, tier it names. */
export function ruleLevel(r: RuleSpec): PolicyLevel {
  return r.actor !== undefined ? "actor" : r.team !== undefined ? "team" : r.tool !== undefined ? "tool" : "environment";
}

/**
 * `teams`: the version's team entries resolved to ids when it was saved; with
 * it, a rule matches a run's team by id (docs/security.md#teams-are-referenced-by-id).
 * Without it (unit checks of a document), by the name given in the input.
 */
export function compileRule(
  r: RuleSpec,
  index: number,
  version: number,
  teams?: Readonly<Record<string, readonly string[]>>,
): CompiledRule {
  const tier = r.tier ?? r.environment;
  const level = ruleLevel(r);
  const tests: Array<Test<PolicyInput>> = [];
  if (r.actor !== undefined) {
    const t = actorTest(list(r.actor));
    tests.push((i) => t(i.actor));
  }
  const teamIds = r.team !== undefined && teams ? [...new Set(list(r.team).flatMap((entry) => teams[entry] ?? []))] : undefined;
  if (r.team !== undefined && teamIds) {
    const ids = new Set(teamIds);
    tests.push((i) => !!i.teamId && ids.has(i.teamId));
  } else if (r.team !== undefined) {
    const t = nameTest(list(r.team), false);
    tests.push((i) => i.team !== null && t(i.team));
  }
  if (r.tool !== undefined) {
    const t = nameTest(list(r.tool), false);
    tests.push((i) => t(i.tool));
  }
  if (tier !== undefined) {
    const t = nameTest(list(tier), true);
    tests.push((i) => t(i.tier));
  }
  const scope = [...tests];
  if (r.args !== undefined) {
    const t = argsTest(r.args);
    tests.push((i) => t(i.args));
  }
  const ask: AskSpec | undefined =
    r.decision === "ask"
      ? { kind: r.ask?.kind ?? "approve", role: r.ask?.role ?? "approver", ...(r.ask?.ttl ? { ttlSec: r.ask.ttl } : {}) }
      : undefined;
  const label = `rule ${index + 1}${r.name ? ` ${JSON.stringify(r.name)}` : ""} (${level} level)`;
  const verdict: PolicyVerdict = {
    effect: r.decision,
    ...(ask ? { ask } : {}),
    level,
    rule: index,
    ...(r.name ? { ruleName: r.name } : {}),
    reason: `${label} ${action(r.decision, ask)}`,
    policyVersion: version,
  };
  return {
    index,
    name: r.name,
    level,
    effect: r.decision,
    ask,
    verdict,
    ...(r.team !== undefined ? { teams: list(r.team) } : {}),
    ...(teamIds ? { teamIds } : {}),
    matches: (input) => tests.every((t) => t(input)),
    inScope: (input) => scope.every((t) => t(input)),
    byArgs: r.args !== undefined,
  };
}
