// A memory an agent saves under memoryConfirm waits for a person: a `choose`
// request ("Keep this memory?": keep / discard) in the Inbox, made without
// the run waiting for it (slot "memory" never holds a run, and outlives it).
// The decision is seen on the kernel's bus (the broker appends human.decided
// to the run's log) or by settleDecided() at start-up.
import type { Db } from "@/server/db";
import { DEFAULT_LADDER, createRequest, type RequestChange, type TtlLadder } from "@/server/hitl";
import type { NewRunEvent } from "@/server/kernel";
import type { MemoryStore } from "./store";
import type { MemoryView } from "./types";

export const MEMORY_SLOT = "memory" as const;
export const KEEP = "keep";
export const DISCARD = "discard";
const CONFIRM_TTL_SEC = 7 * 24 * 3600;

export interface ConfirmDeps {
  db: Db;
  store: MemoryStore;
  /** Appends the run's human.requested event (the kernel's run store). */
  appendEvents?: (runId: string, events: NewRunEvent[]) => Promise<unknown>;
  /** The Inbox's live update. */
  onRequestCreated?: (change: RequestChange) => void;
  ladder?: TtlLadder;
  now?: () => Date;
}

/** Opens the request for a pending memory; a second call for the same memory finds the first. */
export async function askToKeep(
  deps: ConfirmDeps,
  memory: MemoryView,
  run: { id: string; teamId: string | null; createdById: string | null },
): Promise<string> {
  const { row, created } = await createRequest(
    deps.db,
    {
      runId: run.id,
      nodeId: `memory:${memory.id}`,
      checkpointId: "",
      slot: MEMORY_SLOT,
      kind: "choose",
      title: `Keep this memory? ${memory.title}`.slice(0, 200),
      detail:
        `${memory.agentName} saved a ${memory.kind} for ${memory.scope === "team" ? "its whole team" : "itself"}:\n\n${memory.text}\n\n` +
        "Keep makes it count: later runs load and recall it. Discard drops it. The run does not wait for this answer.",
      payload: {
        tool: "remember",
        args: { memoryId: memory.id, kind: memory.kind, scope: memory.scope },
        options: [
          { id: KEEP, label: "Keep", detail: "Later runs load and recall it" },
          { id: DISCARD, label: "Discard", detail: "It never counts" },
        ],
        rule: "the agent's memoryConfirm guardrail",
      },
      requiredRole: "operator",
      teamId: run.teamId,
      requestedById: run.createdById,
      ttlSec: CONFIRM_TTL_SEC,
    },
    deps.ladder ?? DEFAULT_LADDER,
    deps.now?.() ?? new Date(),
  );
  if (memory.requestId !== row.id) await deps.store.setRequest(memory.id, row.id);
  if (created) {
    await deps.appendEvents?.(run.id, [
      {
        type: "human.requested",
        payload: {
          requestId: row.id,
          kind: row.kind,
          title: row.title,
          requiredRole: row.requiredRole,
          expiresAt: row.expiresAt.toISOString(),
          tool: "remember",
          slot: MEMORY_SLOT,
        },
        actor: `agent:${memory.agentName}`,
        key: `request:${row.id}`,
      } as NewRunEvent,
    ]);
    deps.onRequestCreated?.({ requestId: row.id, runId: run.id, state: row.state, teamId: row.teamId });
  }
  return row.id;
}

/**
 * Applies a closed confirmation request to its memory: "keep" makes it
 * active; discard, a rejection, or no answer before the deadline, rejected.
 * Returns whether a memory changed.
 */
export async function settleRequest(db: Db, store: MemoryStore, requestId: string): Promise<boolean> {
  const req = await db.humanRequest.findUnique({
    where: { id: requestId },
    select: { slot: true, state: true, decision: true, decidedById: true, nodeId: true },
  });
  if (!req || req.slot !== MEMORY_SLOT || req.state === "PENDING" || req.state === "ESCALATED") return false;
  const memoryId = req.nodeId.replace(/^memory:/, "");
  const optionId = req.decision ? ((JSON.parse(req.decision) as { optionId?: string }).optionId ?? null) : null;
  const keep = req.state === "APPROVED" && optionId === KEEP;
  return store.settle(memoryId, keep, req.decidedById ?? "system");
}

/** Start-up repair: pending memories whose request was decided while nobody listened. */
export async function settleDecided(db: Db, store: MemoryStore): Promise<number> {
  const pending = await db.memory.findMany({
    where: { state: "pending", requestId: { not: null } },
    select: { requestId: true },
    take: 1000,
  });
  let n = 0;
  for (const p of pending) if (await settleRequest(db, store, p.requestId!)) n++;
  return n;
}
