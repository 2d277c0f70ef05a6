// How many rules of the policy in force are scoped to each team: rules that
// name the team exactly (a glob such as "eng-*" covers several teams and is
// not counted as any one team's). Shown on Settings › Teams. Counted by team
// id, as the rules match (docs/security.md#teams-are-referenced-by-id), so a
// renamed team keeps its count.
import type { Db } from "@/server/db";
import { parsePolicy } from "./document";
import { activePolicy } from "./store";
import { LEVELS } from "./types";

/** Team id → rules naming it, in the active version (the default policy before any). */
export async function teamRuleCounts(db: Db): Promise<Map<string, number>> {
  const active = await activePolicy(db);
  const parsed = parsePolicy(active.source, active.version);
  const counts = new Map<string, number>();
  if (!parsed.ok) return counts;
  for (const level of LEVELS) {
    for (const rule of parsed.policy.levels[level]) {
      const ids = new Set((rule.teams ?? []).filter((t) => !/[*?]/.test(t)).flatMap((t) => active.teams[t] ?? []));
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}
