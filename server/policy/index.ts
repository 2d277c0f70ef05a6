// PolicyGate (I9): allow, deny or ask for every tool call, from a versioned
// YAML policy that cascades actor -> team -> tool -> environment -> deny
// (docs/human-requests-and-policy.md#policy). Other code imports only this file.
export { PolicyGate, compileStored, type PolicyGateOptions } from "./gate";
export { parsePolicy, formatPolicyError, PolicyValidationError } from "./document";
export { evaluate, ruleNumber, DEFAULT_DENY_REASON } from "./evaluate";
export { decideCall, COMMAND_LINE_ARG, type DecideOptions } from "./decide";
export { readCommandLine, closeCommandReaders, READ_LIMIT_MS, INLINE_MAX_CHARS, INLINE_MAX_NODES } from "./reader";
export { unreachableRules, type RuleWarning } from "./analysis";
export { analyzeShell, type ShellAnalysis, type ShellPart } from "./shell";
export { DEFAULT_POLICY, EARLIER_DEFAULT_POLICIES } from "./default-policy";
export { previewPolicy, type PreviewSample } from "./preview";
export { MAX_POLICY_CHARS } from "./schema";
export { policyGrammar, type PolicyGrammar } from "./grammar";
export { teamRuleCounts } from "./team-rules";
export { teamNameNotes, type TeamResolution } from "./team-ids";
export {
  activePolicy,
  savePolicy,
  listPolicyVersions,
  getPolicyVersion,
  latestPolicyVersion,
  PolicyConflictError,
  MAX_COMMENT_CHARS,
  type PolicyVersionSummary,
  type PolicyVersionRecord,
  type SavePolicyInput,
} from "./store";
export {
  EFFECTS,
  ASK_KINDS,
  ASK_ROLES,
  LEVELS,
  type Effect,
  type AskKind,
  type AskRole,
  type AskSpec,
  type PolicyLevel,
  type PolicyInput,
  type PolicyVerdict,
  type PolicyError,
  type CompiledPolicy,
  type ParseResult,
} from "./types";
export {
  ruleSuggestions,
  acceptSuggestion,
  dismissSuggestion,
  MIN_APPROVALS,
  WINDOW_DAYS,
  type RuleSuggestion,
  type SuggestionApproval,
} from "./suggestions";
