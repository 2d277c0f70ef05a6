// Who controls each run's terminal outlives the server: it is read back from
// the event log. A run whose last terminal.control event is a take over (and
// that has not ended) is still the person's; what they typed since is in its
// terminal.input events, for the note the agent gets on hand back.
import type { Db } from "@/server/db";
import { ACTIVE_STATES, type RunStore } from "@/server/kernel";
import type { TypedLine } from "./terminal-input";
import { MAX_NOTE_COMMANDS } from "./terminal-note";
import type { TerminalController } from "./terminal-protocol";

export interface SavedControl {
  runId: string;
  who: TerminalController;
  /** Lines the person typed at the prompt since taking over, oldest first. */
  commands: TypedLine[];
  /** Lines past MAX_NOTE_COMMANDS (counted, not listed). */
  moreCommands: number;
}

/** SQLite takes a limited number of values in one IN (...). */
const BATCH = 500;

export async function savedControls(deps: { db: Db; store: Pick<RunStore, "runIdsIn"> }): Promise<SavedControl[]> {
  const runIds = await deps.store.runIdsIn([...ACTIVE_STATES]);
  const out: SavedControl[] = [];
  for (let i = 0; i < runIds.length; i += BATCH) {
    const rows = await deps.db.runEvent.findMany({
      where: { runId: { in: runIds.slice(i, i + BATCH) }, type: "terminal.control" },
      select: { runId: true, seq: true, payload: true },
      orderBy: [{ runId: "asc" }, { seq: "desc" }],
    });
    const last = new Map<string, { seq: number; payload: string }>();
    for (const row of rows) if (!last.has(row.runId)) last.set(row.runId, row);
    for (const [runId, row] of last) {
      const payload = parse(row.payload);
      if (payload?.action !== "takeover" || typeof payload.by !== "string") continue;
      const who = { id: payload.by, name: typeof payload.byName === "string" ? payload.byName : payload.by };
      out.push({ runId, who, ...(await typedSince(deps.db, runId, row.seq)) });
    }
  }
  return out;
}

async function typedSince(db: Db, runId: string, seq: number): Promise<{ commands: TypedLine[]; moreCommands: number }> {
  const where = { runId, type: "terminal.input", seq: { gt: seq } };
  const rows = await db.runEvent.findMany({ where, select: { payload: true }, orderBy: { seq: "asc" }, take: MAX_NOTE_COMMANDS });
  const commands = rows.flatMap((r) => {
    const p = parse(r.payload);
    return typeof p?.text === "string" ? [{ text: p.text, approximate: p.approximate === true }] : [];
  });
  const total = rows.length < MAX_NOTE_COMMANDS ? rows.length : await db.runEvent.count({ where });
  return { commands, moreCommands: total - rows.length };
}

function parse(json: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(json) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
