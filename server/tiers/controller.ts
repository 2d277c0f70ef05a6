// The tier controller (docs/desktops-and-tiers.md#moving-up-upgrade_tier): each
// run's tier as it changes, the upgrade_tier tool's decisions and migrations,
// the desktop a run on T2 gets, and the way down again (idle, run end). The
// decisions themselves are the pure state machine's (machine.ts); this file
// gathers its facts and acts.
import type { Db } from "@/server/db";
import { event, type NewRunEvent, type RunRecord, type RunStore, type SpecSource } from "@/server/kernel";
import {
  ToolError,
  Workspace,
  type ConsentAnswer,
  type ConsentQuestion,
  type DesktopAccess,
  type TierAccess,
  type TierRequest,
  type ToolContext,
  type ToolReviewer,
} from "@/server/tools";
import { joinWorkspace, type DesktopProvider, type TerminalPods } from "./environments";
import { complexityOf, decideUpgrade, estimatedCostUsd, tierLabel } from "./machine";
import { lostSummary, noDesktopReason, upgradeSummary } from "./summary";
import { defaultTierSettings, readTierSettings } from "./settings";
import { NOT_BUILT, TIER_IDS, tierRank, type TierId, type TierSettings } from "./types";
import { formatCost } from "@/lib/format";

export interface TierControllerDeps {
  db: Db;
  runs: Pick<RunStore, "appendEvents">;
  specs: SpecSource;
  /** The run's and its team's budgets (server/limits Budgets.covers). */
  budgets: { covers(runId: string, usd: number, what: string): Promise<{ ok: boolean; reason?: string }> };
  /** The settings before an admin saves any (pool sizes from the environment). */
  defaults?: TierSettings;
  terminals?: TerminalPods;
  desktops?: DesktopProvider;
  workspaceFor(runId: string): Workspace;
  /** Rein's own origin on loopback: browser tools open paths ("/demo-site/form") on it. */
  selfUrl?: string;
  now?: () => number;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

export interface UpgradeOutput {
  tier: TierId;
  from: string;
  durationMs: number;
  fromPool?: boolean;
  /** Joins the conversation as a user message before the agent's next turn (the kernel adds it). */
  summary: string;
}

interface RunTier {
  tier: string;
  /** Last browser use (T2), for the idle downgrade. */
  lastUse: number;
  /** The upgrade that brought the run here: a replayed call gets the same answer. */
  upgrade?: { toolCallId: string; output: UpgradeOutput };
  /** Why the run last left a tier on its own (idle), for the browser tools' refusal. */
  left?: string;
  /** A person has taken over the desktop: it is in use, whatever the agent does. */
  held?: boolean;
  /** The agent was told its desktop is gone; told again only after it had a new one. */
  toldLost?: boolean;
}

/** T0: no workspace and no sandbox; every file tool refuses, saying so. */
class SandboxlessWorkspace extends Workspace {
  private refuse(): never {
    throw new ToolError("NO_SANDBOX", `${NO_SANDBOX}: it has no workspace. Call upgrade_tier with tier "T1" for files and a shell.`);
  }
  protected override async ask<T>(): Promise<T> {
    this.refuse();
  }
  override async run(): ReturnType<Workspace["run"]> {
    this.refuse();
  }
  override spawn(): ReturnType<Workspace["spawn"]> {
    this.refuse();
  }
  override async ensure(): Promise<void> {}
}
const NO_SANDBOX = "The run is on T0 (gateway): model calls and stateless tools only";

export class TierController implements TierAccess {
  private readonly runs = new Map<string, RunTier>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: TierControllerDeps) {
    deps.desktops?.onReleased((runId) => {
      // A desktop that ended on its own (a crash) is started again on next use; the run stays on T2.
      const state = this.runs.get(runId);
      if (state && tierRank(state.tier) >= 2) state.lastUse = this.now();
    });
  }

  private now() {
    return this.deps.now?.() ?? Date.now();
  }

  get defaults(): TierSettings {
    return this.deps.defaults ?? defaultTierSettings();
  }

  /** The settings in force, read for each decision so a saved change applies at once. */
  async settings(): Promise<TierSettings> {
    return (await readTierSettings(this.deps.db, this.defaults)).settings;
  }

  /** The run's tier now (it moves on upgrade and idle downgrade within one execution). */
  tierOf(run: Pick<RunRecord, "id" | "tier">): string {
    return this.runs.get(run.id)?.tier ?? run.tier ?? "T1";
  }

  private remember(runId: string, tier: string): RunTier {
    const state = this.runs.get(runId) ?? { tier, lastUse: this.now() };
    state.tier = tier;
    this.runs.set(runId, state);
    return state;
  }

  /** Why this server cannot provide the tier now, or null. */
  unavailable(tier: TierId): string | null {
    if (NOT_BUILT[tier]) return NOT_BUILT[tier]!;
    if (tier === "T1") return this.deps.terminals ? this.deps.terminals.unavailable() : "this server runs no terminal pods";
    if (tier === "T2") return this.deps.desktops ? this.deps.desktops.unavailable() : "this server runs no desktops";
    return null;
  }

  availability(): Record<TierId, string | null> {
    return Object.fromEntries(TIER_IDS.map((t) => [t, this.unavailable(t)])) as Record<TierId, string | null>;
  }

  /** Warm pools follow the settings: a tier that is off keeps none. */
  applyPoolSizes(settings: TierSettings): void {
    this.deps.terminals?.setSize?.(settings.T1.enabled ? settings.T1.poolSize : 0);
    this.deps.desktops?.setSize(settings.T2.enabled ? settings.T2.poolSize : 0);
  }

  /** The parts of a tool call's context that depend on the run's tier. */
  toolContext(run: RunRecord, toolCallId: string): Partial<ToolContext> {
    const tier = this.tierOf(run);
    const ctx: Partial<ToolContext> = { tier, tiers: this, toolCallId, desktop: this.desktopFor(run.id, tier) };
    if (tier === "T0") {
      ctx.workspace = new SandboxlessWorkspace(this.deps.workspaceFor(run.id).root);
      ctx.terminal = { unavailable: `${NO_SANDBOX}; there is no shell. Call upgrade_tier with tier "T1" to get one.` };
    }
    return ctx;
  }

  private desktopFor(runId: string, tier: string): ToolContext["desktop"] {
    if (tierRank(tier) < 2) return { unavailable: noDesktopReason(tier, this.runs.get(runId)?.left) };
    const { desktops } = this.deps;
    const why = this.unavailable("T2");
    if (!desktops || why) return { unavailable: `T2 (desktop) is not available on this server: ${why}` };
    const workspaceDir = this.deps.workspaceFor(runId).root;
    const access: DesktopAccess & { baseUrl?: string } = {
      baseUrl: this.deps.selfUrl,
      page: async () => {
        this.remember(runId, tier).lastUse = this.now();
        const desktop = desktops.get(runId) ?? (await this.restore(runId, tier));
        const page = await desktop.page();
        await joinWorkspace(page, this.deps.workspaceFor(runId), desktop.downloads);
        return page;
      },
    };
    return access;
  }

  /** A run on T2 without a desktop (a restart, a crash): a fresh one, recorded. */
  private async restore(runId: string, tier: string) {
    const started = this.now();
    const { desktop, fromPool } = await this.deps.desktops!.attach(runId);
    this.remember(runId, tier).toldLost = false;
    await this.deps.runs.appendEvents(runId, [
      event("tier.restored", {
        tier,
        reason: "The run's desktop was gone (a restart or a crash): a fresh one, with no browser state",
        durationMs: this.now() - started,
        fromPool,
        desktopId: desktop.id,
      }),
    ]);
    return desktop;
  }

  /**
   * Before the run's first turn of this execution: a run on T2 whose desktop is
   * gone (the server restarted, or the desktop stopped while the run waited)
   * is told so, once, with the event.
   */
  async notice(run: RunRecord): Promise<{ text: string; events: NewRunEvent[] } | null> {
    const tier = this.tierOf(run);
    if (tierRank(tier) < 2 || !this.deps.desktops || this.deps.desktops.get(run.id)) return null;
    const known = this.runs.get(run.id);
    if (known?.toldLost) return null;
    const restarted = !known;
    this.remember(run.id, tier).toldLost = true;
    const cause = restarted ? "The server restarted" : "The run's desktop stopped";
    const reason = `${cause}: the desktop's browser state is gone; a fresh desktop starts on the next browser tool call`;
    return { text: lostSummary(tier, this.deps.workspaceFor(run.id).root, cause), events: [event("tier.lost", { tier, reason })] };
  }

  private async facts(request: TierRequest, consent: ConsentAnswer | null) {
    const { db } = this.deps;
    const row = await db.run.findUnique({
      where: { id: request.runId },
      select: { tier: true, complexity: true, agentName: true, agentVersion: true },
    });
    if (!row) throw new ToolError("NOT_FOUND", `Run ${request.runId} was not found`);
    const spec = await this.deps.specs.get(row.agentName, row.agentVersion);
    const settings = await this.settings();
    const from = this.tierOf({ id: request.runId, tier: row.tier });
    const to = request.tier as TierId;
    const setting = settings[to];
    const estimate = estimatedCostUsd(setting);
    const minutes = setting.idleTimeoutMin ?? 60;
    const budget =
      estimate > 0 ? await this.deps.budgets.covers(request.runId, estimate, `${tierLabel(to)} for ${minutes} min`) : { ok: true };
    const facts = {
      from,
      to,
      settings,
      unavailable: this.unavailable(to),
      complexity: complexityOf(row.complexity, spec?.guardrails),
      budget: budget.ok ? ({ ok: true } as const) : ({ ok: false, reason: budget.reason ?? "A budget would be exceeded" } as const),
      consent,
    };
    return { facts, from, agent: spec?.name ?? row.agentName };
  }

  private async requested(request: TierRequest, from: string, agent: string) {
    await this.deps.runs.appendEvents(request.runId, [
      event(
        "tier.requested",
        { from, to: request.tier, reason: request.reason, toolCallId: request.toolCallId },
        { actor: `agent:${agent}`, key: `tier-requested:${request.toolCallId}` },
      ),
    ]);
  }

  async consentNeeded(request: TierRequest): Promise<ConsentQuestion | null> {
    const { facts, from, agent } = await this.facts(request, null);
    await this.requested(request, from, agent);
    const decision = decideUpgrade(facts);
    if (decision.kind !== "needs_consent") return null;
    const setting = facts.settings[facts.to];
    const estimate = estimatedCostUsd(setting);
    return {
      title: `Let ${agent} move to ${tierLabel(facts.to)}?`,
      detail:
        `The agent asks: ${request.reason}\n\n` +
        `${tierLabel(facts.to)} gives it a desktop with Chromium it drives on its own (watch or take over in the run's Desktop tab). ` +
        `Estimated cost: ${formatCost(estimate)} (${setting.costPerHourUsd} USD an hour, for at least ${setting.idleTimeoutMin ?? 60} min). ` +
        `Approve to move the run; reject and the agent is told it may not.`,
      requiredRole: decision.role,
      rule: `Settings › Tiers: entering ${facts.to} needs the consent of an ${decision.role}`,
    };
  }

  async upgrade(request: TierRequest & { consent?: ConsentAnswer }): Promise<UpgradeOutput> {
    const state = this.runs.get(request.runId);
    // The same call again (resume after a crash between its result and the checkpoint): the same answer.
    if (state?.upgrade && state.upgrade.toolCallId === request.toolCallId && state.tier === request.tier) return state.upgrade.output;
    // The same after a restart: the move is in the event log, keyed by the call.
    const replayed = await this.movedBy(request);
    if (replayed) return replayed;
    const { facts, from, agent } = await this.facts(request, request.consent ?? null);
    await this.requested(request, from, agent);
    let decision = decideUpgrade(facts);
    if (decision.kind === "needs_consent") {
      decision = {
        kind: "refused",
        code: "CONSENT_REQUIRED",
        message: `Entering ${tierLabel(facts.to)} needs the consent of an ${decision.role}, and nobody can be asked on this server`,
      };
    }
    if (decision.kind === "refused") return this.refuse(request, from, decision.code, decision.message, decision.reviewer);
    return this.migrate(request, from, facts.to, agent);
  }

  /** The answer this call got before the server stopped, if it moved the run and the run is still there. */
  private async movedBy(request: TierRequest): Promise<UpgradeOutput | null> {
    if (!request.toolCallId) return null;
    const [moved, run] = await Promise.all([
      this.deps.db.runEvent.findUnique({
        where: { runId_key: { runId: request.runId, key: `tier-changed:${request.toolCallId}` } },
        select: { payload: true },
      }),
      this.deps.db.run.findUnique({ where: { id: request.runId }, select: { tier: true, stepCount: true } }),
    ]);
    if (!moved || !run) return null;
    const p = JSON.parse(moved.payload) as { from: string; to: TierId; durationMs: number; fromPool?: boolean };
    if (p.to !== request.tier || run.tier !== p.to) return null;
    const workspaceDir = this.deps.workspaceFor(request.runId).root;
    return {
      tier: p.to,
      from: p.from,
      durationMs: p.durationMs,
      ...(p.fromPool === undefined ? {} : { fromPool: p.fromPool }),
      summary: upgradeSummary({ from: p.from, to: p.to, durationMs: p.durationMs, workspaceDir, priorSteps: run.stepCount }),
    };
  }

  private async refuse(request: TierRequest, from: string, code: string, message: string, reviewer?: ToolReviewer): Promise<never> {
    await this.deps.runs.appendEvents(request.runId, [
      event(
        "tier.refused",
        { from, to: request.tier, code, message, toolCallId: request.toolCallId },
        { key: `tier-refused:${request.toolCallId}` },
      ),
    ]);
    throw new ToolError(code, message, undefined, reviewer);
  }

  /** Provision the target, join it to the workspace, check it is live, then record the move. */
  private async migrate(request: TierRequest, from: string, to: TierId, agent: string): Promise<UpgradeOutput> {
    const { runId } = request;
    const started = this.now();
    const workspace = this.deps.workspaceFor(runId);
    let fromPool: boolean | undefined;
    let desktopId: string | undefined;
    try {
      await workspace.ensure();
      if (from === "T0" && this.deps.terminals && !this.deps.terminals.get(runId)) {
        const attached = await this.deps.terminals.attach(runId, workspace.root);
        ({ fromPool } = attached);
        const { pod, startMs } = attached;
        await this.deps.runs.appendEvents(runId, [
          event("terminal.attached", { podId: pod.id, sandbox: pod.sandbox, fromPool, startMs: Math.round(startMs * 10) / 10 }),
        ]);
      }
      if (to === "T2") {
        const attached = await this.deps.desktops!.attach(runId);
        ({ fromPool } = attached);
        desktopId = attached.desktop.id;
        await joinWorkspace(await attached.desktop.page(), workspace, attached.desktop.downloads);
        // Probed in full when it started or by the pool a moment ago: the light check, unless that was a while back.
        await attached.desktop.check();
      }
    } catch (err) {
      if (to === "T2") await this.deps.desktops?.release(runId, "it did not start").catch(() => {});
      return this.refuse(request, from, "TIER_UNAVAILABLE", `${tierLabel(to)} could not be provided: ${(err as Error).message}`);
    }
    const durationMs = Math.round(this.now() - started);
    const priorSteps = await this.deps.db.run.update({ where: { id: runId }, data: { tier: to }, select: { stepCount: true } });
    const output: UpgradeOutput = {
      tier: to,
      from,
      durationMs,
      ...(fromPool === undefined ? {} : { fromPool }),
      summary: upgradeSummary({ from, to, durationMs, workspaceDir: workspace.root, priorSteps: priorSteps.stepCount }),
    };
    const state = this.remember(runId, to);
    state.lastUse = this.now();
    state.left = undefined;
    state.toldLost = false;
    state.upgrade = { toolCallId: request.toolCallId, output };
    await this.deps.runs.appendEvents(runId, [
      event(
        "tier.changed",
        {
          from,
          to,
          reason: request.reason,
          trigger: "upgrade",
          durationMs,
          ...(fromPool === undefined ? {} : { fromPool }),
          ...(desktopId ? { desktopId } : {}),
          toolCallId: request.toolCallId,
        },
        { actor: `agent:${agent}`, key: `tier-changed:${request.toolCallId}` },
      ),
    ]);
    return output;
  }

  /** Down to T1: the desktop goes; recorded with why. */
  private async leave(runId: string, from: string, trigger: "idle" | "run_end", reason: string): Promise<void> {
    const started = this.now();
    await this.deps.desktops?.release(runId, reason.toLowerCase());
    await this.deps.db.run.updateMany({ where: { id: runId, tier: from }, data: { tier: "T1" } });
    const state = this.remember(runId, "T1");
    state.left = reason;
    state.upgrade = undefined;
    await this.deps.runs.appendEvents(runId, [
      event("tier.changed", { from, to: "T1", reason, trigger, durationMs: Math.round(this.now() - started) }),
    ]);
  }

  /** The run ended: its desktop goes, and a run left on T2 is put back on T1. */
  async runEnded(runId: string, outcome: string): Promise<void> {
    const row = await this.deps.db.run.findUnique({ where: { id: runId }, select: { tier: true } });
    const tier = this.runs.get(runId)?.tier ?? row?.tier ?? "T1";
    if (tierRank(tier) >= 2) await this.leave(runId, tier, "run_end", `The run ended (${outcome})`);
    else await this.deps.desktops?.release(runId, "the run ended");
    this.runs.delete(runId);
  }

  /** A person took over the run's desktop (held) or handed it back: neither counts as idle. */
  personControl(runId: string, held: boolean): void {
    const state = this.runs.get(runId);
    if (!state) return;
    state.held = held;
    state.lastUse = this.now();
  }

  /** One pass of the idle downgrade: a desktop with no browser tool call for the tier's idle timeout goes. */
  async tick(): Promise<number> {
    const settings = await this.settings();
    const idleMin = settings.T2.idleTimeoutMin;
    if (idleMin === null || !this.deps.desktops) return 0;
    let n = 0;
    for (const [runId, state] of this.runs) {
      if (state.tier !== "T2" || state.held || !this.deps.desktops.get(runId)) continue;
      if (this.now() - state.lastUse < idleMin * 60_000) continue;
      await this.leave(runId, "T2", "idle", `No browser tool call for ${idleMin} min: the desktop was released`);
      n++;
    }
    return n;
  }

  /** Runs the idle downgrade every `intervalMs`. */
  start(intervalMs = 15_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick().catch((err) => this.deps.log.error("the tier idle check failed", err)), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
