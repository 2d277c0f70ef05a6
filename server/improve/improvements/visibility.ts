// What of other runs an improvement's or a skill's page may show a person:
// friction is grouped per agent across teams and a skill for everyone is
// loaded by every team's runs, so their runs, goals and evidence are filtered
// to the runs the person may see, like the Runs page.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { runsVisibleTo } from "@/server/kernel";

/** The ids among `ids` of runs the actor may see. */
export async function visibleRunIds(db: Db, actor: Actor, ids: Iterable<string>): Promise<Set<string>> {
  const wanted = [...new Set(ids)];
  if (actor.role === "admin" || !wanted.length) return new Set(wanted);
  const rows = await db.run.findMany({ where: { AND: [{ id: { in: wanted } }, runsVisibleTo(actor)] }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}
