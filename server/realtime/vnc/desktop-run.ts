// One run's desktop as people see it: the desktop the run has now, the VNC
// connections watching it, the sockets told about it, and who controls it.
// Input reaches the desktop only from the person who took over, once the run
// has paused; connections close, with the reason, when the desktop goes away
// or the run ends.
import type { Socket } from "socket.io";
import type { WebSocket } from "ws";
import { roleAtLeast, type Actor } from "@/server/identity";
import { isTerminal, type Kernel, type RunEventRecord, type RunState } from "@/server/kernel";
import { RunTakeover, fail, type ControlReply } from "../run-takeover";
import { viewOnlyGate } from "./client-messages";
import { countInput, desktopNote, newDesktopUse, type DesktopUse } from "./desktop-note";
import { VNC_CLOSE, type DesktopStatus } from "./protocol";
import { VncRelay } from "./relay";
import { connectVnc, type VncSession } from "./handshake";

interface DesktopBase {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  onExit(cb: (reason: string) => void): () => void;
  /** The browser's page, for the note after a take over. */
  page?(): Promise<{ url(): string; title(): Promise<string> }>;
}

/** A desktop of this process (the desktop tier's handle has this shape): its VNC server is on 127.0.0.1. */
export interface LocalDesktop extends DesktopBase {
  readonly vncPort: number;
  readonly vncPassword: string;
}

/** A desktop on another process (several machines): its worker logs in to the VNC server and relays. */
export interface TunneledDesktop extends DesktopBase {
  openVnc(): Promise<VncSession>;
}

/** What the proxy needs of a run's desktop. */
export type ProxiedDesktop = LocalDesktop | TunneledDesktop;

/** Logs in to the desktop's VNC server, wherever it is. */
function openVnc(desktop: ProxiedDesktop): Promise<VncSession> {
  return "openVnc" in desktop ? desktop.openVnc() : connectVnc({ port: desktop.vncPort, password: desktop.vncPassword });
}

/** The desktops of runs (the desktop tier's pool has this shape). */
export interface DesktopSource {
  get(runId: string): ProxiedDesktop | undefined;
  onReleased(cb: (runId: string) => void): () => void;
  /** Told when a run gets a desktop (a source whose desktops can come before the run's events say so). */
  onAttached?(cb: (runId: string) => void): () => void;
  /** True while the server shuts down: desktops go, but who controls one stays (it is in the event log). */
  readonly stopping?: boolean;
}

export interface DesktopRunDeps {
  kernel: Pick<Kernel, "bus" | "store" | "pool">;
  desktops: DesktopSource | undefined;
  log: { error(message: string, err?: unknown): void };
  graceMs: number;
  serverStopping(): boolean;
}

interface Connection {
  relay: VncRelay;
  actor: Actor;
}

const PAGE_TIMEOUT_MS = 2000;

export class DesktopRun {
  private desktop: ProxiedDesktop | null = null;
  private offExit: () => void = () => {};
  private readonly exited = new WeakSet<ProxiedDesktop>();
  private ended: RunState | null = null;
  private readonly connections = new Set<Connection>();
  private readonly watchers = new Map<string, { socket: Socket; actor: Actor }>();
  private readonly takeover: RunTakeover<DesktopUse>;
  private readonly offBus: () => void;

  constructor(
    readonly runId: string,
    private readonly deps: DesktopRunDeps,
  ) {
    this.takeover = new RunTakeover<DesktopUse>({
      runId,
      kernel: deps.kernel,
      log: deps.log,
      graceMs: deps.graceMs,
      thing: "desktop",
      verb: "use it",
      onChange: (reason) => this.broadcast(reason),
      autoEnd: ({ resume, reason }) => void this.endControl(null, resume, reason),
    });
    // Any event may mean the desktop came or went (the tier changes are events); a run's end closes everything.
    this.offBus = deps.kernel.bus.onRun(runId, (events) => this.onRunEvents(events));
    this.refresh();
  }

  /** Nothing left to keep in memory. */
  idle() {
    return this.connections.size === 0 && this.watchers.size === 0 && !this.takeover.held;
  }

  dispose() {
    this.offBus();
    this.offExit();
  }

  status(reason?: string): DesktopStatus {
    const held = this.takeover.held;
    const d = this.desktop;
    return {
      runId: this.runId,
      desktop: d ? { id: d.id, width: d.width, height: d.height } : null,
      controller: held?.who ?? null,
      ready: held?.ready ?? false,
      ended: this.ended !== null,
      ...(reason ? { reason } : {}),
    };
  }

  private broadcast(reason?: string) {
    const status = this.status(reason);
    this.watchers.forEach((w) => w.socket.emit("desktopStatus", status));
  }

  // ---- the desktop coming and going ----

  /** Looks at the run's desktop again; says so when it changed. */
  refresh() {
    const found = this.ended ? undefined : this.deps.desktops?.get(this.runId);
    // A desktop that exited may be listed until the pool releases it.
    const current = found && !this.exited.has(found) ? found : undefined;
    if (current === (this.desktop ?? undefined)) return;
    if (this.desktop) this.desktopGone(current ? "it was replaced" : "the run released it");
    if (!current) return;
    this.desktop = current;
    this.offExit = current.onExit((reason) => {
      this.exited.add(current);
      setImmediate(() => this.desktop === current && this.desktopGone(reason));
    });
    this.broadcast("attached");
  }

  private desktopGone(why: string) {
    this.offExit();
    this.offExit = () => {};
    this.desktop = null;
    const reason = `The desktop stopped: ${why}`;
    if (this.deps.serverStopping()) {
      this.closeAll(VNC_CLOSE.serverStopping, "The server is stopping; reconnect when it is back");
    } else {
      this.closeAll(VNC_CLOSE.desktopGone, reason);
      if (this.takeover.held) void this.endControl(null, true, `the desktop stopped (${why})`);
    }
    this.broadcast(reason);
  }

  private onRunEvents(events: RunEventRecord[]) {
    for (const e of events) {
      const to = e.type === "run.state" ? (e.payload as { to: RunState }).to : null;
      if (to && isTerminal(to)) return this.runEnded(to);
    }
    this.refresh();
  }

  /** The run is over: its connections close and no desktop will come. */
  runEnded(state: RunState) {
    if (this.ended) return;
    this.ended = state;
    this.offExit();
    this.desktop = null;
    this.closeAll(VNC_CLOSE.runEnded, `The run ${state}; its desktop is gone`);
    this.broadcast(`The run ${state}`);
  }

  private closeAll(code: number, reason: string) {
    for (const c of [...this.connections]) c.relay.close(code, reason);
  }

  // ---- people ----

  /** A VNC websocket of a person who may see the run (checked by the caller). */
  connect(ws: WebSocket, actor: Actor, runStatus: RunState) {
    if (isTerminal(runStatus)) this.runEnded(runStatus);
    this.refresh();
    const desktop = this.desktop;
    if (this.ended) return void ws.close(VNC_CLOSE.runEnded, `The run ${this.ended}; its desktop is gone`);
    if (!desktop) return void ws.close(VNC_CLOSE.noDesktop, "This run has no desktop now");
    const gate = viewOnlyGate(
      () => this.takeover.controls(actor.userId),
      (type, bytes) => {
        const held = this.takeover.held;
        if (held?.who.id === actor.userId) countInput(held.state, type, bytes);
        return true;
      },
    );
    const connection: Connection = { relay: new VncRelay(ws, gate), actor };
    this.connections.add(connection);
    this.takeover.present(actor.userId);
    connection.relay.onEnd(() => {
      this.connections.delete(connection);
      this.left(actor.userId);
    });
    void connection.relay.start(() => openVnc(desktop));
  }

  watch(socket: Socket, actor: Actor) {
    this.watchers.set(socket.id, { socket, actor });
    this.takeover.present(actor.userId);
    this.refresh();
    return this.status();
  }

  unwatch(socketId: string) {
    const watcher = this.watchers.get(socketId);
    if (!watcher) return;
    this.watchers.delete(socketId);
    this.left(watcher.actor.userId);
  }

  /** The controller is neither watching nor connected any more: control stays a while, then goes back to the agent. */
  private left(userId: string, reason = "disconnected") {
    const held = this.takeover.held;
    if (held?.who.id !== userId) return;
    const here =
      [...this.watchers.values()].some((w) => w.actor.userId === userId) || [...this.connections].some((c) => c.actor.userId === userId);
    if (!here) this.takeover.absent(`${held.who.name} ${reason}`);
  }

  // ---- take over / hand back ----

  async takeOver(actor: Actor): Promise<ControlReply> {
    if (!roleAtLeast(actor.role, "operator")) return fail("Taking over the desktop needs the operator role");
    this.refresh();
    if (!this.desktop && !this.takeover.held) return fail(this.ended ? "The run has ended" : "The run has no desktop now");
    return this.takeover.take(actor, newDesktopUse());
  }

  /** After a restart (the person had taken over, per the event log): they control it again, or it goes back to the agent if they do not come back. */
  async restoreControl(who: { id: string; name: string }) {
    const restored = await this.takeover.restore(who, newDesktopUse());
    if (this.takeover.held?.who.id === who.id) this.left(who.id, "did not come back after the server restarted");
    return restored;
  }

  async handBack(actor: Actor): Promise<ControlReply> {
    const allowed = this.takeover.mayHandBack(actor);
    if (!allowed.ok) return fail(allowed.error);
    return this.endControl(actor, true);
  }

  private endControl(actor: Actor | null, resume: boolean, reason?: string): Promise<ControlReply> {
    const desktop = this.desktop;
    return this.takeover.end(actor, {
      resume,
      reason,
      note: async ({ who, state }) =>
        desktopNote({ byName: who.name, use: state, page: desktop ? await this.pageOf(desktop) : null, reason }),
    });
  }

  /** Where the browser is, if the desktop can say so quickly. */
  private async pageOf(desktop: ProxiedDesktop): Promise<{ title: string; url: string } | null> {
    if (!desktop.page) return null;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PAGE_TIMEOUT_MS)));
    const read = (async () => {
      const page = await desktop.page!();
      return { url: page.url(), title: await page.title() };
    })().catch(() => null);
    try {
      return await Promise.race([read, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
