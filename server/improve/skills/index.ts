// Skills (docs/skills.md): SKILL.md files people write or the
// improver proposes through a review gate, listed in the prompts of the runs
// in their scope within a token budget and loaded with load_skill.
export {
  parseSkillMd,
  readSkillMd,
  formatProblem,
  SkillMdError,
  SKILL_NAME,
  MAX_BODY_BYTES,
  type ParsedSkill,
  type SkillProblem,
  type SkillParse,
} from "./skill-md";
export { SkillLibrary, SkillError, skillInScope, type ActiveSkill, type SkillScope, type SkillLibraryDeps } from "./library";
export { skillsSection, SKILLS_HEADER, DEFAULT_SKILLS_BUDGET, type SkillsSection } from "./prompt";
export {
  reviewSkill,
  lexicallyApplies,
  readVerdict,
  authorModelOf,
  SKILL_REVIEWER,
  type SkillReview,
  type SkillGateDeps,
  type TriggerVerdict,
} from "./gate";
export { loadSkillTool, proposeSkillTool, proposeSkill, type SkillProposalResult } from "./tools";
export { listSkills, getSkill, type SkillOutcomes } from "./views";
