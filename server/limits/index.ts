// Limits (I10, docs/runs.md#limits): the doom-loop guard and budgets checked
// before every model call (the call cap is the run's maxSteps, in the kernel).
// Per-provider rate limits and circuit breakers guard every model (guardModel).
export { consecutiveRepeats, loopSuspected, stepsWithoutProgress, DEFAULT_MAX_REPEATS, DEFAULT_MAX_FAILING_STEPS } from "./doom-loop";
export { Budgets, SETTING_RUN_BUDGET, type BudgetDeps, type BudgetVerdict } from "./budgets";
export { RateLimiter, rpsFromEnv } from "./rate-limiter";
export { CircuitBreaker, CircuitOpenError, type CircuitState } from "./circuit-breaker";
export { guardModel, type ModelGuards } from "./guarded-model";
export {
  getBudgetSettings,
  setRunBudget,
  setTeamBudget,
  BudgetUsd,
  RunBudgetInput,
  TeamBudgetInput,
  TeamNotFoundError,
  MAX_BUDGET_USD,
  type BudgetSettings,
  type TeamBudgetView,
  type BudgetActor,
} from "./settings";
