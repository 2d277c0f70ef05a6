// One run's live terminal: its current pod's stream, the sockets watching it
// (each with its own flow control), and who controls it. Take over pauses the
// run (after its current step) and lets one operator type in the agent's
// shell; hand back resumes the run with a note telling the agent what the
// person ran. Every line typed at the prompt is logged with who typed it.
import type { Socket } from "socket.io";
import { roleAtLeast, type Actor } from "@/server/identity";
import { event, type Kernel } from "@/server/kernel";
import type { TerminalPod } from "@/server/compute";
import { TerminalFlow } from "./terminal-flow";
import { LineRecorder, type TypedLine } from "./terminal-input";
import { MAX_NOTE_COMMANDS, takeoverNote } from "./terminal-note";
import type { AttachReply, ControlReply, EndedMessage, StatusMessage, TerminalController } from "./terminal-protocol";
import { PodStream, type Screen } from "./terminal-stream";
import { RunTakeover, fail, ok, type Held } from "./run-takeover";

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
  /** Its last screen is kept and nobody watches: the namespace may let go of it. */
  settled?(): void;
}

interface Viewer {
  socket: Socket;
  actor: Actor;
  flow: TerminalFlow;
  /** Has its snapshot and gets live data. */
  live: boolean;
  resyncing: boolean;
  /** Came while the last screen was being taken: it gets that screen when it is ready. */
  awaitingEnd?: boolean;
}

/** What the person did in the shell while they had it, for the note the agent gets. */
interface ShellUse {
  recorder: LineRecorder;
  /** Shell state at the last keystroke; the recorder restarts when it changes. */
  atPrompt: boolean;
  commands: TypedLine[];
  moreCommands: number;
  programLines: number;
}

const newUse = (atPrompt: boolean, saved?: { commands: TypedLine[]; moreCommands: number }): ShellUse => ({
  recorder: new LineRecorder(),
  atPrompt,
  commands: [...(saved?.commands ?? [])],
  moreCommands: saved?.moreCommands ?? 0,
  programLines: 0,
});

/**
 * One message to several sockets. socket.emit encodes it for each socket; a
 * broadcast to their rooms encodes it once for all (a chunk of output is up
 * to 64 KiB), and `local` keeps it off a cluster's adapter: these sockets
 * are this process's own.
 */
function emitToEach(sockets: Socket[], event: string, message: object) {
  const nsp = sockets[0]?.nsp;
  if (sockets.length > 1 && nsp && sockets.every((s) => s.nsp === nsp)) {
    nsp.local.to(sockets.map((s) => s.id)).emit(event, message);
  } else {
    for (const s of sockets) s.emit(event, message);
  }
}

export class TerminalRun {
  private stream: PodStream | null = null;
  /** The pod went and its last screen is being taken (a watcher who comes now waits for it). */
  private finishing = false;
  private seq = 0;
  private readonly viewers = new Map<string, Viewer>();
  private readonly handover: RunTakeover<ShellUse>;

  constructor(
    readonly runId: string,
    private readonly deps: TerminalRunDeps,
  ) {
    this.handover = new RunTakeover<ShellUse>({
      runId,
      kernel: deps.kernel,
      log: deps.log,
      graceMs: deps.graceMs,
      thing: "terminal",
      verb: "type",
      onChange: (reason) => this.broadcastStatus(reason),
      autoEnd: ({ resume, reason }) => void this.endControl(null, { resume, force: true, reason }),
    });
  }

  private get control() {
    return this.handover.held;
  }

  get podId() {
    return this.stream?.podId ?? null;
  }

  get controller() {
    return this.control?.who ?? null;
  }

  /** Nothing left to keep in memory (a last screen still being taken is not let go: a watcher may come for it). */
  idle() {
    return !this.stream && !this.finishing && !this.control && this.viewers.size === 0;
  }

  // ---- pods ----

  attachPod(pod: TerminalPod) {
    if (this.stream?.podId === pod.id) return;
    if (this.stream) this.podGone(this.stream.podId, "it was replaced");
    const stream = new PodStream(
      pod,
      () => ++this.seq,
      this.seq,
      (reason) => setImmediate(() => this.podGone(pod.id, reason)),
    );
    this.stream = stream;
    stream.onData((seq, data) => {
      const to: Socket[] = [];
      for (const v of this.viewers.values()) if (v.live && v.flow.offer(seq, data.length)) to.push(v.socket);
      emitToEach(to, "data", { runId: this.runId, seq, data });
    });
    // While the agent has the keyboard the server's terminal answers programs' queries, as a real
    // terminal would; while a person controls it, their browser's terminal does.
    stream.onReply((reply) => {
      if (!this.control?.ready) pod.write(reply);
    });
    // The screen could not show some output and started afresh: the run's log says so (watchers got a note).
    stream.onReset((reason) => {
      this.deps.log.error(`run ${this.runId}: the terminal's screen was reset (pod ${pod.id})`, reason);
      void this.handover.append([event("terminal.reset", { podId: pod.id, reason })]).catch(() => {});
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
    this.finishing = true;
    const why = reason ?? stream.exitReason ?? "the run no longer needs it";
    stream.finish((screen: Screen) => {
      this.finishing = false;
      const ended: EndedMessage = { runId: this.runId, podId, data: screen.data, cols: screen.cols, rows: screen.rows, reason: why };
      this.deps.remember(ended);
      // Those who fell behind missed the end of the output; those who came meanwhile have no screen yet.
      this.viewers.forEach((v) => {
        if (v.flow.behind || v.awaitingEnd) v.socket.emit("ended", ended);
        v.awaitingEnd = false;
      });
      if (!this.stream) this.broadcastStatus(`The terminal ended: ${why}`);
      this.deps.settled?.();
    });
    if (this.control && !this.deps.serverStopping?.())
      void this.endControl(null, { resume: true, force: true, reason: `the terminal ended (${why})` }, stream);
  }

  // ---- watchers ----

  addViewer(socket: Socket, actor: Actor, size?: { cols?: number; rows?: number }): AttachReply {
    const viewer: Viewer = { socket, actor, flow: new TerminalFlow(), live: false, resyncing: false };
    this.viewers.set(socket.id, viewer);
    this.handover.present(actor.userId);
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
    else if (this.finishing) viewer.awaitingEnd = true;
  }

  removeViewer(socketId: string) {
    const viewer = this.viewers.get(socketId);
    if (!viewer) return;
    this.viewers.delete(socketId);
    const c = this.control;
    if (!c || c.who.id !== viewer.actor.userId) return;
    if (!this.watching(c.who.id)) this.handover.absent(`${c.who.name} disconnected`);
  }

  private watching(userId: string) {
    return [...this.viewers.values()].some((v) => v.actor.userId === userId);
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
      viewer.socket.emit("snapshot", {
        runId: this.runId,
        podId: stream.podId,
        data: screen.data,
        seq: screen.seq,
        cols: screen.cols,
        rows: screen.rows,
      });
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

  /**
   * Only the person in control, once the run has paused for them, sets the
   * pod's size: the agent's commands run in that terminal, so a watcher's
   * window (any role) never changes it; watchers re-wrap the stream locally.
   */
  private mayResize(actor: Actor) {
    return !!this.control?.ready && this.control.who.id === actor.userId;
  }

  resize(actor: Actor, cols: number, rows: number) {
    if (this.mayResize(actor)) this.stream?.resize(cols, rows);
  }

  input(actor: Actor, data: string): ControlReply {
    const c = this.control;
    if (!c) return fail("Take over the terminal to type in it; until then you are watching");
    if (c.who.id !== actor.userId) return fail(`${c.who.name} is controlling the terminal; you can watch, not type`);
    // Their role in the run's team is read at each keystroke: demoted or removed from the team since taking over, they type no more.
    if (!roleAtLeast(actor.role, "operator"))
      return fail("Typing in the terminal needs the operator role in this run's team; hand it back");
    if (!c.ready) return fail("The agent is finishing its current step; you can type once the run has paused");
    const stream = this.stream;
    if (!stream) return fail("The run has no terminal now");
    const use = c.state;
    const atPrompt = stream.atPrompt;
    if (atPrompt !== use.atPrompt) {
      use.recorder.reset();
      use.atPrompt = atPrompt;
    }
    stream.pod.write(data);
    for (const line of use.recorder.feed(data)) {
      if (!atPrompt) {
        use.programLines++;
        continue;
      }
      if (use.commands.length < MAX_NOTE_COMMANDS) use.commands.push(line);
      else use.moreCommands++;
      const payload = { text: line.text, by: c.who.id, byName: c.who.name, ...(line.approximate ? { approximate: true } : {}) };
      void this.handover.append([event("terminal.input", payload, { actor: c.who.id })]).catch(() => {});
    }
    return ok();
  }

  // ---- take over / hand back ----

  async takeover(actor: Actor): Promise<ControlReply> {
    if (!roleAtLeast(actor.role, "operator")) return fail("Taking over the terminal needs the operator role");
    if (!this.stream && !this.control) return fail("The run has no terminal now");
    return this.handover.take(actor, newUse(this.stream?.atPrompt ?? true));
  }

  /**
   * After a restart: the person who had taken over (per the event log) controls the terminal
   * again, with what they typed before the restart kept for the note.
   */
  async restoreControl(saved: { who: TerminalController; commands: TypedLine[]; moreCommands: number }): Promise<{ ready: boolean }> {
    const restored = await this.handover.restore(saved.who, newUse(this.stream?.atPrompt ?? true, saved));
    if (this.control?.who.id === saved.who.id && !this.watching(saved.who.id)) {
      this.handover.absent(`${saved.who.name} did not come back after the server restarted`);
    }
    return restored;
  }

  async handback(actor: Actor): Promise<ControlReply> {
    const allowed = this.handover.mayHandBack(actor);
    if (!allowed.ok) return fail(allowed.error);
    return this.endControl(actor, { resume: true, force: allowed.force });
  }

  private async endControl(
    actor: Actor | null,
    opts: { resume: boolean; force: boolean; reason?: string },
    stream: PodStream | null = this.stream,
  ): Promise<ControlReply> {
    const c = this.control;
    if (!c) return fail("Nobody controls the terminal");
    if (!opts.force && stream && c.ready && !stream.atPrompt) {
      const last = c.state.commands.at(-1)?.text;
      return fail(
        `A command is still running in the terminal${last ? ` (${last.length > 60 ? `${last.slice(0, 60)}…` : last})` : ""}. Finish it or press Ctrl-C, then hand back.`,
      );
    }
    return this.handover.end(actor, {
      resume: opts.resume,
      reason: opts.reason,
      release: (held) => this.leavePrompt(held, stream),
      note: async ({ who, state }) =>
        takeoverNote({
          byName: who.name,
          commands: state.commands,
          moreCommands: state.moreCommands,
          programLines: state.programLines,
          screen: stream ? await stream.tail(30) : null,
          reason: opts.reason,
        }),
    });
  }

  /** Leaves the shell at an empty prompt for the agent's next command. */
  private leavePrompt({ ready, state }: Held<ShellUse>, stream: PodStream | null) {
    if (!stream?.pod.alive() || !ready) return;
    if (!stream.atPrompt) stream.pod.write("\u0003");
    else if (state.atPrompt && state.recorder.current) stream.pod.write("\u0005\u0015");
  }
}
