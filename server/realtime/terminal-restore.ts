// Who controlled each run's terminal before a restart (saved-takeovers.ts);
// what they typed since is in its terminal.input events, for the note the
// agent gets on hand back.
import type { Db } from "@/server/db";
import type { RunStore } from "@/server/kernel";
import type { TypedLine } from "./terminal-input";
import { MAX_NOTE_COMMANDS } from "./terminal-note";
import type { TerminalController } from "./terminal-protocol";
import { parsePayload, savedTakeovers } from "./saved-takeovers";

export interface SavedControl {
  runId: string;
  who: TerminalController;
  /** Lines the person typed at the prompt since taking over, oldest first. */
  commands: TypedLine[];
  /** Lines past MAX_NOTE_COMMANDS (counted, not listed). */
  moreCommands: number;
}

export async function savedControls(deps: { db: Db; store: Pick<RunStore, "runIdsIn"> }): Promise<SavedControl[]> {
  const saved = await savedTakeovers(deps, "terminal.control");
  const out: SavedControl[] = [];
  for (const s of saved) out.push({ runId: s.runId, who: s.who, ...(await typedSince(deps.db, s.runId, s.seq)) });
  return out;
}

async function typedSince(db: Db, runId: string, seq: number): Promise<{ commands: TypedLine[]; moreCommands: number }> {
  const where = { runId, type: "terminal.input", seq: { gt: seq } };
  const rows = await db.runEvent.findMany({ where, select: { payload: true }, orderBy: { seq: "asc" }, take: MAX_NOTE_COMMANDS });
  const commands = rows.flatMap((r) => {
    const p = parsePayload(r.payload);
    return typeof p?.text === "string" ? [{ text: p.text, approximate: p.approximate === true }] : [];
  });
  const total = rows.length < MAX_NOTE_COMMANDS ? rows.length : await db.runEvent.count({ where });
  return { commands, moreCommands: total - rows.length };
}
