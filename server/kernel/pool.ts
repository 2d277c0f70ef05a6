// The in-process worker pool: runs execute here, never in a request handler.
import { isDbBusy, isLeaseLost, isTransientDbError } from "@/server/db";
import { driveRun, type DriveOutcome, type KernelDeps, type RunControl } from "./loop";
import { DISK_FULL } from "./disk";
import { event } from "./events";
import type { RunState } from "./states";

/** States a run rests in between steps, not ended: cancel moves it straight to canceled. */
const STOPPED_UNENDED: readonly RunState[] = ["queued", "paused", "waiting_human"];

interface ActiveRun {
  abort: AbortController;
  /** Several machines: another worker took the run; the loop stops without writing. */
  lost: boolean;
  /** Enqueued again while still executing (a person answered as the run stopped to wait): it goes again once this drive ends. */
  again: boolean;
  /** Aborted by pause(): the loop stops after this step, and a tool that only waits (browser_wait) ends its wait. */
  pause: AbortController;
  cancel: boolean;
  /** The tool call in flight's own controller: a person may stop just that call to have their message read. */
  toolCall: AbortController | null;
  done: Promise<DriveOutcome>;
}

export type ControlResult = { ok: true } | { ok: false; reason: string };

/** The person steering a run. */
export interface ControlActor {
  id: string;
  name: string;
}

/** Several machines: runs executing on another process, steered through it. */
export interface RemoteRuns {
  /** Tells whichever worker executes the run (if any) to pause it after its step, or to cancel it now. */
  signal(runId: string, action: "pause" | "cancel" | "interrupt", by?: string): Promise<void>;
}

export class WorkerPool {
  private readonly active = new Map<string, ActiveRun>();
  private readonly waiting: Array<{ runId: string; recovered: boolean }> = [];
  private stoppingFlag = false;
  private idleWaiters: Array<() => void> = [];
  /** Runs whose pause for want of space could not even be written: taken up again when space returns. */
  private readonly stranded = new Set<string>();
  private diskTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: KernelDeps,
    private readonly options: {
      concurrency: number;
      remote?: RemoteRuns;
      /**
       * Several machines (web processes): where runs to execute go instead of
       * this pool (the queue). This process then never executes a run itself.
       */
      dispatch?: (runId: string) => void;
      /** How often the space is looked at while runs wait for it (ms; default 5 s). */
      diskPollMs?: number;
    },
  ) {}

  /** Several machines: a web process recorded the pause; the worker executing the run stops it after its step. */
  pauseHere(runId: string) {
    this.active.get(runId)?.pause.abort();
  }

  /** Several machines: a web process recorded the cancel; the worker executing the run interrupts it. */
  cancelHere(runId: string) {
    const entry = this.active.get(runId);
    if (!entry) return;
    entry.cancel = true;
    entry.abort.abort(new Error("Canceled by an operator"));
  }

  /** Stops the tool call the run is executing here, if any, so the model reads a message now; false when none is in flight here. */
  interruptHere(runId: string, byName: string): boolean {
    const call = this.active.get(runId)?.toolCall;
    if (!call || call.signal.aborted) return false;
    call.abort(new Error(`${byName} to read their message`));
    return true;
  }

  /** Picks up what a previous server left: running runs resume, queued runs start. */
  async start(): Promise<{ resumed: number; queued: number }> {
    const running = await this.deps.store.runIdsIn(["running"]);
    const queued = await this.deps.store.runIdsIn(["queued"]);
    running.forEach((runId) => this.waiting.push({ runId, recovered: true }));
    queued.forEach((runId) => this.waiting.push({ runId, recovered: false }));
    this.pump();
    // Runs a full disk paused before the restart go on when there is room.
    this.watchDisk();
    return { resumed: running.length, queued: queued.length };
  }

  enqueue(runId: string) {
    if (this.options.dispatch) return this.options.dispatch(runId);
    const active = this.active.get(runId);
    if (active) {
      active.again = true;
      return;
    }
    if (this.stoppingFlag || this.waiting.some((w) => w.runId === runId)) return;
    this.waiting.push({ runId, recovered: false });
    this.pump();
  }

  isActive(runId: string) {
    return this.active.has(runId);
  }

  stats() {
    return { active: this.active.size, waiting: this.waiting.length, concurrency: this.options.concurrency };
  }

  private pump() {
    if (this.options.dispatch) return;
    while (!this.stoppingFlag && this.active.size < this.options.concurrency && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      if (this.active.has(next.runId)) continue;
      void this.launch(next.runId, { recovered: next.recovered });
    }
  }

  private launch(
    runId: string,
    opts: { recovered: boolean; takeover?: RunControl["takeover"]; clustered?: boolean },
  ): Promise<DriveOutcome> {
    let outcome: DriveOutcome = "skipped";
    const entry: ActiveRun = {
      abort: new AbortController(),
      pause: new AbortController(),
      cancel: false,
      lost: false,
      again: false,
      toolCall: null,
      done: Promise.resolve("skipped"),
    };
    entry.done = driveRun(runId, this.deps, {
      signal: entry.abort.signal,
      cancelRequested: () => entry.cancel,
      pauseRequested: () => entry.pause.signal.aborted,
      pauseSignal: entry.pause.signal,
      stopping: () => this.stoppingFlag,
      recovered: opts.recovered,
      takeover: opts.takeover,
      toolSignal: () => {
        entry.toolCall = new AbortController();
        return AbortSignal.any([entry.abort.signal, entry.toolCall.signal]);
      },
      toolEnded: () => {
        entry.toolCall = null;
      },
      ...(opts.clustered ? { leaseLost: () => entry.lost } : {}),
    })
      .catch((err) => {
        if (entry.lost || isLeaseLost(err)) return "lost" as const;
        if (opts.clustered && isTransientDbError(err)) {
          const what = isDbBusy(err) ? "another database session kept the run's rows locked" : "the database connection was lost";
          this.deps.log.error(`run ${runId}: ${what}; the run resumes from its last checkpoint`, err);
          return "interrupted" as const;
        }
        this.deps.log.error(`run ${runId}: the worker stopped unexpectedly`, err);
        return "failed" as const;
      })
      .then((result) => (outcome = result))
      .finally(() => {
        this.active.delete(runId);
        // Paused for want of space, or not even that could be written: it goes on when space returns.
        if (outcome === "interrupted" && !opts.clustered && this.deps.disk) this.stranded.add(runId);
        if ((outcome === "paused" || outcome === "interrupted") && !opts.clustered) this.watchDisk();
        // Enqueued while it was stopping (to wait for a person who answered at once), or a
        // message arrived as it ended: it goes again. (Several machines: the sweep hands a requeued run out.)
        const requeued = outcome === "requeued" && !opts.clustered;
        if ((entry.again || requeued) && !entry.lost && !this.stoppingFlag) this.waiting.push({ runId, recovered: false });
        this.pump();
        if (this.active.size === 0) this.idleWaiters.splice(0).forEach((r) => r());
      });
    this.active.set(runId, entry);
    return entry.done;
  }

  /**
   * Several machines: executes the run now, outside the waiting line (the
   * queue's worker has taken its lease); resolves when it stops executing.
   */
  drive(runId: string, opts: { recovered: boolean; takeover?: RunControl["takeover"] }): Promise<DriveOutcome> {
    if (this.stoppingFlag) return Promise.resolve("stopped");
    const current = this.active.get(runId);
    if (current) return current.done.then(() => "skipped" as const);
    return this.launch(runId, { ...opts, clustered: true });
  }

  /** Resolves when the run is not executing here (at once if it is not). */
  async whenDone(runId: string): Promise<void> {
    await this.active.get(runId)?.done;
  }

  /** Several machines: the run was taken over by another worker; its loop stops now and writes nothing more. */
  abandon(runId: string): Promise<DriveOutcome> | null {
    const entry = this.active.get(runId);
    if (!entry) return null;
    entry.lost = true;
    entry.abort.abort(new Error("Another worker has taken this run over"));
    return entry.done;
  }

  /**
   * While runs wait for space (paused by a full disk, or stranded), looks at the data directory's
   * free space every few seconds; when there is room again, resumes them (docs/operations.md#a-full-disk).
   */
  private watchDisk(): void {
    const disk = this.deps.disk;
    if (!disk || this.diskTimer || this.stoppingFlag || this.options.dispatch) return;
    const look = async () => {
      this.diskTimer = null;
      if (this.stoppingFlag) return;
      const paused = await this.deps.store.runIdsIn(["paused"], DISK_FULL).catch(() => [] as string[]);
      if (!paused.length && !this.stranded.size) return;
      if (await disk.roomy()) {
        for (const runId of this.stranded) this.waiting.push({ runId, recovered: true });
        this.stranded.clear();
        for (const runId of paused) {
          // Only a run still paused for space: a person may have taken it up meanwhile.
          const ok = await this.deps.store
            .transition(runId, ["paused"], "queued", { reason: "Space was freed; the run goes on", ifReasonStartsWith: DISK_FULL })
            .catch(() => false);
          if (ok) this.enqueue(runId);
        }
        this.pump();
        return;
      }
      this.diskTimer = setTimeout(() => void look(), this.options.diskPollMs ?? 5000);
      this.diskTimer.unref();
    };
    this.diskTimer = setTimeout(() => void look(), this.options.diskPollMs ?? 5000);
    this.diskTimer.unref();
  }

  /** Pause: an executing run stops after its current step; a queued one at once. */
  async pause(runId: string, who: ControlActor): Promise<ControlResult> {
    const by = who.id;
    const status = await this.statusOf(runId);
    if (status !== "running" && status !== "queued") return { ok: false, reason: `A ${status ?? "missing"} run cannot be paused` };
    await this.deps.store.appendEvents(runId, [event("run.control", { action: "pause", by, byName: who.name }, { actor: by })]);
    const entry = this.active.get(runId);
    if (entry) {
      entry.pause.abort();
      return { ok: true };
    }
    if (status === "running" && this.options.remote) {
      await this.options.remote.signal(runId, "pause");
      return { ok: true };
    }
    const ok = await this.deps.store.transition(runId, ["queued"], "paused", { reason: "Paused by an operator" }, by);
    return ok ? { ok: true } : { ok: false, reason: "The run changed state; try again" };
  }

  /**
   * Resume; `note` tells the agent what happened while it was paused (e.g. the
   * commands a person ran when they took over). It joins the conversation as a
   * user message in a new checkpoint before the run continues.
   */
  async resume(runId: string, who: ControlActor, note?: string): Promise<ControlResult> {
    const by = who.id;
    if (note?.trim()) {
      const status = await this.statusOf(runId);
      if (status !== "paused") return { ok: false, reason: `Only a paused run can be resumed (this one is ${status ?? "missing"})` };
      const cp = await this.deps.store.latestCheckpoint(runId);
      if (cp) {
        await this.deps.store.commitStep(runId, {
          events: [event("human.note", { text: note, by, byName: who.name }, { actor: by })],
          // Delivered before the next model call, after any pending tool results.
          checkpoint: { ...cp.state, inbox: [...(cp.state.inbox ?? []), note] },
          seq: cp.seq + 1,
        });
      }
    }
    const ok = await this.deps.store.transition(runId, ["paused"], "queued", { reason: "Resumed by an operator" }, by);
    if (!ok) return { ok: false, reason: `Only a paused run can be resumed (this one is ${(await this.statusOf(runId)) ?? "missing"})` };
    await this.deps.store.appendEvents(runId, [event("run.control", { action: "resume", by, byName: who.name }, { actor: by })]);
    this.enqueue(runId);
    return { ok: true };
  }

  /**
   * Stops the tool call in flight (wherever the run executes) so the model
   * reads a person's message now; the rest of that turn's calls are skipped.
   */
  async interrupt(runId: string, who: ControlActor): Promise<void> {
    if (this.interruptHere(runId, who.name)) return;
    if (!this.active.has(runId)) await this.options.remote?.signal(runId, "interrupt", who.name);
  }

  /** Cancel: an executing run is interrupted (its command killed); others end at once. */
  async cancel(runId: string, who: ControlActor): Promise<ControlResult> {
    const by = who.id;
    const status = await this.statusOf(runId);
    if (!status || ["succeeded", "failed", "canceled"].includes(status)) {
      return { ok: false, reason: `A ${status ?? "missing"} run cannot be canceled` };
    }
    await this.deps.store.appendEvents(runId, [event("run.control", { action: "cancel", by, byName: who.name }, { actor: by })]);
    const entry = this.active.get(runId);
    if (entry) {
      entry.cancel = true;
      entry.abort.abort(new Error("Canceled by an operator"));
      await entry.done;
      // The loop may have stopped to wait for a person (or to pause) just before it heard: the run is
      // canceled where it stopped, as if it had not been executing.
      const after = await this.statusOf(runId);
      if (!after || !STOPPED_UNENDED.includes(after)) return { ok: true };
    } else if (status === "running" && this.options.remote) {
      await this.options.remote.signal(runId, "cancel");
      return { ok: true };
    }
    const ok = await this.deps.store.transition(runId, [...STOPPED_UNENDED], "canceled", { reason: "Canceled by an operator" }, by);
    // A paused run kept its terminal pod; a canceled one has no use for it.
    if (ok) await this.deps.terminals?.release(runId).catch(() => {});
    return ok ? { ok: true } : { ok: false, reason: "The run changed state; try again" };
  }

  /** Stops taking work and lets executing runs finish their current step (they resume on the next start). */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stoppingFlag = true;
    if (this.diskTimer) clearTimeout(this.diskTimer);
    this.waiting.length = 0;
    if (this.active.size === 0) return;
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    const timer = setTimeout(() => this.active.forEach((a) => a.abort.abort(new Error("The server is stopping"))), timeoutMs);
    await idle;
    clearTimeout(timer);
  }

  /** Resolves when no run is executing (tests, benchmarks). */
  whenIdle(): Promise<void> {
    if (this.active.size === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async statusOf(runId: string): Promise<RunState | null> {
    return (await this.deps.store.getRun(runId))?.status ?? null;
  }
}
