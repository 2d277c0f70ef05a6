// Who may decide a change and what it merges, read at the moment of acting
// (docs/security.md#change-requests): the repository's team as it is now,
// never the team a request was asked of when it was made, and the commit that
// was reviewed, never whatever the change's branch points at later.
import type { Db } from "@/server/db";
import { roleRefusal } from "@/server/hitl";
import { loadActor } from "@/server/identity";
import { gitText } from "../repos/git";

/** Why the change's branch no longer holds the reviewed commit, or null when it does. */
export async function branchMovedRefusal(row: { branch: string; headCommit: string | null }, gitDir: string): Promise<string | null> {
  if (!row.headCommit) return "The agent has not proposed anything yet; there is nothing to merge";
  const now = await gitText(["rev-parse", "--verify", "--quiet", `refs/heads/${row.branch}^{commit}`], { gitDir }).catch(() => null);
  if (now === row.headCommit) return null;
  return `The change's branch ${row.branch} moved since it was reviewed (${now ? `it is at ${now.slice(0, 12)}` : "it is gone"}, the review was of ${row.headCommit.slice(0, 12)}); nothing was merged. Reject it and start the change again`;
}

/**
 * Why a decision on a change does not count, or null when it does: it must
 * come from an approver in the repository's current team (who so sees it).
 * A rejection Rein itself recorded counts.
 */
export async function deciderRefusal(
  db: Db,
  decidedById: string | null,
  repo: { teamId: string | null; name: string },
  did: "approved" | "rejected",
): Promise<string | null> {
  if (did === "rejected" && (!decidedById || decidedById === "system")) return null;
  const person = decidedById ? await loadActor(db, decidedById) : null;
  if (!person)
    return `Whoever ${did} it is no longer a person of Rein, so that does not count; an approver of the repository's team must decide it (run its checks again to ask anew)`;
  if (person.role === "admin") return null;
  const sees = repo.teamId === null || person.teamIds.includes(repo.teamId);
  const decider = { id: person.userId, name: person.name, role: person.role, teamIds: person.teamIds, teamRoles: person.teamRoles };
  if (sees && !roleRefusal(decider, repo.teamId, "approver", "Deciding a change")) return null;
  return `${person.name} ${did} it but is not an approver in the team of ${repo.name}, so that does not count; an approver of that team must decide it (run its checks again to ask anew)`;
}
