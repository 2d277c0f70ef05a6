// Who may be given a secret (docs/secrets.md#who-may-have-a-secret): an admin
// names the agents and the teams whose runs may receive it, and whether runs
// whose commands come from the caller (a scenario given at launch) may have it
// too. A secret no admin has scoped goes to nobody. Checked when a run is
// launched and again each time a tool asks for the value, so narrowing a scope
// takes effect at once for runs already going.
import { z } from "zod";
import type { Db } from "@/server/db";
import { resolveTeamRefs, teamRefsProblem } from "@/server/identity";
import { SecretValidationError } from "./types";

const Names = z.array(z.string().trim().min(1, "a name is empty").max(128)).max(200);

export const SecretScopeInput = z.object({
  /** Agent names, or "*" for any agent. */
  agents: Names.default([]),
  /**
   * Team ids, or "*" for any team (runs without a team included). A team's
   * name is accepted here and stored as its id (docs/security.md#teams-are-referenced-by-id).
   */
  teams: Names.default([]),
  /** Runs whose commands come from the caller (a scenario), not the agent's model, may have it too. */
  callerCommands: z.boolean().default(false),
});
export type SecretScopeInput = z.input<typeof SecretScopeInput>;
export type SecretScope = z.output<typeof SecretScopeInput>;

/** Who a run is, as scopes see it. */
export interface RunIdentity {
  agent: string;
  /** The run's team id; null for a run without a team. */
  teamId: string | null;
  /** The run plays a scenario its launcher gave (its commands are the caller's). */
  callerCommands: boolean;
}

const parseList = (text: string): string[] => {
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

export function scopeOf(row: { allowedAgents: string; allowedTeams: string; callerCommands: boolean }): SecretScope {
  return { agents: parseList(row.allowedAgents), teams: parseList(row.allowedTeams), callerCommands: row.callerCommands };
}

export function scopeColumns(scope: SecretScope) {
  const clean = (names: string[]) => [...new Set(names.map((n) => n.trim()).filter(Boolean))].sort();
  return {
    allowedAgents: JSON.stringify(clean(scope.agents)),
    allowedTeams: JSON.stringify(clean(scope.teams)),
    callerCommands: scope.callerCommands,
  };
}

/** The scope as given, with each team name resolved to its team's id now; unknown teams are refused. */
export async function resolveScope(db: Db, scope: SecretScope): Promise<SecretScope> {
  const teams = await resolveTeamRefs(db, scope.teams);
  const problem = teamRefsProblem(teams);
  if (problem) throw new SecretValidationError(problem);
  return { ...scope, teams: teams.ids };
}

/** Why a run may not have this secret, in words for the person launching it, or null when it may. */
export function scopeRefusal(name: string, scope: SecretScope, run: RunIdentity, teamName: string | null): string | null {
  const where = `${teamName ? `team ${teamName}` : "a run without a team"}`;
  const fix = "an admin can allow it in Settings › Secrets";
  if (!scope.agents.includes("*") && !scope.agents.includes(run.agent))
    return `The secret "${name}" is not allowed for the agent ${run.agent}; ${fix}`;
  // By id: a name can move to another team (docs/security.md#teams-are-referenced-by-id).
  if (!scope.teams.includes("*") && !(run.teamId && scope.teams.includes(run.teamId)))
    return `The secret "${name}" is not allowed for ${where}; ${fix}`;
  if (run.callerCommands && !scope.callerCommands) {
    return `The secret "${name}" is not given to runs whose commands come from their launcher (a scenario); ${fix}`;
  }
  return null;
}

/** Refuses, with the first reason, unless the run may have every one of these secrets. */
export async function checkSecretScopes(db: Db, names: string[], run: RunIdentity): Promise<void> {
  if (names.length === 0) return;
  const rows = await db.secret.findMany({
    where: { name: { in: names } },
    select: { name: true, allowedAgents: true, allowedTeams: true, callerCommands: true },
  });
  // The name is only for the message.
  const teamName = run.teamId ? ((await db.team.findUnique({ where: { id: run.teamId }, select: { name: true } }))?.name ?? null) : null;
  for (const row of rows) {
    const why = scopeRefusal(row.name, scopeOf(row), run, teamName);
    if (why) throw new SecretValidationError(why);
  }
}
