// Words, links and the template the Skills pages share.
import type { RouterOutputs } from "@/lib/trpc";

export type SkillSummary = RouterOutputs["skills"]["list"][number];
export type SkillDetail = RouterOutputs["skills"]["get"];
export interface Outcomes {
  runs: number;
  succeeded: number;
  successRate: number | null;
}

export const skillHref = (name: string) => `/skills/${encodeURIComponent(name)}`;
export const runHref = (id: string) => `/runs/${encodeURIComponent(id)}`;

/** "80% (4 runs)", or "— (0 runs)" before any run in its scope ended. */
export function outcomeText(o: Outcomes): string {
  const runs = `${o.runs} run${o.runs === 1 ? "" : "s"}`;
  return o.successRate === null ? `— (${runs})` : `${Math.round(o.successRate * 100)}% (${runs})`;
}

export function scopeText(scope: { agents: string[]; teams: string[] }): string {
  const agents = scope.agents.length ? scope.agents.join(", ") : "every agent";
  return scope.teams.length ? `${agents} · teams ${scope.teams.join(", ")}` : agents;
}

/** A new skill's SKILL.md: every front-matter key Rein reads, with a body to replace. */
export const SKILL_TEMPLATE = `---
name: my-skill
description: What the skill does and when to use it, in one or two sentences the agent reads in its prompt.
scope:
  agents: []
  teams: []
tags: []
triggers:
  should:
    - A goal this skill should be loaded for
  shouldNot:
    - A goal it should not be loaded for
---
# My skill

The instructions the agent reads when it loads this skill with load_skill:
the steps, the commands, the pitfalls.
`;
