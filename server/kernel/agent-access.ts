// Who sees an agent (docs/agents.md#who-may-do-what): its Agent row names a
// team, and only that team's members (and admins) see, run or hand off to it; a
// team-less agent, or a name without a row (the built-ins before they are
// seeded), is everyone's. Both the agents service and createRun judge by this.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";

export interface AgentAccessRow {
  name: string;
  teamId: string | null;
  archivedAt: Date | null;
}

export function agentVisibleTo(agent: Pick<AgentAccessRow, "teamId"> | null, actor: Pick<Actor, "role" | "teamIds">): boolean {
  if (!agent || agent.teamId === null || actor.role === "admin") return true;
  return actor.teamIds.includes(agent.teamId);
}

/** Names of Agent rows the actor must not see, to leave out of a list of specs. */
export async function hiddenAgentNames(db: Db, actor: Pick<Actor, "role" | "teamIds">): Promise<Set<string>> {
  if (actor.role === "admin") return new Set();
  const rows = await db.agent.findMany({ where: { teamId: { not: null, notIn: actor.teamIds } }, select: { name: true } });
  return new Set(rows.map((r) => r.name));
}
