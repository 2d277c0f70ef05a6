// Retention of span detail (issue: "rollups kept"): inputs and outputs of spans
// older than the setting are dropped; the spans, their costs and the rollups stay.
import { DomainError } from "@/server/errors";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";

export const SETTING_RETENTION = "telemetry.detailRetentionDays";
export const DEFAULT_RETENTION_DAYS = 30;

export async function retentionDays(db: Db): Promise<number> {
  const row = await db.setting.findUnique({ where: { key: SETTING_RETENTION } });
  const days = row ? Number(JSON.parse(row.value)) : DEFAULT_RETENTION_DAYS;
  return Number.isInteger(days) && days >= 1 ? days : DEFAULT_RETENTION_DAYS;
}

export async function saveRetentionDays(db: Db, days: number, actor: { id: string; name: string }): Promise<void> {
  if (!Number.isInteger(days) || days < 1 || days > 3650)
    throw new DomainError("INVALID_INPUT", "Retention must be a whole number of days from 1 to 3650");
  const value = JSON.stringify(days);
  await db.setting.upsert({
    where: { key: SETTING_RETENTION },
    create: { key: SETTING_RETENTION, value, updatedById: actor.id },
    update: { value, updatedById: actor.id },
  });
  await recordAudit(db, {
    kind: "settings.updated",
    actorId: actor.id,
    actorName: actor.name,
    channel: "admin",
    subject: SETTING_RETENTION,
    detail: { days },
  });
}

/** Drops the detail of spans older than the retention; returns how many. */
export async function applyRetention(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - (await retentionDays(db)) * 86_400_000);
  const res = await db.span.updateMany({ where: { startTime: { lt: cutoff }, detail: { not: null } }, data: { detail: null } });
  return res.count;
}
