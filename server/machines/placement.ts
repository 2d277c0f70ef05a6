// Which machine a run moving to T3 gets (docs/desktops-and-tiers.md#t3-remote-machines):
// one that is ready (host key confirmed, not archived), that the run's team
// may use (a machine of that team or of every team), with room under its
// concurrency; among those, one with every label the agent asks for when there
// is one. The choice itself is pure; the query is scoped by team.
import type { Db } from "@/server/db";
import type { Confinement } from "@/lib/machines";

export interface MachineCandidate {
  id: string;
  name: string;
  labels: string[];
  concurrency: number;
  confinement: Confinement;
}

export type MachineChoice = { ok: true; machine: MachineCandidate } | { ok: false; reason: string };

function labelsOf(raw: string): string[] {
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((l): l is string => typeof l === "string").slice(0, 32) : [];
  } catch {
    return [];
  }
}

/** Ready machines the team may use, oldest first (a stable order). */
export async function readyMachines(db: Db, teamId: string | null): Promise<MachineCandidate[]> {
  const rows = await db.machine.findMany({
    where: {
      archivedAt: null,
      hostKeyFingerprint: { not: null },
      OR: [{ teamId: null }, ...(teamId ? [{ teamId }] : [])],
    },
    select: { id: true, name: true, labels: true, concurrency: true, confinement: true },
    orderBy: { createdAt: "asc" },
    take: 200,
  });
  return rows.map((r) => ({ ...r, labels: labelsOf(r.labels), confinement: r.confinement as Confinement }));
}

/**
 * The machine for the run: the least busy one with room, preferring those
 * with every wanted label. `busy`: runs on T3 now, by machine id.
 */
export function chooseMachine(
  candidates: MachineCandidate[],
  busy: ReadonlyMap<string, number>,
  wanted: readonly string[],
  team: string,
): MachineChoice {
  if (!candidates.length) return { ok: false, reason: `No machine is ready for team ${team}; an admin adds one in Settings › Machines` };
  const free = candidates.filter((m) => (busy.get(m.id) ?? 0) < m.concurrency);
  if (!free.length)
    return { ok: false, reason: `Every machine team ${team} may use runs as many T3 runs as its concurrency allows; try again later` };
  const labelled = free.filter((m) => wanted.every((l) => m.labels.includes(l)));
  const pool = labelled.length ? labelled : free;
  const machine = [...pool].sort((a, b) => (busy.get(a.id) ?? 0) / a.concurrency - (busy.get(b.id) ?? 0) / b.concurrency)[0];
  return { ok: true, machine };
}
