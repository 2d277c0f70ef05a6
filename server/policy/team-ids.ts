// Policy rules are written with team names, but a team admin can rename their
// team: a rule must keep applying to the team it was written for, and never
// start applying to a team that takes the name later. So each `team:` entry is
// resolved to team ids when a version is saved, kept with that version, and a
// run is matched by its team's id (docs/security.md#teams-are-referenced-by-id).
// A glob ("eng-*") is resolved at save to the teams it matches then.
import type { Db } from "@/server/db";
import { globToRegExp } from "./matchers";
import type { CompiledPolicy, PolicyError } from "./types";
import { LEVELS } from "./types";

/** Each `team:` entry as written (a name or a glob) → the ids of the teams it named when saved. */
export type TeamResolution = Record<string, string[]>;

const isGlob = (entry: string) => /[*?]/.test(entry);

/** Every distinct `team:` entry the policy's rules write. */
export function teamEntries(policy: CompiledPolicy): string[] {
  const out = new Set<string>();
  for (const level of LEVELS) for (const rule of policy.levels[level]) for (const t of rule.teams ?? []) out.add(t);
  return [...out].sort();
}

/**
 * Resolves entries against the teams there are now. Strict (saving): a name
 * no team has, or a glob that matches none, is an error. Lenient (a version
 * saved before teams were resolved): it resolves to no team.
 */
export function resolveEntries(
  entries: string[],
  teams: Array<{ id: string; name: string }>,
  strict: boolean,
): { teams: TeamResolution; errors: PolicyError[] } {
  const resolved: TeamResolution = {};
  const errors: PolicyError[] = [];
  for (const entry of entries) {
    const test = isGlob(entry) ? globToRegExp(entry) : { test: (name: string) => name === entry };
    const ids = teams
      .filter((t) => test.test(t.name))
      .map((t) => t.id)
      .sort();
    if (!ids.length && strict)
      errors.push({ message: isGlob(entry) ? `team: "${entry}" matches no team` : `team: no team is called "${entry}"` });
    resolved[entry] = ids;
  }
  return { teams: resolved, errors };
}

export async function resolvePolicyTeams(
  db: Pick<Db, "team">,
  policy: CompiledPolicy,
  strict: boolean,
): Promise<{ teams: TeamResolution; errors: PolicyError[] }> {
  const entries = teamEntries(policy);
  if (!entries.length) return { teams: {}, errors: [] };
  return resolveEntries(entries, await db.team.findMany({ select: { id: true, name: true } }), strict);
}

export function parseResolution(text: string | null): TeamResolution | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== "object" || Array.isArray(v)) return {};
    return Object.fromEntries(
      Object.entries(v).map(([k, ids]) => [k, Array.isArray(ids) ? ids.filter((x): x is string => typeof x === "string") : []]),
    );
  } catch {
    return {};
  }
}

/**
 * For the editor: where a draft's `team:` names and the teams the version in
 * force resolved them to have drifted apart (a team was renamed), or a name
 * no team has, in words that show the current names.
 */
export async function teamNameNotes(
  db: Pick<Db, "team">,
  draft: CompiledPolicy,
  inForce: TeamResolution,
  source = "",
): Promise<PolicyError[]> {
  const lines = source.split("\n");
  // The first line that names the entry in a team: key, to put the note on (a hint, not parsing).
  const lineOf = (entry: string) => {
    const i = lines.findIndex((l) => l.includes("team") && l.includes(entry));
    return i >= 0 ? { line: i + 1 } : {};
  };
  const entries = teamEntries(draft);
  if (!entries.length) return [];
  const teams = await db.team.findMany({ select: { id: true, name: true } });
  const nameOf = new Map(teams.map((t) => [t.id, t.name]));
  const notes: PolicyError[] = [];
  for (const entry of entries) {
    const now = resolveEntries([entry], teams, false).teams[entry];
    const was = (inForce[entry] ?? []).filter((id) => nameOf.has(id));
    const renamed = was.filter((id) => !now.includes(id)).map((id) => `"${nameOf.get(id)}"`);
    if (renamed.length) {
      notes.push({
        ...lineOf(entry),
        message: `team: "${entry}" is now called ${renamed.join(", ")}; the version in force still applies its rules there. Saving applies them to ${now.length ? "the team called that now" : "no team, and is refused"}; write the new name to keep them`,
      });
    } else if (!now.length) {
      notes.push({
        ...lineOf(entry),
        message: isGlob(entry)
          ? `team: "${entry}" matches no team; saving is refused`
          : `team: no team is called "${entry}"; saving is refused`,
      });
    }
  }
  return notes;
}
