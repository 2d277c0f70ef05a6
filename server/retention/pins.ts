// Pinning a run keeps it whole, whatever retention says (docs/operations.md#retention).
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { getRunAs } from "@/server/kernel";
import { lookAgainAt } from "./pruner";

/** Pins or unpins a run; needs the operator role in its team. Parts already dropped stay dropped. */
export async function setRunPinned(deps: { db: Db }, runId: string, pinned: boolean, actor: Actor) {
  const run = await getRunAs(deps.db, runId, actor, "operator", pinned ? "Pinning a run" : "Unpinning a run");
  const row = await deps.db.run.update({
    where: { id: run.id },
    data: pinned ? { pinnedAt: run.pinnedAt ?? new Date(), pinnedById: actor.userId } : { pinnedAt: null, pinnedById: null },
    select: { pinnedAt: true, endedAt: true },
  });
  // An unpinned run the pruner walked past while it was pinned is looked at again at the next pass.
  if (!pinned && row.endedAt) await lookAgainAt(deps.db, run.id, row.endedAt);
  if (!!run.pinnedAt !== pinned)
    await recordAudit(deps.db, {
      kind: pinned ? "run.pinned" : "run.unpinned",
      actorId: actor.userId,
      actorName: actor.name,
      channel: actor.via === "session" ? "app" : "api",
      runId: run.id,
    });
  return { id: run.id, pinnedAt: row.pinnedAt };
}
