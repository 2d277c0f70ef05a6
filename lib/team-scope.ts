// Scopes store team ids; pages show names and send ids
// (docs/security.md#teams-are-referenced-by-id). "*" is "any team".
export interface TeamRef {
  id: string;
  name: string;
}

/** The names to show for a scope's team ids; an id whose team is gone shows as such, or is left out for an editor. */
export function teamScopeNames(ids: string[], teams: TeamRef[], opts: { dropRemoved?: boolean } = {}): string[] {
  return ids.flatMap((id) => {
    if (id === "*") return ["*"];
    const name = teams.find((t) => t.id === id)?.name;
    return name ? [name] : opts.dropRemoved ? [] : ["a removed team"];
  });
}

/** Names typed by a person, as ids to send. A name no listed team has is sent as typed, for the server to refuse clearly. */
export function teamScopeIds(names: string[], teams: TeamRef[]): string[] {
  return names.map((n) => (n === "*" ? "*" : (teams.find((t) => t.name === n)?.id ?? n)));
}
