// A promoted runtime tool's recorded uses, read back from the runs that made
// them (their tool.call and tool.result events), for the tests of the
// extension written from it (promote.ts).
import type { Db } from "@/server/db";
import type { RunStore } from "@/server/kernel";
import type { RecordedUse } from "./promote";

const MAX_RUNS = 20;
const MAX_EVENTS_PER_RUN = 5_000;

export async function recordedUses(db: Db, store: Pick<RunStore, "listEvents">, improvementId: string): Promise<RecordedUse[]> {
  const rows = await db.improvementUse.findMany({
    where: { improvementId, ok: true, toolCallId: { not: null } },
    select: { runId: true, toolCallId: true },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  const byRun = new Map<string, Set<string>>();
  for (const r of rows) {
    if (!byRun.has(r.runId) && byRun.size >= MAX_RUNS) continue;
    byRun.set(r.runId, (byRun.get(r.runId) ?? new Set()).add(r.toolCallId!));
  }
  const uses: RecordedUse[] = [];
  for (const [runId, calls] of byRun) {
    const events = await store.listEvents(runId, 0, MAX_EVENTS_PER_RUN);
    const args = new Map<string, unknown>();
    for (const e of events) {
      const p = e.payload as { toolCallId?: string; args?: unknown; ok?: boolean; output?: unknown };
      if (!p?.toolCallId || !calls.has(p.toolCallId)) continue;
      if (e.type === "tool.call") args.set(p.toolCallId, p.args);
      if (e.type === "tool.result" && args.has(p.toolCallId))
        uses.push({ args: args.get(p.toolCallId), ok: p.ok === true, output: p.output });
    }
  }
  return uses;
}
