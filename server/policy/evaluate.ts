// The cascade: actor rules, then team, then tool, then environment; the first
// matching rule of the first level that has one decides; otherwise deny.
import { LEVELS, type CompiledPolicy, type PolicyInput, type PolicyVerdict } from "./types";

export const DEFAULT_DENY_REASON = "no rule matched: default deny";

/** Pure and in-memory: no I/O, matchers were compiled by parsePolicy. */
export function evaluate(policy: CompiledPolicy, input: PolicyInput): PolicyVerdict {
  for (const level of LEVELS) {
    for (const rule of policy.levels[level]) {
      if (rule.matches(input)) {
        const v = rule.verdict;
        return v.ask ? { ...v, ask: { ...v.ask } } : { ...v };
      }
    }
  }
  return { effect: "deny", level: "default", rule: null, reason: DEFAULT_DENY_REASON, policyVersion: policy.version };
}

/**
 * The deciding rule's number as people read it, the one its reason names
 * ("rule 2 … denies the call"): the 1-based position of `rule` (0-based) in
 * the document's rules; null when no rule decided. The audit log stores this.
 */
export function ruleNumber(verdict: { rule: number | null }): number | null {
  return verdict.rule === null ? null : verdict.rule + 1;
}
