// Who controls each run's terminal or desktop outlives the server: it is read
// back from the event log. A run whose last "<thing>.control" event is a take
// over (and that has not ended) is still the person's.
import type { Db } from "@/server/db";
import { ACTIVE_STATES, type RunStore } from "@/server/kernel";
import type { Controller } from "./run-takeover";

export interface SavedTakeover {
  runId: string;
  who: Controller;
  /** The take over event's sequence number: what the person did after it counts. */
  seq: number;
}

/** SQLite takes a limited number of values in one IN (...). */
const BATCH = 500;

export async function savedTakeovers(
  deps: { db: Db; store: Pick<RunStore, "runIdsIn"> },
  type: "terminal.control" | "desktop.control",
): Promise<SavedTakeover[]> {
  const runIds = await deps.store.runIdsIn([...ACTIVE_STATES]);
  const out: SavedTakeover[] = [];
  for (let i = 0; i < runIds.length; i += BATCH) {
    const rows = await deps.db.runEvent.findMany({
      where: { runId: { in: runIds.slice(i, i + BATCH) }, type },
      select: { runId: true, seq: true, payload: true },
      orderBy: [{ runId: "asc" }, { seq: "desc" }],
    });
    const last = new Map<string, { seq: number; payload: string }>();
    for (const row of rows) if (!last.has(row.runId)) last.set(row.runId, row);
    for (const [runId, row] of last) {
      const payload = parsePayload(row.payload);
      if (payload?.action !== "takeover" || typeof payload.by !== "string") continue;
      out.push({ runId, seq: row.seq, who: { id: payload.by, name: typeof payload.byName === "string" ? payload.byName : payload.by } });
    }
  }
  return out;
}

export function parsePayload(json: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(json) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
