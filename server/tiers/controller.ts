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
import { MachineBoundWorkspace, syncFigures, type Entered, type MachineRuns } from "./remote";
import type { MachineCandidate } from "@/server/machines";
import { machineTerminal, type MachineTerminalHost } from "./remote-terminal";
import { DeviceWorkspace, deviceTerminal, type DeviceCandidate, type DeviceRuns, type DeviceTerminalHost } from "./device";
import { complexityOf, decideUpgrade, estimatedCostUsd, tierLabel } from "./machine";
import { lostSummary, noDesktopReason, reconnectedSummary, upgradeSummary } from "./summary";
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
  /** T3: runs on registered remote machines; absent: T3 is not available here. */
  remote?: MachineRuns;
  /** T4: runs on people's devices; absent: T4 is not available here. */
  devices?: DeviceRuns;
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
  /** When the run entered its tier (T3's and T4's cost on leaving). */
  since?: number;
  /** T3: the run's machine; `lost` says why its connection is gone, and the run pauses with it. */
  machine?: { id: string; name: string; lost?: string };
  /** T4: the run's device; `lost` says why it is gone, and the run pauses with it. */
  device?: { id: string; name: string; lost?: string };
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

export class TierController implements TierAccess, MachineTerminalHost, DeviceTerminalHost {
  private readonly runs = new Map<string, RunTier>();
  /** Retries of dropped machine connections in flight, by run. */
  private readonly regains = new Map<string, Promise<boolean>>();
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
    if (tier === "T3") {
      if (!this.deps.remote) return "this server runs no remote machines";
      return this.deps.terminals?.adopt ? null : "this server runs no terminal pods";
    }
    if (tier === "T4") {
      if (!this.deps.devices) return "this server has no device connections";
      return this.deps.terminals?.adopt ? null : "this server runs no terminal pods";
    }
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
    const devices = this.deps.devices;
    const device = tier === "T4" ? devices?.session(run.id)?.device : undefined;
    if (devices && device) {
      ctx.terminal = deviceTerminal(this, devices, run.id);
      ctx.workspace = new DeviceWorkspace(this.deps.workspaceFor(run.id), devices.hub, device.id);
    }
    if (tier === "T3" && this.deps.remote) {
      const remote = this.deps.remote;
      ctx.terminal = machineTerminal(this, remote, run.id, toolCallId);
      ctx.workspace = new MachineBoundWorkspace(this.deps.workspaceFor(run.id), () => remote.changedHere(run.id));
    }
    return ctx;
  }

  private desktopFor(runId: string, tier: string): ToolContext["desktop"] {
    if (tierRank(tier) < 2) return { unavailable: noDesktopReason(tier, this.runs.get(runId)?.left) };
    if (tier === "T3") return { unavailable: "The run is on T3 (remote machine): it has a shell on the machine and no desktop" };
    if (tier === "T4") return { unavailable: "The run is on T4 (a person's device): it has the device's folder and shell, and no desktop" };
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
    if (tier === "T3" && this.deps.remote) return this.reconnect(run);
    if (tier === "T4" && this.deps.devices) return this.reopenDevice(run);
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
      select: { tier: true, complexity: true, agentName: true, agentVersion: true, teamId: true, team: { select: { name: true } } },
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
    let machine: MachineCandidate | undefined;
    let device: DeviceCandidate | undefined;
    if (to === "T4" && this.deps.devices && !facts.unavailable) {
      const launcher = await db.run.findUnique({
        where: { id: request.runId },
        select: { createdById: true, createdBy: { select: { name: true, email: true } } },
      });
      const team = { id: row.teamId, name: row.team?.name ?? "(no team)" };
      const who = launcher?.createdBy?.name || launcher?.createdBy?.email || "the person who launched the run";
      const choice = await this.deps.devices.choose(launcher?.createdById ?? null, team, who);
      if (choice.ok) device = choice.device;
      Object.assign(facts, { device: choice.ok ? { ok: true, name: choice.device.name } : choice });
    }
    if (to === "T3" && this.deps.remote && !facts.unavailable) {
      const team = { id: row.teamId, name: row.team?.name ?? "(no team)" };
      const choice = await this.deps.remote.choose(request.runId, team, machineLabels(spec?.guardrails));
      if (choice.ok) machine = choice.machine;
      Object.assign(facts, { machine: choice.ok ? { ok: true, name: choice.machine.name } : choice });
    }
    return { facts, from, agent: spec?.name ?? row.agentName, machine, device };
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
    const { facts, from, agent, machine, device } = await this.facts(request, null);
    await this.requested(request, from, agent);
    const decision = decideUpgrade(facts);
    if (decision.kind !== "needs_consent") return null;
    const setting = facts.settings[facts.to];
    const estimate = estimatedCostUsd(setting);
    const offer =
      facts.to === "T3"
        ? `${tierLabel(facts.to)} runs its shell on the machine ${machine?.name ?? "(none)"} over SSH: the run's workspace is copied there, and back after each command (watch or take over in the run's Terminal tab). `
        : facts.to === "T4"
          ? `${tierLabel(facts.to)} works in the folder its owner chose on the device ${device?.name ?? "(none)"}${device?.commands ? ", with its terminal" : ", without commands"}; the owner is asked on the device too. `
          : `${tierLabel(facts.to)} gives it a desktop with Chromium it drives on its own (watch or take over in the run's Desktop tab). `;
    const where = facts.to === "T3" ? machine?.name : facts.to === "T4" ? device?.name : undefined;
    return {
      title: where ? `Let ${agent} move to ${tierLabel(facts.to)} on ${where}?` : `Let ${agent} move to ${tierLabel(facts.to)}?`,
      detail:
        `The agent asks: ${request.reason}\n\n` +
        offer +
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
    const { facts, from, agent, machine, device } = await this.facts(request, request.consent ?? null);
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
    return this.migrate(request, from, facts.to, agent, machine, device);
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
  private async migrate(
    request: TierRequest,
    from: string,
    to: TierId,
    agent: string,
    machine?: MachineCandidate,
    device?: DeviceCandidate,
  ): Promise<UpgradeOutput> {
    const { runId } = request;
    const started = this.now();
    const workspace = this.deps.workspaceFor(runId);
    let fromPool: boolean | undefined;
    let desktopId: string | undefined;
    let entered: Entered | undefined;
    try {
      await workspace.ensure();
      if (to === "T3") {
        if (!machine || !this.deps.remote) throw new Error("no machine was chosen");
        // A desktop does not come along to the machine.
        await this.deps.desktops?.release(runId, "the run moved to a remote machine");
        entered = await this.deps.remote.enter(runId, machine, (id) => void this.regain(id));
      }
      if (to === "T4") {
        if (!device || !this.deps.devices) throw new Error("no device was chosen");
        const answer = await this.ownerConsent(runId, agent, device);
        if (!answer.granted)
          return this.refuse(
            request,
            from,
            "DEVICE_REFUSED",
            `The owner of ${device.name} did not let the run use it (asked on the device)`,
          );
        await this.deps.desktops?.release(runId, "the run moved to a person's device");
        await this.deps.devices.enter(runId, device);
      }
      if (from === "T0" && to !== "T3" && to !== "T4" && this.deps.terminals && !this.deps.terminals.get(runId)) {
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
      if (err instanceof ToolError) throw err;
      if (to === "T2") await this.deps.desktops?.release(runId, "it did not start").catch(() => {});
      if (to === "T4") await this.deps.devices?.leave(runId).catch(() => null);
      return this.refuse(request, from, "TIER_UNAVAILABLE", `${tierLabel(to)} could not be provided: ${(err as Error).message}`);
    }
    const durationMs = Math.round(this.now() - started);
    const priorSteps = await this.deps.db.run.update({ where: { id: runId }, data: { tier: to }, select: { stepCount: true } });
    const output: UpgradeOutput = {
      tier: to,
      from,
      durationMs,
      ...(fromPool === undefined ? {} : { fromPool }),
      summary: upgradeSummary({
        from,
        to,
        durationMs,
        workspaceDir: workspace.root,
        priorSteps: priorSteps.stepCount,
        ...(entered ? { machine: entered.machine.name } : {}),
        ...(device ? { device: device.name } : {}),
      }),
    };
    const state = this.remember(runId, to);
    state.lastUse = this.now();
    state.since = this.now();
    state.machine = entered ? { id: entered.machine.id, name: entered.machine.name } : undefined;
    state.device = to === "T4" && device ? { id: device.id, name: device.name } : undefined;
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
          ...(entered
            ? {
                machineId: entered.machine.id,
                machineName: entered.machine.name,
                sync: { direction: "push" as const, ...syncFigures(entered.push) },
              }
            : {}),
          ...(to === "T4" && device ? { deviceId: device.id, deviceName: device.name } : {}),
          toolCallId: request.toolCallId,
        },
        { actor: `agent:${agent}`, key: `tier-changed:${request.toolCallId}` },
      ),
    ]);
    return output;
  }

  /** Down to T1: the desktop goes, or the machine (its workspace copied back first); recorded with why and, for T3, what it cost. */
  private async leave(runId: string, from: string, trigger: "idle" | "run_end", reason: string): Promise<void> {
    const started = this.now();
    const before = this.runs.get(runId);
    await this.deps.desktops?.release(runId, reason.toLowerCase());
    const left = from === "T3" ? await this.deps.remote?.leave(runId) : null;
    const leftDevice = from === "T4" ? await this.deps.devices?.leave(runId) : null;
    await this.deps.db.run.updateMany({ where: { id: runId, tier: from }, data: { tier: "T1" } });
    let costUsd: number | undefined;
    // A machine's or a device's time, at its tier's hourly price (Settings › Tiers).
    if ((from === "T3" || from === "T4") && before?.since !== undefined) {
      const hours = (this.now() - before.since) / 3_600_000;
      costUsd = Math.round(hours * (await this.settings())[from].costPerHourUsd * 1e6) / 1e6;
    }
    const state = this.remember(runId, "T1");
    state.left = left?.problem ? `${reason}; ${left.problem}` : reason;
    state.upgrade = undefined;
    state.machine = undefined;
    state.device = undefined;
    state.since = this.now();
    await this.deps.runs.appendEvents(runId, [
      event("tier.changed", {
        from,
        to: "T1",
        reason: state.left,
        trigger,
        durationMs: Math.round(this.now() - started),
        ...(left ? { machineId: left.machine.id, machineName: left.machine.name } : {}),
        ...(leftDevice ? { deviceId: leftDevice.id, deviceName: leftDevice.name } : {}),
        ...(left?.pulled ? { sync: { direction: "pull" as const, ...syncFigures(left.pulled) } } : {}),
        ...(costUsd === undefined ? {} : { costUsd }),
      }),
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

  /**
   * One pass of the idle downgrade: a desktop with no browser tool call for
   * T2's idle timeout goes; a machine with no shell command for T3's is left.
   */
  async tick(): Promise<number> {
    const settings = await this.settings();
    let n = 0;
    for (const [runId, state] of this.runs) {
      const idleMin = state.tier === "T2" || state.tier === "T3" || state.tier === "T4" ? settings[state.tier].idleTimeoutMin : null;
      if (idleMin === null || state.held || this.now() - state.lastUse < idleMin * 60_000) continue;
      if (state.tier === "T2" && this.deps.desktops?.get(runId)) {
        await this.leave(runId, "T2", "idle", `No browser tool call for ${idleMin} min: the desktop was released`);
        n++;
      } else if (state.tier === "T3" && this.deps.remote?.session(runId)) {
        await this.leave(
          runId,
          "T3",
          "idle",
          `No shell command for ${idleMin} min: the run left the machine ${state.machine?.name ?? ""}`.trim(),
        );
        n++;
      } else if (state.tier === "T4" && this.deps.devices?.session(runId)) {
        await this.leave(
          runId,
          "T4",
          "idle",
          `No command or file tool for ${idleMin} min: the run left the device ${state.device?.name ?? ""}`.trim(),
        );
        n++;
      }
    }
    return n;
  }

  /** A run on T3 paused: what the machine's workspace holds is copied back, so Files shows it (the pod stays for take over). */
  async runPaused(runId: string): Promise<void> {
    if (this.runs.get(runId)?.tier !== "T3" || !this.deps.remote) return;
    const pulled = await this.deps.remote.pull(runId).catch(() => null);
    if (pulled) await this.synced(runId, "", syncFigures(pulled));
  }

  /** Why the run must pause before its next step (its machine's connection dropped), or null. */
  held(runId: string): string | null {
    const state = this.runs.get(runId);
    return state?.machine?.lost ?? state?.device?.lost ?? null;
  }

  deviceLost(runId: string, reason: string): void {
    const device = this.runs.get(runId)?.device;
    if (device && !device.lost) device.lost = `${reason}; it goes on there when a person resumes it and the device is online`;
  }

  /** The owner's consent on the device for this run (or the auto-consent they set for its team). */
  private async ownerConsent(runId: string, agent: string, device: DeviceCandidate) {
    const row = await this.deps.db.run.findUnique({
      where: { id: runId },
      select: { goal: true, teamId: true, team: { select: { name: true } }, createdBy: { select: { name: true, email: true } } },
    });
    return this.deps.devices!.consent(device, {
      runId,
      agent,
      goal: (row?.goal ?? "").slice(0, 500),
      team: { id: row?.teamId ?? "", name: row?.team?.name ?? "(no team)" },
      requester: row?.createdBy?.name || row?.createdBy?.email || "a person",
    });
  }

  /**
   * Before the first turn of an execution of a run on T4: its device's
   * terminal is there, or opened again (the server restarted, the device
   * came back); when the device is offline the run pauses again, saying why.
   */
  private async reopenDevice(run: Pick<RunRecord, "id" | "tier">): Promise<{ text: string; events: NewRunEvent[] } | null> {
    const devices = this.deps.devices!;
    const state = this.remember(run.id, "T4");
    const known = devices.session(run.id);
    if (known && devices.hub.isOnline(known.device.id)) {
      if (state.device) state.device.lost = undefined;
      return null;
    }
    const last = await this.deps.db.runEvent.findFirst({
      where: { runId: run.id, type: "tier.changed" },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    const deviceId = last ? (JSON.parse(last.payload) as { deviceId?: unknown }).deviceId : undefined;
    const row =
      typeof deviceId === "string"
        ? await this.deps.db.device.findFirst({
            where: { id: deviceId, revokedAt: null },
            select: { id: true, name: true, ownerId: true, capabilities: true },
          })
        : null;
    const name = row?.name ?? state.device?.name ?? "of this run";
    if (!row || !devices.hub.isOnline(row.id)) {
      const lost = row ? `The device ${name} is offline` : `The device of this run was revoked or removed`;
      state.device = { id: row?.id ?? "", name, lost: `${lost}; it goes on there when a person resumes it and the device is online` };
      return { text: `[Rein] ${lost}. The run paused before your next turn.`, events: [event("tier.lost", { tier: "T4", reason: lost })] };
    }
    const caps = JSON.parse(row.capabilities || "{}") as { commands?: unknown; confined?: unknown };
    const device = {
      id: row.id,
      name: row.name,
      ownerId: row.ownerId,
      commands: caps.commands === "any",
      confined: caps.confined === true,
    };
    await devices.enter(run.id, device);
    state.device = { id: device.id, name: device.name };
    state.lastUse = this.now();
    state.since ??= this.now();
    return {
      text: `[Rein] You are on T4, the device ${device.name}: a new terminal was opened there; the files in its folder are as they were.`,
      events: [
        event("tier.restored", {
          tier: "T4",
          reason: `The device ${device.name} is online: a new terminal there`,
          durationMs: 0,
          fromPool: false,
          deviceId: device.id,
          deviceName: device.name,
        }),
      ],
    };
  }

  touched(runId: string): void {
    const state = this.runs.get(runId);
    if (state) state.lastUse = this.now();
  }

  machineName(runId: string): string {
    return this.runs.get(runId)?.machine?.name ?? "of this run";
  }

  /**
   * The run's connection dropped: Rein reconnects to the machine within the
   * grace period (REIN_MACHINE_GRACE_SEC) and the run goes on; when it cannot,
   * the run pauses before its next step with the reason. Whoever notices the
   * drop first (the connection's close, a command) starts it; the others wait
   * for the same outcome. True when the run has its connection again.
   */
  regain(runId: string): Promise<boolean> {
    let pending = this.regains.get(runId);
    if (!pending) {
      pending = this.tryRegain(runId).finally(() => this.regains.delete(runId));
      this.regains.set(runId, pending);
    }
    return pending;
  }

  private async tryRegain(runId: string): Promise<boolean> {
    const remote = this.deps.remote;
    const state = this.runs.get(runId);
    if (!remote || state?.tier !== "T3") return false;
    const name = state.machine?.name ?? "of this run";
    const back = await remote.regain(runId);
    // The run left its machine meanwhile (it ended, a person canceled it): nothing to record.
    if (this.runs.get(runId)?.tier !== "T3") return false;
    if (back.ok) {
      if (back.attempts === 0) return true;
      state.lastUse = this.now();
      const seconds = Math.round(back.ms / 100) / 10;
      const copy = back.pulled
        ? "copied the machine's workspace back and to the machine again"
        : "could not bring the machine's copy of the workspace back (the workspace is as the last copy back left it, with the file tools' changes since) and copied it to the machine again";
      await this.deps.runs.appendEvents(runId, [
        event("tier.restored", {
          tier: "T3",
          reason: `The connection to the machine ${name} dropped: Rein reconnected after ${seconds} s (${back.attempts} ${back.attempts === 1 ? "try" : "tries"}) and ${copy}`,
          durationMs: back.ms,
          fromPool: false,
          machineId: back.machine.id,
          machineName: back.machine.name,
        }),
      ]);
      if (back.pulled) await this.synced(runId, "", syncFigures(back.pulled));
      return true;
    }
    if (!back.machine) return false;
    const seconds = Math.round(back.ms / 1000);
    const reason = `The connection to the machine ${name} dropped and Rein could not reconnect within ${seconds} s (${back.reason})`;
    this.machineLost(runId, reason);
    await this.deps.runs.appendEvents(runId, [event("tier.lost", { tier: "T3", reason })]);
    return false;
  }

  machineLost(runId: string, reason: string): void {
    const machine = this.runs.get(runId)?.machine;
    if (machine && !machine.lost) machine.lost = `${reason}; it resumes on the machine when a person resumes it`;
  }

  async synced(
    runId: string,
    toolCallId: string,
    figures: ReturnType<typeof syncFigures>,
    direction: "push" | "pull" = "pull",
  ): Promise<void> {
    await this.deps.runs.appendEvents(runId, [
      event("tier.synced", { tier: "T3", ...(toolCallId ? { toolCallId } : {}), direction, ...figures }),
    ]);
  }

  /**
   * Before the first turn of an execution of a run on T3: its machine's
   * connection is there (the workspace copied back, in case a person worked
   * in the terminal), or it is made again, the workspace pushed, a new pod
   * started, and the agent told. When that fails the run pauses again, saying why.
   */
  private async reconnect(run: Pick<RunRecord, "id" | "tier">): Promise<{ text: string; events: NewRunEvent[] } | null> {
    const remote = this.deps.remote!;
    const state = this.remember(run.id, "T3");
    if (remote.session(run.id) && !remote.dropped(run.id)) {
      await this.runPaused(run.id);
      return null;
    }
    remote.forget(run.id);
    const started = this.now();
    const cause = state.machine?.lost ?? "The server restarted";
    const row = await this.deps.db.run.findUnique({
      where: { id: run.id },
      select: { teamId: true, team: { select: { name: true } }, agentName: true, agentVersion: true },
    });
    const spec = row ? await this.deps.specs.get(row.agentName, row.agentVersion) : undefined;
    const team = { id: row?.teamId ?? null, name: row?.team?.name ?? "(no team)" };
    const previous = state.machine?.id ?? (await this.lastMachine(run.id));
    try {
      const choice = await remote.choose(run.id, team, machineLabels(spec?.guardrails), previous);
      if (!choice.ok) throw new Error(choice.reason);
      // The same machine: its copy of the workspace may be newer (a command cut off by the drop), so it comes back first.
      const entered = await remote.enter(run.id, choice.machine, (id) => void this.regain(id), {
        pullFirst: choice.machine.id === previous,
      });
      state.machine = { id: entered.machine.id, name: entered.machine.name };
      state.lastUse = this.now();
      state.since ??= this.now();
      const reason = `${cause}: Rein reconnected to ${entered.machine.name} and copied the workspace there again`;
      return {
        text: reconnectedSummary(entered.machine.name, cause),
        events: [
          event("tier.restored", {
            tier: "T3",
            reason,
            durationMs: Math.round(this.now() - started),
            fromPool: false,
            machineId: entered.machine.id,
            machineName: entered.machine.name,
          }),
        ],
      };
    } catch (err) {
      const name = state.machine?.name ?? "of this run";
      state.machine = { id: previous ?? "", name, lost: `Rein could not reconnect to the machine ${name}: ${(err as Error).message}` };
      const lost = state.machine.lost!;
      return { text: `[Rein] ${lost}. The run paused before your next turn.`, events: [event("tier.lost", { tier: "T3", reason: lost })] };
    }
  }

  /** The machine the run was last moved to (after a restart nothing else remembers it). */
  private async lastMachine(runId: string): Promise<string | undefined> {
    const moved = await this.deps.db.runEvent.findFirst({
      where: { runId, type: { in: ["tier.changed", "tier.restored"] } },
      orderBy: { seq: "desc" },
      select: { payload: true },
    });
    const id = moved ? (JSON.parse(moved.payload) as { machineId?: unknown }).machineId : undefined;
    return typeof id === "string" ? id : undefined;
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

/** The labels an agent's machines should have (guardrails.machineLabels in its spec), at most 8. */
function machineLabels(guardrails: Record<string, unknown> | undefined): string[] {
  const raw = guardrails?.machineLabels;
  return Array.isArray(raw) ? raw.filter((l): l is string => typeof l === "string" && l.length <= 32).slice(0, 8) : [];
}
