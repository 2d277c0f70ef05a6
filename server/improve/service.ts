// Self-improvement wired into a running Rein (docs/improvements.md): the friction
// miner reads every committed event (built into the harness, out of any
// agent's reach), friction past its threshold starts a hack cycle, deployed
// runtime tools are offered to the runs in their scope, and a trusted tool is
// proposed for promotion to an approver. Installed extensions (tier 2) offer
// their tools to every agent and observe run events through their hooks.
import type { Db } from "@/server/db";
import { DEFAULT_LADDER, createRequest, type HitlBroker, type RequestChange, type TtlLadder } from "@/server/hitl";
import { recordAudit } from "@/server/audit";
import { event, isTerminal, type Kernel, type RunEventRecord, type RunExtensions, type RunState } from "@/server/kernel";
import { RunFrictionMiner, type FrictionObservation } from "./friction";
import { recordFriction } from "./friction/store";
import { HackCycles, type SessionRun } from "./cycles/service";
import { improverTools } from "./improver-tools";
import { trustScore } from "./improvements/states";
import { LIVE_SELECT, LiveRuntimeTools } from "./runtime-tools/live";
import { improveSettings } from "./settings";
import { SkillLibrary, loadSkillTool, proposeSkillTool } from "./skills";
import { ChangeRequests, type ChangeDeps } from "./changes/service";
import { ExtensionRegistry } from "./extensions/registry";
import { HookDispatcher } from "./extensions/hooks";
import { extensionFromRuntimeTool } from "./extensions/promote";
import { recordedUses } from "./extensions/uses";
import { proposeExtensionTool } from "./extensions/tool";

export interface ImproveDeps {
  db: Db;
  kernel: Kernel;
  /** Inbox live updates for the promotion requests this service opens. */
  onRequestCreated?: (change: RequestChange) => void;
  ladder?: TtlLadder;
  now?: () => Date;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
  /** Change requests to repositories (tier 4) need the broker (their approvals) and the data directory (worktrees). */
  changes?: { broker: HitlBroker; dataDir: string; runningCheckout?: string; checks?: ChangeDeps["checks"] };
}

interface Watched {
  miner: RunFrictionMiner;
  run: SessionRun;
}

const MAX_HISTORY_EVENTS = 5_000;

export class Improve {
  readonly live: LiveRuntimeTools;
  readonly cycles: HackCycles;
  readonly skills: SkillLibrary;
  readonly extensionRegistry: ExtensionRegistry;
  readonly hooks: HookDispatcher;
  readonly changes: ChangeRequests | null;
  private readonly watched = new Map<string, Promise<Watched | null>>();
  private readonly queues = new Map<string, Promise<void>>();
  private unsubscribe: (() => void) | null = null;
  private threshold = 3;

  constructor(private readonly deps: ImproveDeps) {
    const { db, kernel, log } = deps;
    this.live = new LiveRuntimeTools({
      db,
      registry: kernel.deps.registry,
      allowedCapabilities: async () => (await improveSettings(db)).allowedCapabilities as never,
      promotionDue: (id) => this.askPromotion(id),
      now: deps.now,
      log,
    });
    this.cycles = new HackCycles({
      db,
      runs: kernel,
      store: kernel.store,
      live: this.live,
      settings: () => improveSettings(db),
      cancelRun: (runId, reason) => kernel.pool.cancel(runId, { id: "system", name: `Rein (${reason})` }),
      reserved: (name) => !!kernel.deps.registry.get(name) && !this.live.isLive(name),
      now: deps.now,
      log,
    });
    this.extensionRegistry = new ExtensionRegistry({
      db,
      registry: kernel.deps.registry,
      allowedCapabilities: async () => (await improveSettings(db)).allowedCapabilities as never,
      requireApproval: async () => (await improveSettings(db)).extensionsRequireApproval,
      reserved: (name) => !!kernel.deps.registry.get(name) && !this.live.isLive(name),
      // A promoted runtime tool's extension takes its name over.
      yieldName: (name) => this.live.unload(name),
      onRequestCreated: deps.onRequestCreated,
      ladder: deps.ladder,
      now: deps.now,
      log,
    });
    this.hooks = new HookDispatcher({
      listening: (type) => this.extensionRegistry.listening(type),
      append: (runId, events) => kernel.store.appendEvents(runId, events),
      log,
    });
    // The improver's tools talk to this service (a second one, after a restart in tests, takes them over).
    // Skills (tier 3): load_skill for runs with a skill in scope, propose_skill for the improver.
    // An installed extension's skills join the library's (a library skill of the same name in a run's scope wins).
    this.skills = new SkillLibrary({ db, events: kernel.store, log, extensionSkills: () => this.extensionRegistry.skills() });
    const skillTools = [loadSkillTool(this.skills), proposeSkillTool(this.skills, { db, router: kernel.deps.router, now: deps.now })];
    this.changes = deps.changes
      ? new ChangeRequests({
          db,
          kernel,
          ...deps.changes,
          onRequestCreated: deps.onRequestCreated,
          ladder: deps.ladder,
          now: deps.now,
          log,
        })
      : null;
    const changeTools = this.changes ? [this.changes.tool()] : [];
    for (const tool of [...improverTools(this.cycles), ...skillTools, ...changeTools, proposeExtensionTool(this.extensionRegistry)]) {
      kernel.deps.registry.unregister(tool.name);
      kernel.deps.registry.register(tool);
    }
  }

  /** The service with its change requests, as the server builds it: `changes` is null only where no broker was given. */
  static withChanges(deps: ImproveDeps & { changes: NonNullable<ImproveDeps["changes"]> }): Improve & { readonly changes: ChangeRequests } {
    return new Improve(deps) as Improve & { readonly changes: ChangeRequests };
  }

  /** What the kernel asks at every turn: the runtime tools in the run's scope, and its skills (scoped by the agent acting now). */
  extensions(): RunExtensions {
    return {
      toolsFor: (run, spec) => [
        ...this.live.toolsFor({ agentName: spec.name, teamId: run.teamId }),
        ...this.extensionRegistry.toolNames(),
        ...this.skills.toolsFor({ agentName: spec.name, teamId: run.teamId }),
      ],
      promptFor: (run, spec) => this.skills.promptFor({ id: run.id, agentName: spec.name, teamId: run.teamId }),
    };
  }

  async start(
    options: { sweepMs?: number } = {},
  ): Promise<{ tools: number; extensions: number; cycles: { resumed: number; abandoned: number }; changes: number }> {
    this.threshold = (await improveSettings(this.deps.db)).repeatThreshold;
    this.deps.kernel.deps.extensions = this.extensions();
    const tools = await this.live.start();
    const extensions = await this.extensionRegistry.start();
    await this.skills.refresh();
    this.unsubscribe = this.deps.kernel.bus.onAny((runId, events) => {
      this.enqueue(runId, events);
      this.hooks.observe(runId, events);
    });
    const cycles = await this.cycles.recover();
    this.cycles.start(options.sweepMs);
    const changes = (await this.changes?.recover()) ?? 0;
    return { tools, extensions, cycles, changes };
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.cycles.stop();
    this.live.stop();
    await this.changes?.idle();
    await Promise.allSettled([...this.queues.values()]);
    await this.hooks.stop();
    this.extensionRegistry.stop();
  }

  /** Events of one run are handled in order, one batch after another. */
  private enqueue(runId: string, events: RunEventRecord[]) {
    const previous = this.queues.get(runId) ?? Promise.resolve();
    const next = previous
      .then(() => this.onEvents(runId, events))
      .catch((err) => this.deps.log.error(`friction mining of run ${runId} failed`, err))
      .finally(() => {
        if (this.queues.get(runId) === next) this.queues.delete(runId);
      });
    this.queues.set(runId, next);
  }

  /** Settles once every batch published so far is handled (tests, benchmarks). */
  async idle(): Promise<void> {
    do {
      while (this.queues.size) await Promise.allSettled([...this.queues.values()]);
      await this.hooks.idle();
    } while (this.queues.size);
  }

  private async onEvents(runId: string, events: RunEventRecord[]): Promise<void> {
    const watched = await this.watch(runId, events[0]?.seq ?? 1);
    if (!watched) return;
    const observations = watched.miner.observe(events);
    for (const o of observations) await this.onFriction(o, watched.run);
    const ended = events.find((e) => e.type === "run.state" && isTerminal((e.payload as { to: RunState }).to));
    if (ended) {
      this.watched.delete(runId);
      await this.cycles.improverEnded(runId);
      await this.changes?.runEnded(runId);
    }
  }

  /** The run's miner; a run first seen mid-way (after a restart) is read from its start. */
  private watch(runId: string, firstSeq: number): Promise<Watched | null> {
    let w = this.watched.get(runId);
    if (!w) {
      w = (async () => {
        const run = await this.deps.db.run.findUnique({
          where: { id: runId },
          select: { id: true, agentName: true, teamId: true, createdById: true, goal: true, experimentId: true },
        });
        if (!run) return null;
        const miner = new RunFrictionMiner(runId, { repeatThreshold: this.threshold });
        if (firstSeq > 1) {
          const earlier = await this.deps.kernel.store.listEvents(runId, 0, Math.min(firstSeq - 1, MAX_HISTORY_EVENTS));
          miner.observe(earlier.filter((e) => e.seq < firstSeq));
        }
        return { miner, run };
      })();
      this.watched.set(runId, w);
    }
    return w;
  }

  private async onFriction(o: FrictionObservation, run: SessionRun): Promise<void> {
    const recorded = await recordFriction(this.deps.db, o, run, this.deps.now?.());
    const cycleId = await this.cycles.detect(recorded.id, o, run);
    await this.deps.kernel.store.appendEvents(run.id, [
      event(
        "friction.recorded",
        {
          frictionId: recorded.id,
          kind: o.kind,
          title: o.title,
          count: o.count,
          ...(o.tool ? { tool: o.tool } : {}),
          ...(cycleId ? { cycleId } : {}),
        },
        { actor: "system", key: `friction:${recorded.id}:${o.count}` },
      ),
    ]);
  }

  /** A runtime tool crossed the promotion threshold: an approve request to approvers (docs/improvements.md#states-trust-and-promotion). */
  async askPromotion(improvementId: string): Promise<void> {
    const { db } = this.deps;
    const asked = await db.improvement.updateMany({
      where: { id: improvementId, promotionAskedAt: null, promoted: false },
      data: { promotionAskedAt: this.deps.now?.() ?? new Date() },
    });
    if (asked.count !== 1) return;
    const row = await db.improvement.findUniqueOrThrow({ where: { id: improvementId } });
    const author = row.authorRunId
      ? await db.run.findUnique({ where: { id: row.authorRunId }, select: { id: true, teamId: true, createdById: true } })
      : null;
    if (!author) return;
    const trust = trustScore(row.uses, row.successes);
    const { row: request, created } = await createRequest(
      db,
      {
        runId: author.id,
        nodeId: `promote:${row.id}`,
        checkpointId: "",
        slot: "promote",
        kind: "approve",
        title: `Keep the runtime tool ${row.name} for good?`,
        detail: `${row.name} v${row.version} has a trust score of ${trust.toFixed(2)} after ${row.uses} uses (${row.successes} succeeded). Approving promotes it: it no longer expires after 7 days.`,
        payload: {
          tool: "promote_runtime_tool",
          args: { improvementId: row.id, name: row.name, version: row.version },
          rule: "trust above 0.8 after 10 uses",
        },
        requiredRole: "approver",
        teamId: author.teamId,
        requestedById: author.createdById,
        ttlSec: 7 * 24 * 3600,
      },
      this.deps.ladder ?? DEFAULT_LADDER,
      this.deps.now?.() ?? new Date(),
    );
    if (created) this.deps.onRequestCreated?.({ requestId: request.id, runId: author.id, state: request.state, teamId: request.teamId });
  }

  /** A person decided a promotion request (approved ones are promoted) or a change request's approval (approved ones merge). */
  async onRequestChange(change: RequestChange): Promise<void> {
    await this.extensionRegistry.onRequestChange(change);
    await this.changes?.onRequestChange(change);
    if (change.state !== "APPROVED") return;
    const request = await this.deps.db.humanRequest.findUnique({
      where: { id: change.requestId },
      select: { slot: true, payload: true, decidedById: true },
    });
    if (request?.slot !== "promote") return;
    const id = (JSON.parse(request.payload) as { args?: { improvementId?: string } }).args?.improvementId;
    if (!id) return;
    const who = request.decidedById
      ? await this.deps.db.user.findUnique({ where: { id: request.decidedById }, select: { id: true, name: true } })
      : null;
    await this.promote(id, { id: who?.id ?? "system", name: who?.name ?? "Rein" }, "inbox");
  }

  /** A person turned a runtime tool back on: it is hot-loaded again. */
  async reload(improvementId: string): Promise<void> {
    const row = await this.deps.db.improvement.findUnique({ where: { id: improvementId }, select: LIVE_SELECT });
    if (row) this.live.load(row);
  }

  /**
   * Promoted: no TTL any more. An approval that comes after the tool expired
   * brings it back (unless a newer version is live meanwhile).
   */
  async promote(improvementId: string, by: { id: string; name: string }, channel: string): Promise<boolean> {
    const { db } = this.deps;
    const row0 = await db.improvement.findUnique({ where: { id: improvementId }, select: { name: true, state: true } });
    if (!row0) return false;
    const revive =
      row0.state === "expired" && !(await db.improvement.count({ where: { kind: "runtime_tool", name: row0.name, state: "active" } }));
    const res = await db.improvement.updateMany({
      where: { id: improvementId, kind: "runtime_tool", state: revive ? "expired" : "active", promoted: false },
      data: { promoted: true, expiresAt: null, ...(revive ? { state: "active", stateReason: "Promoted after it had expired" } : {}) },
    });
    if (res.count !== 1) return false;
    if (revive) await this.reload(improvementId);
    else this.live.keep(improvementId);
    const row = await db.improvement.findUniqueOrThrow({ where: { id: improvementId }, select: { name: true, version: true } });
    await recordAudit(db, {
      kind: "improvement.promoted",
      actorId: by.id,
      actorName: by.name,
      channel,
      subject: `${row.name} v${row.version}`,
      detail: { improvementId },
    });
    await this.proposeAsExtension(improvementId, by, channel).catch((err) =>
      this.deps.log.error(`runtime tool ${row.name}: proposing it as an extension failed`, err),
    );
    return true;
  }

  /** A promoted runtime tool is written as an extension, tested from its trigger cases and recorded uses, through the registry's gate. */
  async proposeAsExtension(improvementId: string, by: { id: string; name: string }, channel: string) {
    const { db, kernel } = this.deps;
    const row = await db.improvement.findUniqueOrThrow({
      where: { id: improvementId },
      select: {
        name: true,
        version: true,
        description: true,
        source: true,
        argsSchema: true,
        capabilities: true,
        replayClass: true,
        cases: true,
        authorRunId: true,
      },
    });
    const pkg = extensionFromRuntimeTool(row, await recordedUses(db, kernel.store, improvementId));
    return this.extensionRegistry.propose(pkg, { authorRunId: row.authorRunId ?? undefined, by, channel });
  }
}
