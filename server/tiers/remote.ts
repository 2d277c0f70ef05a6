// T3's runs on remote machines (docs/desktops-and-tiers.md#t3-remote-machines), as
// the tier controller uses them: which machine a run gets, its connection, its
// workspace pushed there and pulled back, its terminal pod on the machine made
// the run's terminal, and what is left on the machine when the run leaves (nothing).
// A connection held here belongs to the worker executing the run.
import fs from "node:fs";
import type { Db } from "@/server/db";
import { ACTIVE_STATES } from "@/server/kernel";
import { DEFAULT_LIMITS, type PodLimits } from "@/server/compute";
import type { SecretKeyring } from "@/server/secrets";
import {
  RemotePod,
  chooseMachine,
  openMachine,
  pullWorkspace,
  pushInPlace,
  pushWorkspace,
  readyMachines,
  removeRunFolder,
  type MachineCandidate,
  type MachineChoice,
  type MachineConnection,
  type RemoteConfinement,
  type SyncReport,
} from "@/server/machines";
import { Workspace } from "@/server/tools";
import type { TerminalPods } from "./environments";

export interface MachineRunsDeps {
  db: Db;
  keyring: SecretKeyring;
  terminals: TerminalPods & Required<Pick<TerminalPods, "adopt">>;
  workspaceFor(runId: string): { root: string; ensure(): Promise<void> };
  limits?: PodLimits;
  /** How long a dropped connection is retried before the run pauses (REIN_MACHINE_GRACE_SEC); default 60 s. */
  graceMs?: number;
}

export const DEFAULT_MACHINE_GRACE_MS = 60_000;
/** The first retry of a dropped connection waits this long, each next one twice as long, up to the most. */
const RETRY_FIRST_MS = 250;
const RETRY_MOST_MS = 5_000;

/** What a retry of a dropped connection came to. */
export type Regained =
  | { ok: true; machine: MachineCandidate; ms: number; attempts: number; pulled: SyncReport | null }
  | { ok: false; machine: MachineCandidate | null; ms: number; attempts: number; reason: string };

type OnDrop = (runId: string, machine: MachineCandidate) => void;

interface Session {
  machine: MachineCandidate;
  conn: MachineConnection;
  pod: RemotePod | null;
  /** Set when the connection closed while the run was on the machine (not when Rein closed it). */
  dropped: boolean;
  leaving: boolean;
  onDrop: OnDrop;
}

export interface Entered {
  machine: MachineCandidate;
  push: SyncReport;
  connectMs: number;
}

/** How the run's commands are confined on its machine: the pod and the pull go by the same fact. */
const confinementOf = (s: Session): RemoteConfinement => (s.machine.confinement === "bubblewrap" ? "bubblewrap" : "user");

/** A sync report as an event carries it: counts and time, no names. */
export const syncFigures = (r: SyncReport) => ({
  files: r.files,
  bytes: r.bytes,
  ms: Math.round(r.ms),
  skipped: r.skipped.length,
});

/** File service requests that only read. */
const READ_OPS = new Set(["stat", "lstatMany", "read", "readLines", "blob", "tree", "walk"]);

/**
 * A T3 run's workspace as its file tools see it: the copy on Rein's host. Any
 * change through it marks the workspace as changed here (a marker beside it,
 * so a restart knows too): the machine gets it before the run's next command.
 */
export class MachineBoundWorkspace extends Workspace {
  constructor(
    base: Workspace,
    private readonly changed: () => void,
  ) {
    super(base.root, base.outputsDir, base.snapshotsDir);
  }
  protected override async ask<T>(op: string, params: Record<string, unknown>): Promise<T> {
    if (!READ_OPS.has(op)) this.changed();
    return super.ask<T>(op, params);
  }
  override run(...args: Parameters<Workspace["run"]>): ReturnType<Workspace["run"]> {
    this.changed();
    return super.run(...args);
  }
  override spawn(...args: Parameters<Workspace["spawn"]>): ReturnType<Workspace["spawn"]> {
    this.changed();
    return super.spawn(...args);
  }
  override importFile(...args: Parameters<Workspace["importFile"]>): ReturnType<Workspace["importFile"]> {
    this.changed();
    return super.importFile(...args);
  }
}

/** Beside the run's workspace (Rein's own name, outside what the agent sees): its copy here has changes the machine has not. */
const unsentMarker = (root: string) => `${root}.unsent`;

export class MachineRuns {
  private readonly sessions = new Map<string, Session>();
  private readonly regaining = new Map<string, Promise<Regained>>();
  /** Runs leaving their machine: a retry in flight for one stops at its next turn. */
  private readonly stopping = new Set<string>();

  constructor(private readonly deps: MachineRunsDeps) {}

  /** Runs on T3 now, by machine (every worker's: from the database), leaving out `exceptRun`. */
  private async busy(exceptRun: string): Promise<Map<string, number>> {
    const { db } = this.deps;
    const runs = await db.run.findMany({
      where: { tier: "T3", status: { in: [...ACTIVE_STATES] }, id: { not: exceptRun } },
      select: { id: true },
      take: 1000,
    });
    const busy = new Map<string, number>();
    for (const { id } of runs) {
      const moved = await db.runEvent.findFirst({
        where: { runId: id, type: { in: ["tier.changed", "tier.restored"] } },
        orderBy: { seq: "desc" },
        select: { payload: true },
      });
      const machineId = moved ? (JSON.parse(moved.payload) as { machineId?: unknown }).machineId : undefined;
      if (typeof machineId === "string") busy.set(machineId, (busy.get(machineId) ?? 0) + 1);
    }
    return busy;
  }

  /** The machine a run of `team` would get now; `preferId`: the machine it was on (a resume). */
  async choose(runId: string, team: { id: string | null; name: string }, labels: string[], preferId?: string): Promise<MachineChoice> {
    const candidates = await readyMachines(this.deps.db, team.id);
    const preferred = preferId ? candidates.filter((m) => m.id === preferId) : [];
    const busy = await this.busy(runId);
    if (preferred.length) {
      const again = chooseMachine(preferred, busy, [], team.name);
      if (again.ok) return again;
    }
    return chooseMachine(candidates, busy, labels, team.name);
  }

  session(runId: string) {
    const s = this.sessions.get(runId);
    return s && !s.leaving ? s : undefined;
  }

  /** Connects, copies the workspace to the machine and makes a pod there the run's terminal. */
  async enter(runId: string, machine: MachineCandidate, onDrop: OnDrop, opts: { pullFirst?: boolean } = {}): Promise<Entered> {
    const started = performance.now();
    const conn = await openMachine({ db: this.deps.db, keyring: this.deps.keyring }, machine.id);
    const connectMs = performance.now() - started;
    const session: Session = { machine, conn, pod: null, dropped: false, leaving: false, onDrop };
    const { push } = await this.settle(runId, session, opts.pullFirst ?? false);
    return { machine, push, connectMs };
  }

  /**
   * A new connection made the run's: what an earlier one left on the machine
   * (a pod's session, its secret files) goes, the workspace is pushed, a pod
   * started. `pullFirst`: the machine's workspace is the newest (a connection
   * that dropped while the run was there) and comes back before anything else.
   */
  private async settle(runId: string, session: Session, pullFirst: boolean): Promise<{ push: SyncReport; pulled: SyncReport | null }> {
    const { conn } = session;
    conn.onClose(() => {
      if (session.leaving || this.sessions.get(runId) !== session) return;
      session.dropped = true;
      session.onDrop(runId, session.machine);
    });
    try {
      const workspace = this.deps.workspaceFor(runId);
      await workspace.ensure();
      let pulled: SyncReport | null = null;
      // The machine's copy is the newer one, unless the file tools changed the workspace here since the last copy.
      if (pullFirst && !this.unsent(runId))
        pulled = await pullWorkspace(conn, workspace.root, runId, { confinement: confinementOf(session) }).catch(() => null);
      fs.rmSync(unsentMarker(workspace.root), { force: true });
      await RemotePod.killLeftovers(conn, runId);
      // What an earlier connection left (a drop leaves the pod's secret files and start script): gone first.
      await removeRunFolder(conn, runId);
      const push = await pushWorkspace(conn, workspace.root, runId);
      this.sessions.set(runId, session);
      await this.openPod(runId, session);
      return { push, pulled };
    } catch (err) {
      session.leaving = true;
      if (this.sessions.get(runId) === session) this.sessions.delete(runId);
      session.pod?.dispose("it did not start").catch(() => undefined);
      await removeRunFolder(conn, runId).catch(() => undefined);
      conn.close();
      throw err;
    }
  }

  /**
   * The run's connection, made again after it dropped: tried on the same
   * machine until the grace period (REIN_MACHINE_GRACE_SEC) ends, waiting a
   * little longer after each failure. The machine's workspace comes back
   * first, then a new pod starts there. Nothing that was running is started
   * again. One retry at a time per run; callers share it.
   */
  regain(runId: string): Promise<Regained> {
    const s = this.sessions.get(runId);
    if (!s || s.leaving) return Promise.resolve({ ok: false, machine: null, ms: 0, attempts: 0, reason: "the run is on no machine" });
    if (!s.dropped && !s.conn.isClosed) return Promise.resolve({ ok: true, machine: s.machine, ms: 0, attempts: 0, pulled: null });
    let retry = this.regaining.get(runId);
    if (!retry) {
      retry = this.retry(runId, s).finally(() => this.regaining.delete(runId));
      this.regaining.set(runId, retry);
    }
    return retry;
  }

  private async retry(runId: string, old: Session): Promise<Regained> {
    const started = performance.now();
    const graceMs = this.deps.graceMs ?? DEFAULT_MACHINE_GRACE_MS;
    const deadline = Date.now() + graceMs;
    const ms = () => Math.round(performance.now() - started);
    let attempts = 0;
    let last = "it did not answer";
    for (;;) {
      if (this.sessions.get(runId) !== old || old.leaving || this.stopping.has(runId))
        return { ok: false, machine: old.machine, ms: ms(), attempts, reason: "the run left its machine meanwhile" };
      attempts++;
      try {
        const left = Math.max(1000, deadline - Date.now());
        const conn = await openMachine({ db: this.deps.db, keyring: this.deps.keyring }, old.machine.id, {
          signal: AbortSignal.timeout(Math.min(left, 30_000)),
        });
        old.pod?.dispose("its connection dropped").catch(() => undefined);
        const session: Session = { machine: old.machine, conn, pod: null, dropped: false, leaving: false, onDrop: old.onDrop };
        old.leaving = true;
        const { pulled } = await this.settle(runId, session, true);
        return { ok: true, machine: old.machine, ms: ms(), attempts, pulled };
      } catch (err) {
        last = (err as Error).message;
        // settle() forgot the run when it failed: keep it, dropped, for the next try.
        old.leaving = false;
        if (!this.sessions.has(runId)) this.sessions.set(runId, old);
      }
      const wait = Math.min(RETRY_FIRST_MS * 2 ** (attempts - 1), RETRY_MOST_MS, deadline - Date.now());
      if (wait <= 0) return { ok: false, machine: old.machine, ms: ms(), attempts, reason: last };
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async openPod(runId: string, session: Session): Promise<RemotePod> {
    const pod = await RemotePod.open({
      conn: session.conn,
      runId,
      workspaceDir: this.deps.workspaceFor(runId).root,
      confinement: confinementOf(session),
      limits: this.deps.limits ?? DEFAULT_LIMITS,
    });
    session.pod = pod;
    await this.deps.terminals.adopt(runId, pod);
    return pod;
  }

  /** The run's pod on the machine, started again over the same connection when it stopped (a wait for a person released it). */
  async pod(runId: string): Promise<RemotePod | null> {
    const s = this.session(runId);
    if (!s || s.dropped || s.conn.isClosed) return null;
    if (s.pod?.alive() && this.deps.terminals.get(runId) === s.pod) return s.pod;
    return this.openPod(runId, s);
  }

  /** Whether the run's connection dropped (its pod and any command in flight went with it). */
  dropped(runId: string): boolean {
    const s = this.sessions.get(runId);
    return !!s && (s.dropped || s.conn.isClosed) && !s.leaving;
  }

  /** Whether the connection drops within `ms` (a command's shell ended: was it the connection?). */
  async droppedWithin(runId: string, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (!this.dropped(runId) && Date.now() < until && this.sessions.has(runId)) await new Promise((r) => setTimeout(r, 50));
    return this.dropped(runId);
  }

  /** The run's file tools changed its workspace here: the machine gets it before the next command. */
  changedHere(runId: string): void {
    const marker = unsentMarker(this.deps.workspaceFor(runId).root);
    if (!fs.existsSync(marker)) fs.writeFileSync(marker, "");
  }

  /** Whether the run's workspace here has changes its machine has not. */
  unsent(runId: string): boolean {
    return fs.existsSync(unsentMarker(this.deps.workspaceFor(runId).root));
  }

  /** The changes here sent: the run's workspace made the machine's copy, in place; null when there was nothing to send. */
  async sendChanges(runId: string): Promise<SyncReport | null> {
    const s = this.session(runId);
    if (!s || s.conn.isClosed || !this.unsent(runId)) return null;
    const root = this.deps.workspaceFor(runId).root;
    // Cleared first: a change made while the copy is under way marks it again.
    fs.rmSync(unsentMarker(root), { force: true });
    try {
      return await pushInPlace(s.conn, root, runId, { confinement: confinementOf(s) });
    } catch (err) {
      this.changedHere(runId);
      throw err;
    }
  }

  /**
   * The machine's workspace copied back into the run's. Changes the file
   * tools made here since the last copy go to the machine first (the run
   * pauses, or a person takes over, after a write_file): else the copy back
   * would replace them with what the machine had. `afterCommand`: a command
   * just ran there, and what it did wins.
   */
  async pull(runId: string, opts: { afterCommand?: boolean } = {}): Promise<SyncReport | null> {
    const s = this.session(runId);
    if (!s || s.conn.isClosed) return null;
    if (!opts.afterCommand && this.unsent(runId)) await this.sendChanges(runId);
    return pullWorkspace(s.conn, this.deps.workspaceFor(runId).root, runId, { confinement: confinementOf(s) });
  }

  /**
   * The run leaves its machine: the workspace comes back (when the connection
   * still stands), the pod stops, the run's folder on the machine goes, the
   * connection closes. `pulled` is null when nothing could be copied back.
   */
  async leave(runId: string): Promise<{ machine: MachineCandidate; pulled: SyncReport | null; problem?: string } | null> {
    // A reconnect in flight ends first (it tries no more): else it would make the run's session, pod and
    // folder on the machine again after they went, for a run that left.
    const retry = this.regaining.get(runId);
    if (retry) {
      this.stopping.add(runId);
      try {
        await retry.catch(() => undefined);
      } finally {
        this.stopping.delete(runId);
      }
    }
    const s = this.sessions.get(runId);
    if (!s) return null;
    s.leaving = true;
    this.sessions.delete(runId);
    if (this.deps.terminals.get(runId) === s.pod) await this.deps.terminals.release(runId).catch(() => undefined);
    await s.pod?.dispose("the run left its machine").catch(() => undefined);
    // A connection that dropped: one more try, so the workspace comes back and nothing of the run stays on the machine.
    let conn: MachineConnection | null = s.conn.isClosed ? null : s.conn;
    if (!conn)
      conn = await openMachine({ db: this.deps.db, keyring: this.deps.keyring }, s.machine.id, {
        signal: AbortSignal.timeout(10_000),
      }).catch(() => null);
    let pulled: SyncReport | null = null;
    let problem: string | undefined;
    const root = this.deps.workspaceFor(runId).root;
    // Changes the file tools made here since the last copy: the workspace here is the newer one, and stays.
    const newerHere = this.unsent(runId);
    if (conn) {
      try {
        if (!newerHere) pulled = await pullWorkspace(conn, root, runId, { confinement: confinementOf(s) });
      } catch (err) {
        problem = `The workspace could not be copied back: ${(err as Error).message}`;
      }
      await RemotePod.killLeftovers(conn, runId).catch(() => undefined);
      await removeRunFolder(conn, runId).catch(() => undefined);
      conn.close();
    } else problem = "The connection to the machine had dropped: the workspace is as the last copy back left it";
    fs.rmSync(unsentMarker(root), { force: true });
    s.conn.close();
    return { machine: s.machine, pulled, ...(problem ? { problem } : {}) };
  }

  /** Forgets a run whose connection dropped (nothing to pull or remove over it). */
  forget(runId: string): void {
    const s = this.sessions.get(runId);
    if (!s) return;
    s.leaving = true;
    this.sessions.delete(runId);
    s.conn.close();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.leave(id).catch(() => undefined)));
  }
}
