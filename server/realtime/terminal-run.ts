// One run's live terminal: its current pod's stream, the sockets watching it
// (each with its own flow control), and who controls it. Take over pauses the
// run (after its current step) and lets one operator type in the agent's
// shell; hand back resumes the run with a note telling the agent what the
// person ran. Every line typed at the prompt is logged with who typed it.
import type { Socket } from "socket.io";
import { roleAtLeast, type Actor } from "@/server/identity";
import { event, isTerminal, type Kernel, type RunEventRecord, type RunState } from "@/server/kernel";
import type { TerminalPod } from "@/server/compute";
import { TerminalFlow } from "./terminal-flow";
import { LineRecorder, type TypedLine } from "./terminal-input";
import { MAX_NOTE_COMMANDS, takeoverNote } from "./terminal-note";
import type { AttachReply, ControlReply, EndedMessage, StatusMessage, TerminalController } from "./terminal-protocol";
import { PodStream, type Screen } from "./terminal-stream";

export interface TerminalRunDeps {
  kernel: Pick<Kernel, "bus" | "store" | "pool">;
  log: { error(message: string, err?: unknown): void };
  /** How long a controller who disconnected keeps control. */
  graceMs: number;
  /** True while the server shuts down: its pods go, but who controls a terminal stays (it is in the event log). */
  serverStopping?(): boolean;
  /** Keeps the last screen of an ended terminal for people who open the tab later. */
  remember(message: EndedMessage): void;
  recall(runId: string): EndedMessage | null;
}

interface Viewer {
  socket: Socket;
  actor: Actor;
  flow: TerminalFlow;
  /** Has its snapshot and gets live data. */
  live: boolean;
  resyncing: boolean;
}

interface Control {
  who: TerminalController;
  /** The run has paused: the controller may type. */
  ready: boolean;
  recorder: LineRecorder;
  /** Shell state at the last keystroke; the recorder restarts when it changes. */
  atPrompt: boolean;
  commands: TypedLine[];
  moreCommands: number;
  programLines: number;
  offBus: () => void;
  grace: NodeJS.Timeout | null;
}

const ok = (message?: string): ControlReply => (message ? { ok: true, message } : { ok: true });
const fail = (error: string): ControlReply => ({ ok: false, error });
const nameOf = (actor: Actor) => actor.name || actor.email;

export class TerminalRun {
  private stream: PodStream | null = null;
  private seq = 0;
  private readonly viewers = new Map<string, Viewer>();
  private control: Control | null = null;
  /** Event log appends, in order. */
  private logged: Promise<unknown> = Promise.resolve();

  constructor(
    readonly runId: string,
    private readonly deps: TerminalRunDeps,
  ) {}

  get podId() {
    return this.stream?.podId ?? null;
  }

  get controller() {
    return this.control?.who ?? null;
  }

  /** Nothing left to keep in memory. */
  idle() {
    return !this.stream && !this.control && this.viewers.size === 0;
  }

  // ---- pods ----

  attachPod(pod: TerminalPod) {
    if (this.stream?.podId === pod.id) return;
    if (this.stream) this.podGone(this.stream.podId, "it was replaced");
    const stream = new PodStream(pod, () => ++this.seq, this.seq, (reason) => setImmediate(() => this.podGone(pod.id, reason)));
    this.stream = stream;
    stream.onData((seq, data) => {
      for (const v of this.viewers.values()) {
        if (v.live && v.flow.offer(seq, data.length)) v.socket.emit("data", { runId: this.runId, seq, data });
      }
    });
    // While the agent has the keyboard the server's terminal answers programs' queries, as a real
    // terminal would; while a person controls it, their browser's terminal does.
    stream.onReply((reply) => {
      if (!this.control?.ready) pod.write(reply);
    });
    stream.onResize((cols, rows) => this.viewers.forEach((v) => v.socket.emit("resize", { runId: this.runId, cols, rows })));
    this.broadcastStatus("attached");
    this.viewers.forEach((v) => this.sendSnapshot(v));
  }

  /** The pod stopped or the run let it go: watchers keep its last screen. */
  podGone(podId: string, reason?: string) {
    const stream = this.stream;
    if (!stream || stream.podId !== podId) return;
    this.stream = null;
    const why = reason ?? stream.exitReason ?? "the run no longer needs it";
    stream.finish((screen: Screen) => {
      const ended: EndedMessage = { runId: this.runId, podId, data: screen.data, cols: screen.cols, rows: screen.rows, reason: why };
      this.deps.remember(ended);
      // Those who fell behind missed the end of the output.
      this.viewers.forEach((v) => v.flow.behind && v.socket.emit("ended", ended));
      if (!this.stream) this.broadcastStatus(`The terminal ended: ${why}`);
    });
    if (this.control && !this.deps.serverStopping?.()) void this.endControl(null, { resume: true, force: true, reason: `the terminal ended (${why})` }, stream);
  }

  // ---- watchers ----

  addViewer(socket: Socket, actor: Actor, size?: { cols?: number; rows?: number }): AttachReply {
    const viewer: Viewer = { socket, actor, flow: new TerminalFlow(), live: false, resyncing: false };
    this.viewers.set(socket.id, viewer);
    if (this.control?.who.id === actor.userId && this.control.grace) {
      clearTimeout(this.control.grace);
      this.control.grace = null;
    }
    if (size?.cols && size?.rows && this.mayResize(actor)) this.stream?.resize(size.cols, size.rows);
    return { ok: true, podId: this.podId, controller: this.controller, canControl: roleAtLeast(actor.role, "operator") };
  }

  /** After the attach reply: the screen as it is now, or the last one of an ended terminal. */
  greet(socketId: string) {
    const viewer = this.viewers.get(socketId);
    if (!viewer) return;
    // Whether the controller may type yet is not in the attach reply.
    if (this.control) viewer.socket.emit("status", this.statusMessage("takeover"));
    if (this.stream) return this.sendSnapshot(viewer);
    const ended = this.deps.recall(this.runId);
    if (ended) viewer.socket.emit("ended", ended);
  }

  removeViewer(socketId: string) {
    const viewer = this.viewers.get(socketId);
    if (!viewer) return;
    this.viewers.delete(socketId);
    const c = this.control;
    if (!c || c.who.id !== viewer.actor.userId || c.grace) return;
    if ([...this.viewers.values()].some((v) => v.actor.userId === c.who.id)) return;
    this.startGrace(c, `${c.who.name} disconnected`);
  }

  /** The controller is not watching (left, or has not come back since a restart): control stays a while, then goes back to the agent. */
  private startGrace(c: Control, reason: string) {
    c.grace = setTimeout(() => {
      if (this.control === c) void this.endControl(null, { resume: true, force: true, reason });
    }, this.deps.graceMs);
    c.grace.unref?.();
  }

  ack(socketId: string, seq: number) {
    const viewer = this.viewers.get(socketId);
    if (viewer && viewer.flow.ack(seq) && !viewer.resyncing) this.sendSnapshot(viewer);
  }

  private sendSnapshot(viewer: Viewer) {
    const stream = this.stream;
    if (!stream) return;
    viewer.live = false;
    viewer.resyncing = true;
    stream.snapshot((screen) => {
      if (this.viewers.get(viewer.socket.id) !== viewer || this.stream !== stream) return;
      viewer.socket.emit("snapshot", { runId: this.runId, podId: stream.podId, data: screen.data, seq: screen.seq, cols: screen.cols, rows: screen.rows });
      viewer.flow.caughtUp();
      viewer.live = true;
      viewer.resyncing = false;
    });
  }

  private statusMessage(reason: string): StatusMessage {
    const c = this.control;
    return { runId: this.runId, podId: this.podId, controller: c?.who ?? null, reason, ...(c ? { ready: c.ready } : {}) };
  }

  private broadcastStatus(reason: string) {
    const message = this.statusMessage(reason);
    this.viewers.forEach((v) => v.socket.emit("status", message));
  }

  // ---- keyboard and size ----

  private mayResize(actor: Actor) {
    return this.control ? this.control.who.id === actor.userId : roleAtLeast(actor.role, "operator");
  }

  resize(actor: Actor, cols: number, rows: number) {
    if (this.mayResize(actor)) this.stream?.resize(cols, rows);
  }

  input(actor: Actor, data: string): ControlReply {
    const c = this.control;
    if (!c) return fail("Take over the terminal to type in it; until then you are watching");
    if (c.who.id !== actor.userId) return fail(`${c.who.name} is controlling the terminal; you can watch, not type`);
    if (!c.ready) return fail("The agent is finishing its current step; you can type once the run has paused");
    const stream = this.stream;
    if (!stream) return fail("The run has no terminal now");
    const atPrompt = stream.atPrompt;
    if (atPrompt !== c.atPrompt) {
      c.recorder.reset();
      c.atPrompt = atPrompt;
    }
    stream.pod.write(data);
    for (const line of c.recorder.feed(data)) {
      if (!atPrompt) {
        c.programLines++;
        continue;
      }
      if (c.commands.length < MAX_NOTE_COMMANDS) c.commands.push(line);
      else c.moreCommands++;
      const payload = { text: line.text, by: c.who.id, byName: c.who.name, ...(line.approximate ? { approximate: true } : {}) };
      this.append([event("terminal.input", payload, { actor: c.who.id })]);
    }
    return ok();
  }

  private append(events: Parameters<TerminalRunDeps["kernel"]["store"]["appendEvents"]>[1]) {
    const next = this.logged.then(() => this.deps.kernel.store.appendEvents(this.runId, events));
    this.logged = next.catch((err) => this.deps.log.error(`run ${this.runId}: could not log terminal events`, err));
    return next;
  }

  // ---- take over / hand back ----

  async takeover(actor: Actor): Promise<ControlReply> {
    if (!roleAtLeast(actor.role, "operator")) return fail("Taking over the terminal needs the operator role");
    const who = { id: actor.userId, name: nameOf(actor) };
    if (this.control) {
      return this.control.who.id === who.id ? ok("You already control the terminal") : fail(`${this.control.who.name} is controlling the terminal; they (or an admin) must hand it back first`);
    }
    if (!this.stream) return fail("The run has no terminal now");
    // Claimed before the first await, so two operators cannot both win.
    const control: Control = {
      who,
      ready: false,
      recorder: new LineRecorder(),
      atPrompt: this.stream.atPrompt,
      commands: [],
      moreCommands: 0,
      programLines: 0,
      offBus: () => {},
      grace: null,
    };
    this.control = control;
    // Listen before reading the status: a change in between is not missed.
    control.offBus = this.deps.kernel.bus.onRun(this.runId, (events) => this.onRunEvents(control, events));
    const release = (error: string) => {
      control.offBus();
      if (this.control === control) this.control = null;
      return fail(error);
    };
    try {
      const status = (await this.deps.kernel.store.getRun(this.runId))?.status;
      if (status === "paused") control.ready = true;
      else if (status === "running" || status === "queued") {
        const paused = await this.deps.kernel.pool.pause(this.runId, who);
        if (!paused.ok) return release(paused.reason);
      } else {
        return release(status && isTerminal(status) ? "The run has ended" : `A ${status ?? "missing"} run cannot be taken over`);
      }
      if (this.control !== control) return fail("The terminal was handed back meanwhile");
      await this.append([event("terminal.control", { action: "takeover", by: who.id, byName: who.name }, { actor: who.id })]);
    } catch (err) {
      this.deps.log.error(`run ${this.runId}: take over failed`, err);
      return release("Taking over failed; try again");
    }
    this.broadcastStatus("takeover");
    return ok(control.ready ? "You control the terminal" : "The agent is finishing its current step; you can type once the run has paused");
  }

  /**
   * After a restart: the person who had taken over (per the event log) controls the terminal
   * again. A paused run stays paused; one that had not paused yet is asked to pause again.
   */
  async restoreControl(saved: { who: TerminalController; commands: TypedLine[]; moreCommands: number }): Promise<{ ready: boolean }> {
    if (this.control) return { ready: this.control.ready };
    const control: Control = {
      who: saved.who,
      ready: false,
      recorder: new LineRecorder(),
      atPrompt: this.stream?.atPrompt ?? true,
      commands: [...saved.commands],
      moreCommands: saved.moreCommands,
      programLines: 0,
      offBus: () => {},
      grace: null,
    };
    this.control = control;
    control.offBus = this.deps.kernel.bus.onRun(this.runId, (events) => this.onRunEvents(control, events));
    const status = (await this.deps.kernel.store.getRun(this.runId))?.status;
    if (this.control !== control) return { ready: false };
    if (!status || isTerminal(status)) {
      control.offBus();
      this.control = null;
      return { ready: false };
    }
    if (status === "paused") control.ready = true;
    else if (status === "running" || status === "queued") this.pauseAgain(control, status);
    if (![...this.viewers.values()].some((v) => v.actor.userId === control.who.id)) this.startGrace(control, `${control.who.name} did not come back after the server restarted`);
    this.broadcastStatus("takeover");
    return { ready: control.ready };
  }

  /** The pause asked for before the restart was lost with the worker; a recovered run is asked again once this server runs it. */
  private pauseAgain(control: Control, status: RunState) {
    const { pool, bus } = this.deps.kernel;
    const pause = () => {
      if (this.control !== control || control.ready) return;
      void pool.pause(this.runId, control.who).then(
        (r) => !r.ok && this.deps.log.error(`run ${this.runId}: could not pause it again for ${control.who.name}: ${r.reason}`),
        (err) => this.deps.log.error(`run ${this.runId}: could not pause it again`, err),
      );
    };
    if (status === "queued" || pool.isActive(this.runId)) return pause();
    // Still waiting for a worker: its first event (resumed, terminal attached) says a worker has it.
    const off = bus.onRun(this.runId, () => {
      off();
      pause();
    });
  }

  private onRunEvents(control: Control, events: RunEventRecord[]) {
    if (this.control !== control) return;
    for (const e of events) {
      if (e.type !== "run.state") continue;
      const to = (e.payload as { to: RunState }).to;
      if (to === "paused" && !control.ready) {
        control.ready = true;
        this.broadcastStatus("ready");
      } else if (isTerminal(to)) {
        void this.endControl(null, { resume: false, force: true, reason: `the run ${to}` });
      } else if ((to === "queued" || to === "running") && control.ready) {
        // Someone pressed Resume: the agent types again, so the person cannot.
        void this.endControl(null, { resume: false, force: true, reason: "the run was resumed" });
      }
    }
  }

  async handback(actor: Actor): Promise<ControlReply> {
    const c = this.control;
    if (!c) return fail("Nobody controls the terminal");
    if (c.who.id !== actor.userId && actor.role !== "admin") return fail(`${c.who.name} controls the terminal; only they or an admin can hand it back`);
    return this.endControl(actor, { resume: true, force: actor.role === "admin" && c.who.id !== actor.userId });
  }

  private async endControl(
    actor: Actor | null,
    opts: { resume: boolean; force: boolean; reason?: string },
    stream: PodStream | null = this.stream,
  ): Promise<ControlReply> {
    const c = this.control;
    if (!c) return fail("Nobody controls the terminal");
    if (!opts.force && stream && c.ready && !stream.atPrompt) {
      const last = c.commands.at(-1)?.text;
      return fail(`A command is still running in the terminal${last ? ` (${last.length > 60 ? `${last.slice(0, 60)}…` : last})` : ""}. Finish it or press Ctrl-C, then hand back.`);
    }
    this.control = null;
    c.offBus();
    if (c.grace) clearTimeout(c.grace);
    // Leave the shell at an empty prompt for the agent's next command.
    if (stream?.pod.alive() && c.ready) {
      if (!stream.atPrompt) stream.pod.write("\u0003");
      else if (c.atPrompt && c.recorder.current) stream.pod.write("\u0005\u0015");
    }
    const by = actor ? { id: actor.userId, name: nameOf(actor) } : c.who;
    const note = opts.resume
      ? takeoverNote({ byName: c.who.name, commands: c.commands, moreCommands: c.moreCommands, programLines: c.programLines, screen: stream?.tail(30) ?? null, reason: opts.reason })
      : null;
    await this.append([
      event("terminal.control", { action: "handback", by: by.id, byName: by.name, ...(opts.reason ? { reason: opts.reason } : {}) }, { actor: by.id }),
    ]).catch(() => {});
    this.broadcastStatus("handback");
    return note ? this.resumeWhenPaused(by, note) : ok();
  }

  /** Resumes the run with the note once it has paused (a take over may end before the step did). */
  private async resumeWhenPaused(who: TerminalController, note: string): Promise<ControlReply> {
    const { kernel } = this.deps;
    const resume = async (): Promise<ControlReply> => {
      const r = await kernel.pool.resume(this.runId, who, note);
      return r.ok ? ok("The agent continues") : ok(`Handed back; the run was not resumed: ${r.reason}`);
    };
    let off: () => void = () => {};
    const paused = new Promise<boolean>((resolve) => {
      off = kernel.bus.onRun(this.runId, (events) => {
        for (const e of events) {
          if (e.type !== "run.state") continue;
          const to = (e.payload as { to: RunState }).to;
          if (to === "paused" || isTerminal(to)) resolve(to === "paused");
        }
      });
    });
    const status = (await kernel.store.getRun(this.runId))?.status;
    if (status === "paused") {
      off();
      return resume();
    }
    if (status !== "running" && status !== "queued") {
      off();
      return ok();
    }
    void paused.then((ok) => {
      off();
      if (ok) void resume().catch((err) => this.deps.log.error(`run ${this.runId}: resuming after hand back failed`, err));
    });
    return ok("The agent continues once its current step has finished");
  }
}
