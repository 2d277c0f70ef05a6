// Retention's pruner (docs/operations.md#retention): drops what is past its
// retention in small batches, in the background, on every backend.
//
// - Ended runs are walked in (endedAt, id) order, one cursor per part, saved
//   after every batch: a pass that stopped (a crash, a restart) goes on where
//   it was, and a part half-dropped is dropped again (every drop is idempotent).
// - Runs are marked before their part goes, by one UPDATE that also checks
//   each is still ended and still not kept (pinned, in a dataset, the parent of a
//   fork, or the author of a change or an improvement). What would need the
//   part checks the mark after it acts (continue, retry, fork), so neither
//   side can act on a run the other has just changed.
// - Rows go 200 at a time, each batch its own statement, and the event loop
//   runs whatever waits between batches: no long lock on SQLite, no stall.
//   Files go inside the file sandbox, which sees only the folder being removed.
// - The spans of team gateway keys' calls belong to no run: they go by age, with
//   the spans' retention (docs/gateway.md#what-is-recorded); CostRollup stays.
// - One process on a database prunes at a time.
import fsp from "node:fs/promises";
import path from "node:path";
import { runInJail } from "@/server/compute";
import { dialectOf, unlessElsewhere, type Db } from "@/server/db";
import { RUN_PARTS, prunedParts, type RunPart } from "@/server/kernel";
import { keyWorkflowId } from "@/server/telemetry";
import { OTHER_KINDS, cutoffOf, retentionSettings, type RetentionKind } from "./settings";

export const STATE_KEY = "data.retention.state";
/** `<prefix><runId>`: a run unpinned after a pass walked past it, with its end time (see lookAgainAt). */
const REWIND_PREFIX = "data.retention.rewind.";

/**
 * After a pin is removed: the next pass looks at runs from that run's end on again. The ask is a row
 * of its own, not part of the pruner's state, so a pass under way, which saves its state as it goes,
 * cannot write over it; the next pass applies it before it starts.
 */
export async function lookAgainAt(db: Db, runId: string, endedAt: Date): Promise<void> {
  const key = `${REWIND_PREFIX}${runId}`;
  const value = JSON.stringify(endedAt.toISOString());
  await db.setting.upsert({ where: { key }, create: { key, value }, update: { value } });
}

/** What keeps a run whole: the rows that need it, for the mark's NOT EXISTS ("Run"."id" is the run being marked). */
const KEPT_BY = [
  `"Run" AS "child" WHERE "child"."parentRunId" = "Run"."id"`,
  `"DatasetItem" WHERE "sourceRunId" = "Run"."id"`,
  `"ChangeRequest" WHERE "authorRunId" = "Run"."id"`,
  `"Improvement" WHERE "authorRunId" = "Run"."id"`,
  `"HackCycle" WHERE "sessionRunId" = "Run"."id" OR "improverRunId" = "Run"."id"`,
];
/** Runs that stopped being kept (a pin removed, a dataset item deleted) are found by walking every run again this often. */
const SWEEP_EVERY_MS = 7 * 86_400_000;
const HOUR = 3600_000;
/** How long one batch's find and delete may hold the event loop (SQLite's queries run on it). */
const BATCH_TARGET_MS = 8;
const MIN_ROWS = 10;

interface Cursor {
  endedAt: string;
  id: string;
}

export interface PassReport {
  startedAt: string;
  endedAt: string | null;
  /** Runs that lost each part in this pass. */
  runs: Partial<Record<RunPart, number>>;
  /** Rows (or folders, for snapshots and workspaces) dropped, by kind. */
  dropped: Partial<Record<RetentionKind, number>>;
  /** Ended runs past a cut-off that were kept whole because something needs them. */
  kept: number;
  error: string | null;
}

export interface PrunerState {
  cursors: Partial<Record<RunPart, Cursor>>;
  sweptAt: string | null;
  /** The pass under way (saved with every batch, so every process's page shows its progress). */
  current: PassReport | null;
  lastPass: PassReport | null;
  /** When the state was last saved: a `current` not saved for a while is a pass whose process stopped. */
  savedAt: string | null;
}

export interface PrunerDeps {
  db: Db;
  dataDir: string;
  databaseUrl: string;
  log?: { info?(message: string): void; error(message: string, err?: unknown): void };
  now?: () => Date;
  /** Runs per batch, rows per delete, and the pause between batches (ms). */
  batch?: { runs?: number; rows?: number; pauseMs?: number };
  /** Called after every batch of rows (tests stop a pass half-way with it). */
  onBatch?: () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));

export class Pruner {
  private current: Promise<PassReport | null> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly runsPerBatch: number;
  private readonly rowsPerBatch: number;
  private readonly pauseMs: number;
  /** Rows per statement now (adapt()). */
  private take: number;
  private readonly sqlite: boolean;
  /** Runs the pass under way kept whole. */
  private readonly kept = new Set<string>();

  constructor(private readonly deps: PrunerDeps) {
    this.runsPerBatch = deps.batch?.runs ?? 50;
    this.rowsPerBatch = deps.batch?.rows ?? 200;
    this.take = this.rowsPerBatch;
    this.sqlite = dialectOf(deps.databaseUrl) === "sqlite";
    // Each batch is its own short statement; between batches the event loop runs whatever waits.
    this.pauseMs = deps.batch?.pauseMs ?? 0;
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Whether a pass is under way in this process. */
  get running(): boolean {
    return this.current !== null;
  }

  /** One pass over everything; null when another process is pruning. A pass under way is joined, not doubled. */
  pass(): Promise<PassReport | null> {
    this.current ??= unlessElsewhere(this.deps.databaseUrl, "retention", () => this.work()).finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /** A pass a minute after start, then every hour. */
  start(firstAfterMs = 60_000, everyMs = HOUR): void {
    if (this.timer) return;
    this.stopped = false;
    const tick = () => {
      void this.pass().catch((err) => this.deps.log?.error("retention: the pass failed", err));
    };
    const first = setTimeout(tick, firstAfterMs);
    first.unref();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
    this.firstTimer = first;
  }
  private firstTimer: NodeJS.Timeout | null = null;

  /** Stops between batches; the cursor saved so far is where the next pass begins. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.firstTimer) clearTimeout(this.firstTimer);
    this.timer = this.firstTimer = null;
    await this.current?.catch(() => {});
  }

  async state(): Promise<PrunerState> {
    const row = await this.deps.db.setting.findUnique({ where: { key: STATE_KEY } });
    const empty: PrunerState = { cursors: {}, sweptAt: null, current: null, lastPass: null, savedAt: null };
    if (!row) return empty;
    try {
      return { ...empty, ...(JSON.parse(row.value) as Partial<PrunerState>) };
    } catch {
      return empty;
    }
  }

  private async save(state: PrunerState): Promise<void> {
    const value = JSON.stringify({ ...state, savedAt: this.now().toISOString() });
    await this.deps.db.setting.upsert({ where: { key: STATE_KEY }, create: { key: STATE_KEY, value }, update: { value } });
  }

  /** Moves every cursor back to the earliest point unpinned runs asked for, and forgets those asks. */
  private async applyRewinds(state: PrunerState): Promise<void> {
    const asks = await this.deps.db.setting.findMany({ where: { key: { startsWith: REWIND_PREFIX } } });
    if (!asks.length) return;
    // A row that does not read as a time is dropped with the others, not a reason to stop every pass.
    const timeOf = (value: string) => {
      try {
        return new Date(JSON.parse(value) as string).getTime();
      } catch {
        return NaN;
      }
    };
    const times = asks.map((a) => timeOf(a.value)).filter((t) => Number.isFinite(t));
    if (times.length) {
      const endedAt = new Date(Math.min(...times));
      for (const part of RUN_PARTS) {
        const c = state.cursors[part];
        if (c && new Date(c.endedAt) >= endedAt) state.cursors[part] = { endedAt: endedAt.toISOString(), id: "" };
      }
    }
    // Only the asks read here: one written meanwhile waits for the next pass.
    await this.deps.db.setting.deleteMany({ where: { key: { in: asks.map((a) => a.key) } } });
  }

  private async work(): Promise<PassReport> {
    const now = this.now();
    const settings = await retentionSettings(this.deps.db);
    const state = await this.state();
    if (!state.sweptAt || now.getTime() - new Date(state.sweptAt).getTime() > SWEEP_EVERY_MS) {
      state.cursors = {};
      state.sweptAt = now.toISOString();
    }
    await this.applyRewinds(state);
    const report: PassReport = { startedAt: now.toISOString(), endedAt: null, runs: {}, dropped: {}, kept: 0, error: null };
    this.kept.clear();
    const count = (kind: RetentionKind, n: number) => {
      if (n) report.dropped[kind] = (report.dropped[kind] ?? 0) + n;
    };
    state.current = report;
    await this.save(state);
    try {
      for (const part of RUN_PARTS) {
        const cutoff = cutoffOf(settings, part, now);
        if (cutoff) await this.pruneRuns(part, cutoff, state, report, count);
        if (this.stopped) break;
      }
      const spans = cutoffOf(settings, "spans", now);
      if (spans && !this.stopped) count("spans", await this.dropKeySpans(spans));
      for (const kind of OTHER_KINDS) {
        const cutoff = cutoffOf(settings, kind, now);
        if (cutoff && !this.stopped) count(kind, await this.dropOld(kind, cutoff));
      }
    } catch (err) {
      report.error = (err as Error).message;
      this.deps.log?.error("retention: the pass stopped; the next one goes on from where it was", err);
    }
    report.endedAt = this.now().toISOString();
    state.current = null;
    state.lastPass = report;
    await this.save(state);
    return report;
  }

  private async pruneRuns(
    part: RunPart,
    cutoff: Date,
    state: PrunerState,
    report: PassReport,
    count: (kind: RetentionKind, n: number) => void,
  ): Promise<void> {
    const db = this.deps.db;
    while (!this.stopped) {
      const c = state.cursors[part];
      // After the cursor, as a range on the (endedAt, id) index: an OR of the two halves would scan the table.
      const from = c ? new Date(c.endedAt) : undefined;
      const runs = await db.run.findMany({
        where: {
          endedAt: { lt: cutoff, ...(from ? { gte: from } : {}) },
          ...(c ? { NOT: { endedAt: from, id: { lte: c.id } } } : {}),
          // No filter on status: only an ended run has endedAt (reopening clears it), and a status
          // filter would lead SQLite to its status index and a sort of every ended run.
        },
        orderBy: [{ endedAt: "asc" }, { id: "asc" }],
        take: this.runsPerBatch,
        select: { id: true, endedAt: true, pruned: true },
      });
      if (!runs.length) return;
      // Marked before (a pass stopped half-way): dropped again, counted once.
      const had = runs.filter((r) => prunedParts(r.pruned).some((p) => p.part === part)).map((r) => r.id);
      const fresh = runs.filter((r) => !had.includes(r.id)).map((r) => r.id);
      const marked = await this.mark(fresh, part);
      // A run kept whole is counted once, however many of its parts were due.
      for (const id of fresh) if (!marked.includes(id)) this.kept.add(id);
      report.kept = this.kept.size;
      if (marked.length) report.runs[part] = (report.runs[part] ?? 0) + marked.length;
      const drop = [...had, ...marked];
      if (drop.length) count(part, await this.dropPart(drop, part));
      // Stopped inside the batch: the cursor stays before it, and the next pass does its runs again.
      if (this.stopped) return;
      const last = runs[runs.length - 1];
      state.cursors[part] = { endedAt: last.endedAt!.toISOString(), id: last.id };
      await this.save(state);
      await sleep(this.pauseMs);
    }
  }

  /**
   * Records that `part` of these runs goes, in one statement that also checks each run is still
   * ended and nothing keeps it; returns the runs it marked (the others are kept, and nothing of
   * them is dropped).
   */
  private async mark(runIds: string[], part: RunPart): Promise<string[]> {
    if (!runIds.length) return [];
    const postgres = dialectOf(this.deps.databaseUrl) === "postgres";
    const now = this.now();
    // Positional parameters: $1.. on PostgreSQL, ? on SQLite, in the order they appear.
    let n = 0;
    const p = () => (postgres ? `$${++n}` : "?");
    const merged = postgres
      ? `(COALESCE("pruned", '{}')::jsonb || jsonb_build_object(${p()}::text, ${p()}::text))::text`
      : `json_set(COALESCE("pruned", '{}'), '$.' || ${p()}, ${p()})`;
    const ids = runIds.map(p).join(", ");
    const kept = KEPT_BY.map((k) => `AND NOT EXISTS (SELECT 1 FROM ${k})`).join("\n        ");
    const rows = await this.deps.db.$queryRawUnsafe<Array<{ id: string }>>(
      `UPDATE "Run" SET "pruned" = ${merged}
      WHERE "id" IN (${ids})
        AND "endedAt" IS NOT NULL
        AND "pinnedAt" IS NULL
        ${kept}
      RETURNING "id"`,
      part,
      now.toISOString(),
      ...runIds,
    );
    const marked = rows.map((r) => r.id);
    if (marked.length) await this.deps.db.run.updateMany({ where: { id: { in: marked } }, data: { prunedAt: now } });
    return marked;
  }

  /** Drops one part of these runs; how many rows (or folders) went. Safe to repeat. */
  private async dropPart(runIds: string[], part: RunPart): Promise<number> {
    const db = this.deps.db;
    const runId = { in: runIds };
    switch (part) {
      case "events":
        return this.inBatches(
          () => db.runEvent.findMany({ where: { runId }, select: { id: true }, take: this.take }),
          (ids) => db.runEvent.deleteMany({ where: { id: { in: ids } } }),
        );
      case "terminal":
        return this.inBatches(
          () => db.runEvent.findMany({ where: { runId, type: { startsWith: "terminal." } }, select: { id: true }, take: this.take }),
          (ids) => db.runEvent.deleteMany({ where: { id: { in: ids } } }),
        );
      case "checkpoints":
        return (
          (await this.inBatches(
            () => db.checkpoint.findMany({ where: { runId }, select: { id: true }, take: this.take }),
            (ids) => db.checkpoint.deleteMany({ where: { id: { in: ids } } }),
          )) +
          (await this.inBatches(
            () => db.toolCallResult.findMany({ where: { runId }, select: { id: true }, take: this.take }),
            (ids) => db.toolCallResult.deleteMany({ where: { id: { in: ids } } }),
          ))
        );
      case "spans":
        return this.inBatches(
          () =>
            db.span.findMany({ where: { runId }, select: { spanId: true }, take: this.take }).then((r) => r.map((s) => ({ id: s.spanId }))),
          // By the run too: a span's key is (runId, spanId), and no index has the id alone.
          (ids) => db.span.deleteMany({ where: { runId, spanId: { in: ids } } }),
        );
      case "spanDetail":
        return this.inBatches(
          () =>
            db.span
              .findMany({ where: { runId, detail: { not: null } }, select: { spanId: true }, take: this.take })
              .then((r) => r.map((s) => ({ id: s.spanId }))),
          (ids) => db.span.updateMany({ where: { runId, spanId: { in: ids } }, data: { detail: null } }),
        );
      case "snapshots":
      case "workspaces": {
        let folders = 0;
        for (const id of runIds) {
          if (this.stopped) break;
          folders +=
            part === "snapshots"
              ? await this.removeFolder(path.join(this.deps.dataDir, "snapshots", id))
              : (await this.removeFolder(path.join(this.deps.dataDir, "workspaces", id))) +
                (await this.removeFolder(path.join(this.deps.dataDir, "outputs", id))) +
                // A hosted agent's home (its saved sessions and transcripts) goes with the workspace: docs/hosted-agents.md#the-sandbox.
                (await this.removeFolder(path.join(this.deps.dataDir, "hosted", id)));
        }
        return folders;
      }
    }
  }

  /**
   * The chat spans of team gateway keys' calls started before the cut-off (docs/gateway.md#what-is-recorded).
   * Keys are never deleted (a team is archived, not deleted), so their ids name every such span's run;
   * each key's spans are found on the (runId, startTime) index, a batch of keys at a time.
   */
  private async dropKeySpans(cutoff: Date): Promise<number> {
    const db = this.deps.db;
    let total = 0;
    let after = "";
    while (!this.stopped) {
      const keys = await db.gatewayKey.findMany({
        where: { id: { gt: after } },
        orderBy: { id: "asc" },
        select: { id: true },
        take: this.runsPerBatch,
      });
      if (!keys.length) break;
      const runId = { in: keys.map((k) => keyWorkflowId(k.id)) };
      const startTime = { lt: cutoff };
      total += await this.inBatches(
        () =>
          db.span
            .findMany({ where: { runId, startTime }, select: { spanId: true }, take: this.take })
            .then((r) => r.map((s) => ({ id: s.spanId }))),
        // The age again: a span id matched in another key's newer spans stays.
        (ids) => db.span.deleteMany({ where: { runId, startTime, spanId: { in: ids } } }),
      );
      after = keys[keys.length - 1].id;
      await sleep(this.pauseMs);
    }
    return total;
  }

  /** Rows of a table that is not a run's, older than the cut-off. */
  private async dropOld(kind: (typeof OTHER_KINDS)[number], cutoff: Date): Promise<number> {
    const db = this.deps.db;
    if (kind === "audit")
      return this.inBatches(
        () => db.auditEntry.findMany({ where: { at: { lt: cutoff } }, select: { id: true }, orderBy: { at: "asc" }, take: this.take }),
        (ids) => db.auditEntry.deleteMany({ where: { id: { in: ids } } }),
      );
    // A delivery still being retried stays; its attempts go with it.
    return this.inBatches(
      () =>
        db.webhookDelivery.findMany({
          where: { createdAt: { lt: cutoff }, state: { not: "pending" } },
          select: { id: true },
          orderBy: { createdAt: "asc" },
          take: this.take,
        }),
      (ids) => db.webhookDelivery.deleteMany({ where: { id: { in: ids } } }),
    );
  }

  private async inBatches<I extends string | number>(
    find: () => Promise<Array<{ id: I }>>,
    drop: (ids: I[]) => Promise<{ count: number }>,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const asked = this.take;
      const started = performance.now();
      const rows = await find();
      if (!rows.length) return total;
      total += (await drop(rows.map((r) => r.id))).count;
      this.adapt(performance.now() - started);
      this.deps.onBatch?.();
      if (rows.length < asked || this.stopped) return total;
      await sleep(this.pauseMs);
    }
  }

  /**
   * On SQLite, whose queries run on the event loop: a batch that held it long (a large table whose
   * pages are not in memory) halves the next one; quick ones grow it back, up to the configured size.
   */
  private adapt(ms: number): void {
    // PostgreSQL's queries do not hold the event loop: its batches stay as configured.
    if (!this.sqlite) return;
    if (ms > BATCH_TARGET_MS * 2) this.take = Math.max(MIN_ROWS, Math.floor(this.take / 2));
    else if (ms < BATCH_TARGET_MS / 2) this.take = Math.min(this.rowsPerBatch, Math.ceil(this.take * 1.25));
  }

  /**
   * Removes a run's folder: its contents inside the file sandbox (which sees
   * nothing else, so no link the agent left can lead out), then the empty
   * folder itself. 1 when there was one, 0 when it was gone already.
   */
  private async removeFolder(dir: string): Promise<number> {
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) return 0;
    if (!st.isDirectory()) {
      await fsp.unlink(dir);
      return 1;
    }
    const r = await runInJail(dir, ["sh", "-c", "chmod -R u+rwX . 2>/dev/null; find . -mindepth 1 -delete"], {
      timeoutMs: 10 * 60_000,
      maxBytes: 64 * 1024,
    });
    if (r.code !== 0) throw new Error(`could not remove ${dir}: ${r.stderr.trim().slice(0, 300) || `exit ${r.code ?? r.signal}`}`);
    await fsp.rmdir(dir);
    return 1;
  }
}
