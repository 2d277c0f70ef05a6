// A person taking over a run's terminal or desktop
// (docs/terminal-and-files.md#taking-over-the-shell,
// docs/desktops-and-tiers.md#the-desktop-tab): the run pauses after its current
// step (the kernel checkpoints before it pauses, INV-4), the person has the
// controls once it has paused (at once when it waits for a person), and hand
// back resumes the run with a note telling the agent what they did. Control
// also ends when the run ends or someone else resumes it (without a note), and
// when the person stays away past a grace period (with one). Take over and hand
// back are logged as "<thing>.control" events.
import type { ErrorCode } from "@/lib/error-codes";
import { roleAtLeast, type Actor } from "@/server/identity";
import { event, isTerminal, type Kernel, type RunEventRecord, type RunState } from "@/server/kernel";

/** The person who took over. */
export interface Controller {
  id: string;
  name: string;
}

/** A refusal of control says why in words; a failed handler adds the code from the one table (docs/development.md#errors). */
export type ControlReply = { ok: true; message?: string } | { ok: false; error: string; code?: ErrorCode };

export const ok = (message?: string): ControlReply => (message ? { ok: true, message } : { ok: true });
export const fail = (error: string): ControlReply => ({ ok: false, error });
export const nameOf = (actor: Actor) => actor.name || actor.email;

export interface RunTakeoverDeps {
  runId: string;
  kernel: Pick<Kernel, "bus" | "store" | "pool">;
  log: { error(message: string, err?: unknown): void };
  /** How long a controller who went away keeps control. */
  graceMs: number;
  /** What is taken over, in messages and in the event type. */
  thing: "terminal" | "desktop";
  /** What the controller may do once the run has paused ("type", "use it"). */
  verb: string;
  /** Control changed: "takeover", "ready" (the run has paused) or "handback". */
  onChange(reason: "takeover" | "ready" | "handback"): void;
  /**
   * Control must end by itself: the run ended or was resumed by someone else
   * (`resume` false), or the person stayed away (`resume` true). The owner
   * ends it with end(), adding what only it knows (the note, its cleanup).
   */
  autoEnd(opts: { resume: boolean; reason: string }): void;
}

export interface Held<S> {
  who: Controller;
  /** The run has paused: the controller's input counts. */
  ready: boolean;
  /** What the owner records while the person has control (for the note). */
  state: S;
}

interface Control<S> extends Held<S> {
  offBus: () => void;
  grace: NodeJS.Timeout | null;
}

export class RunTakeover<S> {
  private control: Control<S> | null = null;
  /** Event log appends, in order. */
  private logged: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: RunTakeoverDeps) {}

  get held(): Held<S> | null {
    return this.control;
  }

  /** This person controls it and the run has paused. */
  controls(userId: string): boolean {
    return !!this.control?.ready && this.control.who.id === userId;
  }

  /** Appends to the run's event log after everything appended before. */
  append(events: Parameters<RunTakeoverDeps["kernel"]["store"]["appendEvents"]>[1]) {
    const next = this.logged.then(() => this.deps.kernel.store.appendEvents(this.deps.runId, events));
    this.logged = next.catch((err) => this.deps.log.error(`run ${this.deps.runId}: could not log ${this.deps.thing} events`, err));
    return next;
  }

  /** A method, not an inline comparison: the type checker would keep `control` narrowed across awaits. */
  private isCurrent(control: Control<S>) {
    return this.control === control;
  }

  private claim(who: Controller, state: S): Control<S> {
    const control: Control<S> = { who, ready: false, state, offBus: () => {}, grace: null };
    this.control = control;
    // Listen before reading the status: a change in between is not missed.
    control.offBus = this.deps.kernel.bus.onRun(this.deps.runId, (events) => this.onRunEvents(control, events));
    return control;
  }

  /** Pauses the run (after its current step) and gives `actor` control; `state` starts the owner's record. */
  async take(actor: Actor, state: S): Promise<ControlReply> {
    const { thing, verb, runId, kernel } = this.deps;
    if (!roleAtLeast(actor.role, "operator")) return fail(`Taking over the ${thing} needs the operator role`);
    const who = { id: actor.userId, name: nameOf(actor) };
    if (this.control) {
      return this.control.who.id === who.id
        ? ok(`You already control the ${thing}`)
        : fail(`${this.control.who.name} is controlling the ${thing}; they (or an admin) must hand it back first`);
    }
    // Claimed before the first await, so two operators cannot both win.
    const control = this.claim(who, state);
    const release = (error: string) => {
      control.offBus();
      if (this.control === control) this.control = null;
      return fail(error);
    };
    try {
      const status = (await kernel.store.getRun(runId))?.status;
      // Waiting for a person, the agent does nothing either: the controls are theirs at once.
      if (status === "paused" || status === "waiting_human") control.ready = true;
      else if (status === "running" || status === "queued") {
        const paused = await kernel.pool.pause(runId, who);
        if (!paused.ok) return release(paused.reason);
      } else {
        return release(status && isTerminal(status) ? "The run has ended" : `A ${status ?? "missing"} run cannot be taken over`);
      }
      if (!this.isCurrent(control)) return fail(`The ${thing} was handed back meanwhile`);
      await this.append([event(`${thing}.control`, { action: "takeover", by: who.id, byName: who.name }, { actor: who.id })]);
    } catch (err) {
      this.deps.log.error(`run ${runId}: take over failed`, err);
      return release("Taking over failed; try again");
    }
    this.deps.onChange("takeover");
    return ok(
      control.ready ? `You control the ${thing}` : `The agent is finishing its current step; you can ${verb} once the run has paused`,
    );
  }

  /**
   * After a restart: the person who had taken over (per the event log) has
   * control again. A paused run stays paused; one that had not paused yet is
   * asked to pause again once a worker runs it.
   */
  async restore(who: Controller, state: S): Promise<{ ready: boolean }> {
    if (this.control) return { ready: this.control.ready };
    const control = this.claim(who, state);
    const status = (await this.deps.kernel.store.getRun(this.deps.runId))?.status;
    if (!this.isCurrent(control)) return { ready: false };
    if (!status || isTerminal(status)) {
      control.offBus();
      this.control = null;
      return { ready: false };
    }
    if (status === "paused" || status === "waiting_human") control.ready = true;
    else if (status === "running" || status === "queued") this.pauseAgain(control, status);
    this.deps.onChange("takeover");
    return { ready: control.ready };
  }

  /** The pause asked for before the restart was lost with the worker; a recovered run is asked again once this server runs it. */
  private pauseAgain(control: Control<S>, status: RunState) {
    const { pool, bus } = this.deps.kernel;
    const { runId, log } = this.deps;
    const pause = () => {
      if (this.control !== control || control.ready) return;
      void pool.pause(runId, control.who).then(
        (r) => !r.ok && log.error(`run ${runId}: could not pause it again for ${control.who.name}: ${r.reason}`),
        (err) => log.error(`run ${runId}: could not pause it again`, err),
      );
    };
    if (status === "queued" || pool.isActive(runId)) return pause();
    // Still waiting for a worker: its first event (resumed, terminal attached) says a worker has it.
    const off = bus.onRun(runId, () => {
      off();
      pause();
    });
  }

  private onRunEvents(control: Control<S>, events: RunEventRecord[]) {
    if (this.control !== control) return;
    for (const e of events) {
      if (e.type !== "run.state") continue;
      const to = (e.payload as { to: RunState }).to;
      if ((to === "paused" || to === "waiting_human") && !control.ready) {
        control.ready = true;
        this.deps.onChange("ready");
      } else if (isTerminal(to)) {
        this.deps.autoEnd({ resume: false, reason: `the run ${to}` });
      } else if ((to === "queued" || to === "running") && control.ready) {
        // Someone pressed Resume: the agent has the controls again, so the person cannot.
        this.deps.autoEnd({ resume: false, reason: "the run was resumed" });
      }
    }
  }

  // ---- the controller watching or not ----

  /** The controller is back: control stays theirs. */
  present(userId: string) {
    const c = this.control;
    if (c?.grace && c.who.id === userId) {
      clearTimeout(c.grace);
      c.grace = null;
    }
  }

  /** The controller is not watching any more: control stays a while, then goes back to the agent. */
  absent(reason: string) {
    const c = this.control;
    if (!c || c.grace) return;
    c.grace = setTimeout(() => {
      if (this.control === c) this.deps.autoEnd({ resume: true, reason });
    }, this.deps.graceMs);
    c.grace.unref?.();
  }

  // ---- hand back ----

  /** Only the controller may hand back, or an admin, who then forces it. */
  mayHandBack(actor: Actor): { ok: true; force: boolean } | { ok: false; error: string } {
    const c = this.control;
    if (!c) return { ok: false, error: `Nobody controls the ${this.deps.thing}` };
    if (c.who.id !== actor.userId && actor.role !== "admin")
      return { ok: false, error: `${c.who.name} controls the ${this.deps.thing}; only they or an admin can hand it back` };
    return { ok: true, force: actor.role === "admin" && c.who.id !== actor.userId };
  }

  /**
   * Ends control: logs the hand back (by `actor`, or the controller when it
   * ended by itself) and, with `resume`, resumes the run with the note once
   * it has paused. `release` runs as control ends, before the note is made.
   */
  async end(
    actor: Actor | null,
    opts: { resume: boolean; reason?: string; release?(held: Held<S>): void; note(held: Held<S>): string | Promise<string> },
  ): Promise<ControlReply> {
    const c = this.control;
    if (!c) return fail(`Nobody controls the ${this.deps.thing}`);
    this.control = null;
    c.offBus();
    if (c.grace) clearTimeout(c.grace);
    opts.release?.(c);
    const by = actor ? { id: actor.userId, name: nameOf(actor) } : c.who;
    let note: string | null = null;
    if (opts.resume) {
      try {
        note = await opts.note(c);
      } catch (err) {
        this.deps.log.error(`run ${this.deps.runId}: could not write the hand back note`, err);
        note = `${c.who.name} used the ${this.deps.thing} while you were paused. Check its state before you continue.`;
      }
    }
    const payload = { action: "handback" as const, by: by.id, byName: by.name, ...(opts.reason ? { reason: opts.reason } : {}) };
    await this.append([event(`${this.deps.thing}.control`, payload, { actor: by.id })]).catch(() => {});
    this.deps.onChange("handback");
    return note ? this.resumeWhenPaused(by, note) : ok();
  }

  /** Resumes the run with the note once it has paused (a take over may end before the step did). */
  private async resumeWhenPaused(who: Controller, note: string): Promise<ControlReply> {
    const { kernel, runId, log } = this.deps;
    const resume = async (): Promise<ControlReply> => {
      const r = await kernel.pool.resume(runId, who, note);
      return r.ok ? ok("The agent continues") : ok(`Handed back; the run was not resumed: ${r.reason}`);
    };
    let off: () => void = () => {};
    const paused = new Promise<boolean>((resolve) => {
      off = kernel.bus.onRun(runId, (events) => {
        for (const e of events) {
          if (e.type !== "run.state") continue;
          const to = (e.payload as { to: RunState }).to;
          if (to === "paused" || isTerminal(to)) resolve(to === "paused");
        }
      });
    });
    const status = (await kernel.store.getRun(runId))?.status;
    if (status === "paused") {
      off();
      return resume();
    }
    if (status === "waiting_human") {
      off();
      return ok("Handed back; the run goes on once a person answers what it asked");
    }
    if (status !== "running" && status !== "queued") {
      off();
      return ok();
    }
    void paused.then((isPaused) => {
      off();
      if (isPaused) void resume().catch((err) => log.error(`run ${runId}: resuming after hand back failed`, err));
    });
    return ok("The agent continues once its current step has finished");
  }
}
