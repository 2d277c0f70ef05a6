// Scopes and rules that name teams (secret scopes, MCP tool scopes, policy
// rules) store team ids: a team admin can rename their team, and a name that
// moves to another team must never move what the first team was given
// (docs/security.md#teams-are-referenced-by-id). People may still type a name
// where they set a scope; it is resolved to the id right then.
import type { Db } from "@/server/db";

export const ANY_TEAM = "*";

export interface ResolvedTeamRefs {
  /** Team ids (and "*" when given), in the order given, without repeats. */
  ids: string[];
  /** What matched no team, as given. */
  unknown: string[];
  /** What matched one team's id and another team's name. */
  ambiguous: string[];
}

/** Resolves team ids or names (and "*") to ids. An id wins over a name only when no other team has that name. */
export async function resolveTeamRefs(db: Pick<Db, "team">, refs: string[]): Promise<ResolvedTeamRefs> {
  const wanted = [...new Set(refs.map((r) => r.trim()).filter(Boolean))];
  const out: ResolvedTeamRefs = { ids: [], unknown: [], ambiguous: [] };
  const named = wanted.filter((r) => r !== ANY_TEAM);
  const teams = named.length
    ? await db.team.findMany({ where: { OR: [{ id: { in: named } }, { name: { in: named } }] }, select: { id: true, name: true } })
    : [];
  for (const ref of wanted) {
    if (ref === ANY_TEAM) {
      out.ids.push(ANY_TEAM);
      continue;
    }
    const byId = teams.find((t) => t.id === ref);
    const byName = teams.find((t) => t.name === ref);
    if (byId && byName && byId.id !== byName.id) out.ambiguous.push(ref);
    else if (byId ?? byName) out.ids.push((byId ?? byName)!.id);
    else out.unknown.push(ref);
  }
  out.ids = [...new Set(out.ids)];
  return out;
}

/** The current names of these teams, by id, for showing a scope ("*" and ids of deleted teams are left out). */
export async function teamNamesById(db: Pick<Db, "team">, ids: Iterable<string>): Promise<Map<string, string>> {
  const list = [...new Set(ids)].filter((id) => id !== ANY_TEAM);
  if (!list.length) return new Map();
  const rows = await db.team.findMany({ where: { id: { in: list } }, select: { id: true, name: true } });
  return new Map(rows.map((t) => [t.id, t.name]));
}

/** A short sentence for a scope that named teams that do not exist, for a 4xx error. */
export function teamRefsProblem(r: ResolvedTeamRefs): string | null {
  if (r.unknown.length) return `No team is called ${r.unknown.join(", ")}`;
  if (r.ambiguous.length) return `${r.ambiguous.join(", ")} is one team's id and another team's name; give the team's id`;
  return null;
}
