// Self-improvement (docs/improvements.md): friction from telemetry,
// hack cycles run by the built-in improver agent, runtime tools in a QuickJS
// sandbox hot-loaded after their gate, skills, and the views people use.
export { Improve, type ImproveDeps } from "./service";
export { HackCycles, IMPROVE_WORKFLOW, type SessionRun } from "./cycles/service";
export * from "./cycles/states";
export * from "./improvements/states";
export {
  ImprovementError,
  ListImprovementsInput,
  ACTION_ROLE,
  actOnImprovement,
  getImprovement,
  hiddenRuntimeToolNames,
  listImprovements,
  visibleImprovements,
  type ImprovementAction,
  type ImprovementActionDeps,
} from "./improvements/service";
export { LiveRuntimeTools, inScope, type LiveTool } from "./runtime-tools/live";
export { RuntimeToolProposal, TriggerCase, argsValidator } from "./runtime-tools/proposal";
export { runCases, difference, storedCaseRun, CaseRun, CaseResult } from "./runtime-tools/cases";
export { recordFriction } from "./friction/store";
export { ImproveSettings, DEFAULT_IMPROVE_SETTINGS, improveSettings, saveImproveSettings, SETTING_IMPROVE } from "./settings";
export { improvementDashboard } from "./improvements/dashboard";
export { listFriction, decideFriction, ListFrictionInput, FrictionDecision, FRICTION_STATES } from "./improvements/friction";
export * from "./friction";
export {
  SkillLibrary,
  SkillError,
  SkillMdError,
  parseSkillMd,
  readSkillMd,
  formatProblem,
  listSkills,
  getSkill,
  proposeSkill,
  type ActiveSkill,
  type ParsedSkill,
  type SkillProblem,
} from "./skills";
export * from "./sandbox";
export * from "./repos";
export { ChangeRequests, CHANGE_WORKFLOW, PROPOSE_CHANGE, StartChangeInput, ListChangesInput, type ChangeDeps } from "./changes/service";
export * from "./extensions";
