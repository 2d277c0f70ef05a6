// What the rule form on Settings › Policy offers, read from the zod schema the
// parser checks with, so the form and the parser cannot disagree
// (docs/human-requests-and-policy.md#the-rule-form).
import { MATCHER_KEYS, RuleSchema } from "./schema";
import type { AskKind, AskRole, Effect } from "./types";

export interface PolicyGrammar {
  /** A rule's keys in the order the form writes them. */
  ruleKeys: string[];
  decisions: Effect[];
  askKinds: AskKind[];
  askRoles: AskRole[];
  /** What an `ask` without kind or role means. */
  askDefaults: { kind: AskKind; role: AskRole };
  /** The argument matchers ({ equals }, { pattern }, …). */
  matchers: string[];
}

export function policyGrammar(): PolicyGrammar {
  const rule = RuleSchema.shape;
  const ask = rule.ask.unwrap().shape;
  return {
    ruleKeys: Object.keys(rule),
    decisions: [...rule.decision.options],
    askKinds: [...ask.kind.unwrap().options],
    askRoles: [...ask.role.unwrap().options],
    askDefaults: { kind: ask.kind.def.defaultValue, role: ask.role.def.defaultValue },
    matchers: [...MATCHER_KEYS],
  };
}
