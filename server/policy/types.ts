// PolicyGate (I9) shapes: what a decision is asked about and what it says
// (docs/human-requests-and-policy.md#policy).

export const EFFECTS = ["allow", "deny", "ask"] as const;
export type Effect = (typeof EFFECTS)[number];

/** The kinds of human request an `ask` opens (docs/human-requests-and-policy.md#ask). */
export const ASK_KINDS = ["approve", "choose", "provide", "veto"] as const;
export type AskKind = (typeof ASK_KINDS)[number];

/** Who may answer an `ask`. */
export const ASK_ROLES = ["operator", "approver", "admin"] as const;
export type AskRole = (typeof ASK_ROLES)[number];

/** Rule levels in cascade order: the first level with a matching rule decides. */
export const LEVELS = ["actor", "team", "tool", "environment"] as const;
export type PolicyLevel = (typeof LEVELS)[number];

export interface PolicyInput {
  actor: { id: string; email?: string };
  /** The run's team name, if any: matched only by a document compiled without team ids (a draft). */
  team: string | null;
  /** The run's team id, if any: what a stored version's team rules match (docs/security.md#teams-are-referenced-by-id). */
  teamId?: string | null;
  tool: string;
  args: unknown;
  /** The compute tier (environment) the call would run in, e.g. "T1". */
  tier: string;
}

export interface AskSpec {
  kind: AskKind;
  role: AskRole;
  /** Absent: the human-request defaults (TTL ladder) apply. */
  ttlSec?: number;
}

export interface PolicyVerdict {
  effect: Effect;
  ask?: AskSpec;
  level: PolicyLevel | "default";
  /** The deciding rule's index in the document's `rules` (0-based); null for the default. */
  rule: number | null;
  ruleName?: string;
  /** For people: which rule decided and what it says. */
  reason: string;
  policyVersion: number;
}

export interface PolicyError {
  /** 1-based line in the YAML source, when known. */
  line?: number;
  message: string;
}

export interface CompiledRule {
  index: number;
  name?: string;
  level: PolicyLevel;
  effect: Effect;
  ask?: AskSpec;
  /** What evaluate() answers when this rule decides. */
  verdict: PolicyVerdict;
  /** The team names (or globs) the rule is scoped to, when it names any. */
  teams?: readonly string[];
  /** Those entries as the team ids they were resolved to when the version was saved. */
  teamIds?: readonly string[];
  matches(input: PolicyInput): boolean;
  /** Whether the rule's actor, team, tool and tier match, whatever the arguments. */
  inScope(input: PolicyInput): boolean;
  /** The rule names argument conditions. */
  byArgs: boolean;
}

/** A parsed, validated policy with its matchers compiled; evaluate() reads only this. */
export interface CompiledPolicy {
  /** The stored version, or 0 for a draft that was never saved. */
  version: number;
  ruleCount: number;
  /** Rules of each level, in document order. */
  levels: Readonly<Record<PolicyLevel, readonly CompiledRule[]>>;
}

/** A valid policy may still hold rules that can never match: warnings, not errors. */
export type ParseResult = { ok: true; policy: CompiledPolicy; warnings: PolicyError[] } | { ok: false; errors: PolicyError[] };
