// How many rules of the policy in force are scoped to each team: rules that
// name the team exactly (a glob such as "eng-*" covers several teams and is
// not counted as any one team's). Shown on Settings › Teams.
import type { Db } from "@/server/db";
import { DEFAULT_POLICY } from "./default-policy";
import { parsePolicy } from "./document";
import { LEVELS } from "./types";

/** Team name → rules naming it, read from the newest stored version (the default policy before any). */
export async function teamRuleCounts(db: Pick<Db, "policyDocument">): Promise<Map<string, number>> {
  const row = await db.policyDocument.findFirst({ orderBy: { version: "desc" }, select: { source: true } });
  const parsed = parsePolicy(row?.source ?? DEFAULT_POLICY);
  const counts = new Map<string, number>();
  if (!parsed.ok) return counts;
  for (const level of LEVELS) {
    for (const rule of parsed.policy.levels[level]) {
      for (const team of new Set(rule.teams ?? [])) {
        if (!/[*?]/.test(team)) counts.set(team, (counts.get(team) ?? 0) + 1);
      }
    }
  }
  return counts;
}
