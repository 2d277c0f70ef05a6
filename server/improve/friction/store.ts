// Friction as stored (docs/improvements.md): grouped by (kind, signature, agent)
// across runs, one occurrence row per run with its evidence. Written only by
// the harness (the miner's observations), never by an agent's tool.
import type { Db } from "@/server/db";
import type { FrictionObservation } from "./types";

export interface RecordedFriction {
  id: string;
  /** First time this run showed it (a new occurrence row). */
  newInRun: boolean;
  occurrences: number;
  runCount: number;
}

export async function recordFriction(
  db: Db,
  observation: FrictionObservation,
  run: { id: string; agentName: string; teamId: string | null },
  now = new Date(),
): Promise<RecordedFriction> {
  const key = { kind: observation.kind, signature: observation.signature.slice(0, 500), agentName: run.agentName };
  const friction = await db.friction.upsert({
    where: { kind_signature_agentName: key },
    create: {
      ...key,
      teamId: run.teamId,
      title: observation.title.slice(0, 300),
      tool: observation.tool ?? null,
      firstSeenAt: now,
      lastSeenAt: now,
    },
    update: { lastSeenAt: now, title: observation.title.slice(0, 300) },
    select: { id: true },
  });
  const evidence = JSON.stringify(observation.evidence.slice(-20));
  const existing = await db.frictionOccurrence.findUnique({
    where: { frictionId_runId: { frictionId: friction.id, runId: run.id } },
    select: { count: true },
  });
  if (existing) {
    const grew = Math.max(0, observation.count - existing.count);
    await db.frictionOccurrence.update({
      where: { frictionId_runId: { frictionId: friction.id, runId: run.id } },
      data: { count: Math.max(existing.count, observation.count), evidence },
    });
    const row = await db.friction.update({
      where: { id: friction.id },
      data: { occurrences: { increment: grew } },
      select: { occurrences: true, runCount: true },
    });
    return { id: friction.id, newInRun: false, ...row };
  }
  try {
    await db.frictionOccurrence.create({
      data: { frictionId: friction.id, runId: run.id, count: observation.count, evidence, createdAt: now },
    });
  } catch {
    // Recorded meanwhile by another observer of the same run.
    const row = await db.friction.findUniqueOrThrow({ where: { id: friction.id }, select: { occurrences: true, runCount: true } });
    return { id: friction.id, newInRun: false, ...row };
  }
  // A friction addressed earlier that comes back is open again; one a person dismissed stays dismissed (it still counts).
  const row = await db.friction.update({
    where: { id: friction.id },
    data: { occurrences: { increment: observation.count }, runCount: { increment: 1 } },
    select: { occurrences: true, runCount: true, state: true },
  });
  if (row.state === "addressed") await db.friction.update({ where: { id: friction.id }, data: { state: "open" } });
  return { id: friction.id, newInRun: true, occurrences: row.occurrences, runCount: row.runCount };
}
