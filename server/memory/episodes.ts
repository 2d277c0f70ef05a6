// The episode kept at the end of every run: goal, outcome, what worked, what
// failed, steps and cost, from the run's row and events (no model call). One
// per run (key episode:<runId>): a continued run that ends again rewrites it.
// Not for eval trials (a trial must not learn from the ones before it),
// scenario replays (a replay of a run already remembered) or "Try it" drafts.
import type { Db } from "@/server/db";
import type { RunEventBus, RunEventRecord } from "@/server/kernel";
import { settleDecided, settleRequest } from "./confirm";
import type { MemoryStore } from "./store";
import { MAX_MEMORY_TEXT, type MemoryView } from "./types";
import { formatCost } from "@/lib/format";

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

export interface EpisodeRun {
  id: string;
  goal: string;
  agentName: string;
  agentVersion: number;
  teamId: string | null;
  createdById: string;
  status: string;
  statusReason: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  stepCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  scenario: string | null;
  experimentId: string | null;
}

export interface ToolResultSummary {
  tool: string;
  ok: boolean;
  error?: { code: string; message: string };
}

/** The episode's title and text: pure, from the run and its tool results. */
export function episodeOf(run: EpisodeRun, results: ToolResultSummary[]): { title: string; text: string } {
  const worked = new Map<string, number>();
  const failed: string[] = [];
  for (const r of results) {
    if (r.ok) worked.set(r.tool, (worked.get(r.tool) ?? 0) + 1);
    else {
      const line = `${r.tool}: ${r.error?.code ?? "ERROR"}${r.error?.message ? ` (${clip(oneLine(r.error.message), 160)})` : ""}`;
      if (!failed.includes(line)) failed.push(line);
    }
  }
  const outcome =
    run.status === "succeeded"
      ? "succeeded"
      : run.status === "failed"
        ? `failed${run.errorCode ? ` (${run.errorCode}${run.errorMessage ? `: ${clip(oneLine(run.errorMessage), 200)}` : ""})` : ""}`
        : `canceled${run.statusReason ? ` (${clip(oneLine(run.statusReason), 200)})` : ""}`;
  const lines = [
    `Goal: ${clip(oneLine(run.goal), 500)}`,
    `Outcome: ${outcome}`,
    `What worked: ${worked.size ? [...worked].map(([t, n]) => `${t} ×${n}`).join(", ") : "no tool call succeeded"}`,
    `What failed: ${failed.length ? failed.slice(0, 6).join("; ") + (failed.length > 6 ? `; and ${failed.length - 6} more` : "") : "nothing"}`,
    `Steps: ${run.stepCount} model calls, ${run.inputTokens + run.outputTokens} tokens; cost ${formatCost(run.costUsd)}`,
  ];
  return { title: clip(`Episode: ${oneLine(run.goal)}`, 70) + ` — ${run.status}`, text: clip(lines.join("\n"), MAX_MEMORY_TEXT) };
}

/** Whether a run leaves an episode. */
export function keepsEpisode(run: Pick<EpisodeRun, "experimentId" | "scenario" | "agentVersion">): boolean {
  return !run.experimentId && !run.scenario && run.agentVersion > 0;
}

export interface EpisodeDeps {
  db: Db;
  store: MemoryStore;
  redactor?: { text(text: string): string };
}

/** Writes (or rewrites) the run's episode; null when the run keeps none or has not ended. */
export async function writeEpisode(deps: EpisodeDeps, runId: string): Promise<MemoryView | null> {
  const run = await deps.db.run.findUnique({
    where: { id: runId },
    select: {
      id: true,
      goal: true,
      agentName: true,
      agentVersion: true,
      teamId: true,
      createdById: true,
      status: true,
      statusReason: true,
      errorCode: true,
      errorMessage: true,
      stepCount: true,
      inputTokens: true,
      outputTokens: true,
      costUsd: true,
      scenario: true,
      experimentId: true,
    },
  });
  if (!run || !TERMINAL.has(run.status) || !keepsEpisode(run)) return null;
  const events = await deps.db.runEvent.findMany({
    where: { runId, type: "tool.result" },
    orderBy: { seq: "asc" },
    select: { payload: true },
    take: 5_000,
  });
  const results = events.map((e) => JSON.parse(e.payload) as ToolResultSummary);
  const episode = episodeOf(run, results);
  const redact = (s: string) => (deps.redactor ? deps.redactor.text(s) : s);
  const title = redact(episode.title);
  const text = redact(episode.text);
  const key = `episode:${run.id}`;
  const replaced = await deps.store.replaceByKey(key, { title, text });
  if (replaced) return replaced;
  // Several processes may hear the same ending (several machines): the one that
  // loses the race to create it finds the other's and writes into it.
  const created = await deps.store
    .create({
      scope: "agent",
      kind: "episode",
      title,
      text,
      agentName: run.agentName,
      teamId: run.teamId,
      ownerId: run.createdById,
      sourceRunId: run.id,
      createdBy: `agent:${run.agentName}`,
      key,
    })
    .catch(async (err: unknown) => {
      if ((err as { code?: string })?.code !== "P2002") throw err;
      return { memory: await deps.store.replaceByKey(key, { title, text }) };
    });
  return created.memory;
}

export interface MemoryListenerDeps extends EpisodeDeps {
  bus: Pick<RunEventBus, "onAny">;
  log?: { error(msg: string, err?: unknown): void };
}

/**
 * Listens on the kernel's bus: a run reaching a terminal state gets its
 * episode; a decided "Keep this memory?" request settles its memory. Also
 * settles, once, requests decided while no listener ran. Returns stop().
 */
export function startMemoryListener(deps: MemoryListenerDeps): { stop(): void; idle(): Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>, what: string) => {
    const q = p.catch((err) => deps.log?.error(`memory: ${what} failed`, err)).finally(() => pending.delete(q));
    pending.add(q);
  };
  track(settleDecided(deps.db, deps.store), "settling decided confirmations");
  const off = deps.bus.onAny((runId: string, events: RunEventRecord[]) => {
    for (const e of events) {
      if (e.type === "run.state" && TERMINAL.has((e.payload as { to: string }).to))
        track(writeEpisode(deps, runId), `run ${runId}: writing its episode`);
      if (e.type === "human.decided") {
        const requestId = (e.payload as { requestId?: string }).requestId;
        if (requestId) track(settleRequest(deps.db, deps.store, requestId), `request ${requestId}: settling its memory`);
      }
    }
  });
  return {
    stop: off,
    /** Resolves when every write started so far is done (tests, shutdown). */
    async idle() {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}
