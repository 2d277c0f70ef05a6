// The routing rules and sensitivity pools, one JSON document in the Setting table.
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { EMPTY_ROUTING, RoutingConfig, type RoutingConfigInput } from "./types";
import type { CatalogActor } from "./store";

export const SETTING_ROUTING = "models.routing";

export async function getRouting(db: Db): Promise<RoutingConfig & { updatedAt: Date | null }> {
  const row = await db.setting.findUnique({ where: { key: SETTING_ROUTING }, select: { value: true, updatedAt: true } });
  if (!row) return { ...EMPTY_ROUTING, updatedAt: null };
  // A document saved by an older version that no longer parses counts as empty rather than stopping every run.
  const parsed = RoutingConfig.safeParse(JSON.parse(row.value));
  return { ...(parsed.success ? parsed.data : EMPTY_ROUTING), updatedAt: row.updatedAt };
}

export async function setRouting(
  db: Db,
  raw: RoutingConfigInput,
  actor: CatalogActor,
): Promise<RoutingConfig & { updatedAt: Date | null }> {
  const config = RoutingConfig.parse(raw);
  const value = JSON.stringify(config);
  await db.setting.upsert({
    where: { key: SETTING_ROUTING },
    create: { key: SETTING_ROUTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
  await recordAudit(db, {
    kind: "routing.updated",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.channel ?? "web",
    subject: "model routing",
    detail: config,
  });
  return getRouting(db);
}
