// Retention, pruning and disk use (docs/operations.md#retention).
import type { Actor } from "@/server/identity";
import { DISK_FULL, diskSpace } from "@/server/kernel";
import { setRunPinned } from "./pins";
import { Pruner, type PrunerDeps, type PassReport } from "./pruner";
import { type RetentionChange, retentionSettings, saveRetentionSettings, type RetentionSettings } from "./settings";
import { lastUsage, measureUsage, saveUsage, type DiskUsage } from "./usage";

export { Pruner, STATE_KEY, type PassReport, type PrunerState } from "./pruner";
export {
  RETENTION_KINDS,
  OTHER_KINDS,
  DEFAULT_RETENTION,
  SETTING_RETENTION,
  RetentionSettings,
  RetentionChange,
  retentionSettings,
  saveRetentionSettings,
  cutoffOf,
  type RetentionKind,
} from "./settings";
export { measureUsage, lastUsage, DB_KINDS, FILE_KINDS, type DiskUsage, type DbKind, type FileKind } from "./usage";
export { setRunPinned } from "./pins";

/** A pass whose state was not saved for this long is one whose process stopped. */
const STALE_MS = 10 * 60_000;
const DAY = 86_400_000;

export interface RetentionStatus {
  settings: RetentionSettings;
  /** The pass under way (in any process), with what it dropped so far. */
  current: PassReport | null;
  lastPass: PassReport | null;
  usage: (Omit<DiskUsage, "byTeam"> & { byTeam: Array<DiskUsage["byTeam"][number] & { teamName: string | null }> }) | null;
  measuring: boolean;
  /** The data directory's file system now, and the runs paused because it was full (docs/operations.md#a-full-disk). */
  disk: { free: number; total: number; pausedRuns: number } | null;
}

/** What Settings › Data, REST and the CLI act through. */
export class Retention {
  readonly pruner: Pruner;
  private measuring: Promise<DiskUsage> | null = null;

  constructor(private readonly deps: PrunerDeps) {
    this.pruner = new Pruner(deps);
  }

  async status(): Promise<RetentionStatus> {
    const [settings, state, usage] = await Promise.all([retentionSettings(this.deps.db), this.pruner.state(), lastUsage(this.deps.db)]);
    const fresh = state.savedAt && Date.now() - new Date(state.savedAt).getTime() < STALE_MS;
    return {
      settings,
      current: fresh ? state.current : null,
      lastPass: state.lastPass,
      usage: usage && { ...usage, byTeam: await this.named(usage.byTeam) },
      measuring: this.measuring !== null,
      disk: await this.disk(),
    };
  }

  private async disk(): Promise<RetentionStatus["disk"]> {
    const space = await diskSpace(this.deps.dataDir).catch(() => null);
    if (!space) return null;
    const pausedRuns = await this.deps.db.run.count({ where: { status: "paused", statusReason: { startsWith: DISK_FULL } } });
    return { ...space, pausedRuns };
  }

  /** Teams are kept by id and shown by name: a renamed team shows its new name. */
  private async named(byTeam: DiskUsage["byTeam"]) {
    const ids = byTeam.flatMap((t) => (t.teamId ? [t.teamId] : []));
    const teams = ids.length ? await this.deps.db.team.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
    const names = new Map(teams.map((t) => [t.id, t.name]));
    return byTeam.map((t) => ({ ...t, teamName: t.teamId ? (names.get(t.teamId) ?? null) : null }));
  }

  async save(change: RetentionChange, actor: { id: string; name: string }): Promise<RetentionSettings> {
    return saveRetentionSettings(this.deps.db, change, actor);
  }

  /** Starts a pass now, in the background; false when one is under way (here or in another process). */
  async pruneNow(): Promise<boolean> {
    if (this.pruner.running) return false;
    const state = await this.pruner.state();
    if (state.current && state.savedAt && Date.now() - new Date(state.savedAt).getTime() < STALE_MS) return false;
    void this.pruner.pass().catch((err) => this.deps.log?.error("retention: the pass failed", err));
    return true;
  }

  /** Measures disk use in the background; false when a measurement is under way. */
  measureNow(): boolean {
    if (this.measuring) return false;
    this.measuring = measureUsage(this.deps)
      .then(async (usage) => {
        await saveUsage(this.deps.db, usage);
        return usage;
      })
      .finally(() => {
        this.measuring = null;
      });
    this.measuring.catch((err) => this.deps.log?.error("measuring disk use failed", err));
    return true;
  }

  /** The measurement under way, once done (its failure thrown), or the last one. */
  async measured(): Promise<DiskUsage | null> {
    return this.measuring ? await this.measuring : lastUsage(this.deps.db);
  }

  setPinned(runId: string, pinned: boolean, actor: Actor) {
    return setRunPinned({ db: this.deps.db }, runId, pinned, actor);
  }

  /** Pruning every hour; disk use measured after a pass when the last measurement is a day old. */
  start(firstAfterMs?: number): void {
    this.pruner.start(firstAfterMs);
    const daily = setInterval(() => {
      void lastUsage(this.deps.db).then((u) => {
        if (!u || Date.now() - new Date(u.measuredAt).getTime() > DAY) this.measureNow();
      });
    }, 3600_000);
    daily.unref();
    this.daily = daily;
  }
  private daily: NodeJS.Timeout | null = null;

  async stop(): Promise<void> {
    if (this.daily) clearInterval(this.daily);
    await this.pruner.stop();
    await this.measuring?.catch(() => {});
  }
}
