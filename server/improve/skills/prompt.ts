// The skills section of a run's system prompt, within a token budget. A
// skill that does not fit is never dropped silently: the section says how
// many were left out, and the caller records which.
import { countTokens } from "@/server/models";

export const SKILLS_HEADER = "Skills you can load with load_skill:";
export const DEFAULT_SKILLS_BUDGET = 1_000;

export interface ListedSkill {
  name: string;
  description: string;
}

export interface SkillsSection {
  text: string;
  listed: string[];
  omitted: string[];
  tokens: number;
}

export const omittedLine = (n: number, budget: number) =>
  `(${n} more skill${n === 1 ? "" : "s"} in your scope did not fit the ${budget}-token list and ${n === 1 ? "is" : "are"} not shown.)`;

/** Lists skills in the given order while they fit; the rest are named in `omitted`. */
export function skillsSection(skills: ListedSkill[], budget = DEFAULT_SKILLS_BUDGET): SkillsSection | null {
  if (!skills.length) return null;
  // Room for the closing line is kept back from the start: it may be needed.
  const reserve = countTokens(`\n${omittedLine(skills.length, budget)}`);
  let used = countTokens(SKILLS_HEADER);
  const lines: string[] = [];
  const listed: string[] = [];
  const omitted: string[] = [];
  for (const s of skills) {
    const line = `- ${s.name}: ${s.description.replace(/\s+/g, " ")}`;
    const cost = countTokens(`\n${line}`);
    if (used + cost + reserve <= budget) {
      lines.push(line);
      listed.push(s.name);
      used += cost;
    } else omitted.push(s.name);
  }
  if (omitted.length) lines.push(omittedLine(omitted.length, budget));
  const text = [SKILLS_HEADER, ...lines].join("\n");
  return { text, listed, omitted, tokens: countTokens(text) };
}
