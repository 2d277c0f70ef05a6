// A team's choice whether memories that scenario runs saved load into its
// other runs. A scenario run's commands are text its launcher wrote, so what
// it "remembers" is a person's words: by default they stay in that run
// (docs/memory.md#scenario-memories). Stored per team id, read at each use.
import { z } from "zod";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { MemoryError } from "./types";

const KEY_PREFIX = "memory.scenarioShared.";
const keyOf = (teamId: string) => `${KEY_PREFIX}${teamId}`;

export const ScenarioSharingInput = z
  .object({ teamId: z.string().trim().min(1, "teamId is required").max(100), shared: z.boolean() })
  .strict();

/** Does the team let memories of scenario runs load into its other runs? No, unless it said so. */
export async function scenarioMemoriesShared(db: Db, teamId: string): Promise<boolean> {
  const row = await db.setting.findUnique({ where: { key: keyOf(teamId) }, select: { value: true } });
  return row?.value === "true";
}

/** The teams a person sees, each with its choice and whether the person may change it. */
export async function scenarioSharingFor(
  db: Db,
  actor: Actor,
): Promise<Array<{ teamId: string; teamName: string; shared: boolean; canChange: boolean }>> {
  const teams = await db.team.findMany({
    where: { archivedAt: null, ...(actor.role === "admin" ? {} : { id: { in: actor.teamIds } }) },
    select: { id: true, name: true },
    orderBy: { name: "asc" },
  });
  const rows = await db.setting.findMany({ where: { key: { in: teams.map((t) => keyOf(t.id)) } }, select: { key: true, value: true } });
  const on = new Set(rows.filter((r) => r.value === "true").map((r) => r.key));
  return teams.map((t) => {
    const role = roleIn(actor, t.id);
    return { teamId: t.id, teamName: t.name, shared: on.has(keyOf(t.id)), canChange: !!role && roleAtLeast(role, "admin") };
  });
}

/** A team's admin turns the sharing on or off; audited. */
export async function setScenarioSharing(
  db: Db,
  actor: Actor,
  raw: unknown,
  channel = "admin",
): Promise<{ teamId: string; shared: boolean }> {
  const parsed = ScenarioSharingInput.safeParse(raw);
  if (!parsed.success)
    throw new MemoryError("INVALID_INPUT", parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  const { teamId, shared } = parsed.data;
  const team = await db.team.findUnique({ where: { id: teamId }, select: { id: true, name: true } });
  const role = team ? roleIn(actor, team.id) : null;
  if (!team || !role) throw new MemoryError("NOT_FOUND", `There is no team ${teamId}`);
  if (!roleAtLeast(role, "admin"))
    throw new MemoryError("FORBIDDEN", `Sharing scenario memories needs the admin role in ${team.name}; you are ${role}`);
  const value = shared ? "true" : "false";
  await db.setting.upsert({
    where: { key: keyOf(teamId) },
    create: { key: keyOf(teamId), value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
  await recordAudit(db, {
    kind: "memory.scenario_sharing",
    actorId: actor.userId,
    actorName: actor.name,
    channel,
    subject: team.name,
    teamId,
    detail: { teamId, shared },
  });
  return { teamId, shared };
}
