// T3's runs on remote machines (docs/desktops-and-tiers.md#t3-remote-machines), as
// the tier controller uses them: which machine a run gets, its connection, its
// workspace pushed there and pulled back, its terminal pod on the machine made
// the run's terminal, and what is left on the machine when the run leaves (nothing).
// A connection held here belongs to the worker executing the run.
import type { Db } from "@/server/db";
import { ACTIVE_STATES } from "@/server/kernel";
import { DEFAULT_LIMITS, type PodLimits } from "@/server/compute";
import type { SecretKeyring } from "@/server/secrets";
import {
  RemotePod,
  chooseMachine,
  openMachine,
  pullWorkspace,
  pushWorkspace,
  readyMachines,
  removeRunFolder,
  type MachineCandidate,
  type MachineChoice,
  type MachineConnection,
  type RemoteConfinement,
  type SyncReport,
} from "@/server/machines";
import type { TerminalPods } from "./environments";

export interface MachineRunsDeps {
  db: Db;
  keyring: SecretKeyring;
  terminals: TerminalPods & Required<Pick<TerminalPods, "adopt">>;
  workspaceFor(runId: string): { root: string; ensure(): Promise<void> };
  limits?: PodLimits;
}

interface Session {
  machine: MachineCandidate;
  conn: MachineConnection;
  pod: RemotePod | null;
  /** Set when the connection closed while the run was on the machine (not when Rein closed it). */
  dropped: boolean;
  leaving: boolean;
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

export class MachineRuns {
  private readonly sessions = new Map<string, Session>();

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
  async enter(runId: string, machine: MachineCandidate, onDrop: (runId: string, machine: MachineCandidate) => void): Promise<Entered> {
    const started = performance.now();
    const conn = await openMachine({ db: this.deps.db, keyring: this.deps.keyring }, machine.id);
    const connectMs = performance.now() - started;
    const session: Session = { machine, conn, pod: null, dropped: false, leaving: false };
    conn.onClose(() => {
      if (session.leaving || this.sessions.get(runId) !== session) return;
      session.dropped = true;
      onDrop(runId, machine);
    });
    try {
      const workspace = this.deps.workspaceFor(runId);
      await workspace.ensure();
      // What an earlier connection left (a drop leaves the pod's secret files and start script): gone first.
      await removeRunFolder(conn, runId);
      const push = await pushWorkspace(conn, workspace.root, runId);
      this.sessions.set(runId, session);
      await this.openPod(runId, session);
      return { machine, push, connectMs };
    } catch (err) {
      session.leaving = true;
      this.sessions.delete(runId);
      session.pod?.dispose("it did not start").catch(() => undefined);
      await removeRunFolder(conn, runId).catch(() => undefined);
      conn.close();
      throw err;
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

  /** The machine's workspace copied back into the run's. */
  async pull(runId: string): Promise<SyncReport | null> {
    const s = this.session(runId);
    if (!s || s.conn.isClosed) return null;
    return pullWorkspace(s.conn, this.deps.workspaceFor(runId).root, runId, { confinement: confinementOf(s) });
  }

  /**
   * The run leaves its machine: the workspace comes back (when the connection
   * still stands), the pod stops, the run's folder on the machine goes, the
   * connection closes. `pulled` is null when nothing could be copied back.
   */
  async leave(runId: string): Promise<{ machine: MachineCandidate; pulled: SyncReport | null; problem?: string } | null> {
    const s = this.sessions.get(runId);
    if (!s) return null;
    let pulled: SyncReport | null = null;
    let problem: string | undefined;
    if (!s.conn.isClosed) {
      try {
        pulled = await pullWorkspace(s.conn, this.deps.workspaceFor(runId).root, runId, { confinement: confinementOf(s) });
      } catch (err) {
        problem = `The workspace could not be copied back: ${(err as Error).message}`;
      }
    } else problem = "The connection to the machine had dropped: the workspace is as the last copy back left it";
    s.leaving = true;
    this.sessions.delete(runId);
    if (this.deps.terminals.get(runId) === s.pod) await this.deps.terminals.release(runId).catch(() => undefined);
    await s.pod?.dispose("the run left its machine").catch(() => undefined);
    if (!s.conn.isClosed) await removeRunFolder(s.conn, runId).catch(() => undefined);
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
