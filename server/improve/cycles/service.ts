// Hack cycles (docs/improvements.md#the-hack-cycle): friction starts one;
// ISOLATE gathers the evidence and starts an ordinary run of the built-in
// improver agent; its tools hand proposals and test requests to this service;
// when the run ends the gate runs the trigger cases again on what was stored,
// and DEPLOY hot-loads the tool in one transaction. The improver never touches
// the gate, the records or the telemetry: it only calls the tools below.
import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db";
import { loadActor } from "@/server/identity";
import { IMPROVER_AGENT, createRun, event, type RunServiceDeps, type RunStore } from "@/server/kernel";
import { ToolError } from "@/server/tools";
import { checkRuntimeToolSource } from "../sandbox";
import type { FrictionObservation } from "../friction";
import { signalOnlyBecause } from "../friction";
import { RUNTIME_TOOL_TTL_MS } from "../improvements/states";
import { runCases, type CaseRun } from "../runtime-tools/cases";
import type { LiveRuntimeTools } from "../runtime-tools/live";
import { RuntimeToolProposal, proposalProblems, type TriggerCase } from "../runtime-tools/proposal";
import type { ImproveSettings } from "../settings";
import { CYCLE_ACTIVE, MAX_ATTEMPTS, MAX_DEPLOYS_PER_SESSION, checkCycleTransition, onRestart, type CycleState } from "./states";
import { improverGoal, type CycleEvidence } from "./evidence";

export const IMPROVE_WORKFLOW = "improve";
/** Friction a runtime tool can answer; the others are shown, not cycled on automatically. */

export interface HackCyclesDeps {
  db: Db;
  runs: RunServiceDeps;
  store: RunStore;
  live: LiveRuntimeTools;
  settings(): Promise<ImproveSettings>;
  /** Stops an improver run whose cycle ran out of time. */
  cancelRun(runId: string, reason: string): Promise<unknown>;
  /** Whether a tool name belongs to a built-in tool (a runtime tool may not take it). */
  reserved(name: string): boolean;
  now?: () => Date;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
  /** Told after each deployment: `hotLoadMs` from the gate's pass to the tool being in the registry (bench:improve). */
  onDeployed?(info: { improvementId: string; name: string; hotLoadMs: number }): void;
}

/** The session whose friction starts a cycle. */
export interface SessionRun {
  id: string;
  agentName: string;
  teamId: string | null;
  createdById: string;
  goal: string;
  experimentId?: string | null;
}

type CycleRow = NonNullable<Awaited<ReturnType<Db["hackCycle"]["findUnique"]>>>;

export class HackCycles {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(private readonly deps: HackCyclesDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  /** Starts the time-box sweep. */
  start(intervalMs = 5_000) {
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .then(
          () => undefined,
          (err) => this.deps.log.error("the hack-cycle sweep failed", err),
        )
        .finally(() => (this.ticking = null));
    }, intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** DETECT: friction crossed its threshold in a session. Returns the cycle's id, or null when none starts (and why, logged). */
  async detect(frictionId: string, observation: FrictionObservation, session: SessionRun): Promise<string | null> {
    const { db } = this.deps;
    const settings = await this.deps.settings();
    const skip = (why: string) => {
      this.deps.log.info(`no hack cycle for friction ${frictionId}: ${why}`);
      return null;
    };
    if (!settings.autoStart) return skip("cycles start by hand (Settings → Improvements)");
    // A person's choice (a rejection, a policy rule, a limit, a take-over) is a signal, never a problem to work around.
    const signal = signalOnlyBecause(observation.kind, observation.signature);
    if (signal) return skip(signal);
    const friction = await db.friction.findUnique({ where: { id: frictionId }, select: { state: true, stateReason: true } });
    if (friction?.state === "dismissed") return skip(`a person dismissed it${friction.stateReason ? `: ${friction.stateReason}` : ""}`);
    if (session.agentName === IMPROVER_AGENT) return skip("the improver's own friction is not cycled on");
    if (session.experimentId) return skip("runs of an experiment are measured, not improved while they run");
    if (await db.hackCycle.count({ where: { frictionId, state: { in: [...CYCLE_ACTIVE] } } })) return skip("a cycle for it is under way");
    if ((await db.hackCycle.count({ where: { sessionRunId: session.id, state: "DEPLOY" } })) >= MAX_DEPLOYS_PER_SESSION) {
      return skip(`its session already had ${MAX_DEPLOYS_PER_SESSION} improvements deployed`);
    }
    const since = new Date(this.now().getTime() - 24 * 3600_000);
    if ((await db.hackCycle.count({ where: { agentName: session.agentName, createdAt: { gte: since } } })) >= settings.maxCyclesPerDay) {
      return skip(`${session.agentName} reached its ${settings.maxCyclesPerDay} cycles of the last 24 hours`);
    }
    const cycle = await db.hackCycle.create({
      data: {
        frictionId,
        agentName: session.agentName,
        teamId: session.teamId,
        sessionRunId: session.id,
        state: "DETECT",
        deadlineAt: new Date(this.now().getTime() + settings.timeBoxSec * 1000),
        createdAt: this.now(),
      },
    });
    await db.friction.update({ where: { id: frictionId }, data: { state: "improving" } });
    await this.isolate(cycle, observation, session);
    return cycle.id;
  }

  /** ISOLATE: the evidence, and the improver run that gets it (its id written first, so a restart finds that one run). */
  private async isolate(cycle: CycleRow, observation: FrictionObservation, session: SessionRun): Promise<void> {
    const evidence = await this.gather(observation, session);
    const improverRunId = randomUUID().replace(/-/g, "");
    const moved = await this.move(cycle, "ISOLATE", { evidence: JSON.stringify(evidence), improverRunId });
    if (!moved) return;
    const actor = await loadActor(this.deps.db, session.createdById);
    if (!actor) return void (await this.abandon(moved, "The person whose run showed the friction can no longer launch runs"));
    try {
      await createRun(
        this.deps.runs,
        { goal: improverGoal(evidence), agent: IMPROVER_AGENT, ...(session.teamId ? { teamId: session.teamId } : {}) },
        actor,
        { runId: improverRunId, workflow: IMPROVE_WORKFLOW },
      );
    } catch (err) {
      const written = await this.deps.db.run.findUnique({ where: { id: improverRunId }, select: { id: true } });
      if (!written) return void (await this.abandon(moved, `The improver run could not start: ${(err as Error).message}`));
    }
    await this.record(moved, [
      { from: null, to: "DETECT", reason: observation.title },
      { from: "DETECT", to: "ISOLATE", reason: `${evidence.calls.length} failing call(s) gathered as evidence` },
    ]);
  }

  private async gather(observation: FrictionObservation, session: SessionRun): Promise<CycleEvidence> {
    const wanted = new Set(observation.evidence.map((e) => e.toolCallId).filter(Boolean));
    const calls: CycleEvidence["calls"] = [];
    let after = 0;
    // The session's own log, read through the store (already redacted of secrets).
    for (let page = 0; page < 20 && calls.length < wanted.size; page++) {
      const events = await this.deps.store.listEvents(session.id, after, 500);
      if (!events.length) break;
      after = events[events.length - 1].seq;
      for (const e of events) {
        const p = e.payload as { toolCallId?: string; tool?: string; args?: unknown };
        if (e.type === "tool.call" && p.toolCallId && wanted.has(p.toolCallId)) {
          const ev = observation.evidence.find((x) => x.toolCallId === p.toolCallId);
          calls.push({
            tool: p.tool ?? observation.tool ?? "?",
            args: capJson(p.args, 4000),
            error: ev?.excerpt ?? "",
            runId: session.id,
            toolCallId: p.toolCallId,
            spanId: ev?.spanId,
          });
        }
      }
    }
    return {
      kind: observation.kind,
      title: observation.title,
      tool: observation.tool,
      count: observation.count,
      agent: session.agentName,
      goal: session.goal.slice(0, 2000),
      calls,
    };
  }

  forImproverRun(runId: string) {
    return this.deps.db.hackCycle.findUnique({ where: { improverRunId: runId } });
  }

  /** MODIFY: propose_runtime_tool. Refusals the agent can act on are ToolErrors; a valid proposal is stored as the next version. */
  async propose(
    runId: string,
    raw: unknown,
  ): Promise<{ improvementId: string; name: string; version: number; attempt: number; attemptsLeft: number; next: string }> {
    const cycle = await this.activeCycleOf(runId);
    const parsed = RuntimeToolProposal.safeParse(raw);
    if (!parsed.success)
      throw new ToolError("INVALID_PROPOSAL", parsed.error.issues.map((i) => `${i.path.join(".") || "proposal"}: ${i.message}`).join("; "));
    const p = parsed.data;
    const problems = proposalProblems(p, this.deps.reserved);
    const compile = await checkRuntimeToolSource(p.source);
    if (compile) problems.push(`source: ${compile}`);
    const allowed = (await this.deps.settings()).allowedCapabilities;
    for (const c of p.capabilities)
      if (!allowed.includes(c))
        problems.push(`capability ${c} is not allowed for runtime tools (an admin can allow it in Settings → Improvements)`);
    // A name another team's tool (or everyone's) holds stays theirs: a new version would replace it (docs/security.md#skill-and-tool-names).
    const holder = await this.deps.db.improvement.findFirst({
      where: { kind: "runtime_tool", name: p.name },
      orderBy: { version: "desc" },
      select: { scopeTeams: true },
    });
    if (holder && holder.scopeTeams !== JSON.stringify(cycle.teamId ? [cycle.teamId] : []))
      problems.push(`the name ${p.name} is taken by another team's runtime tool; choose another`);
    if (problems.length) throw new ToolError("INVALID_PROPOSAL", `The proposal was not accepted (no attempt used): ${problems.join("; ")}`);

    // The same proposal again (a retried call) is the one already stored.
    const same = await this.deps.db.improvement.findFirst({
      where: {
        cycleId: cycle.id,
        name: p.name,
        source: p.source,
        argsSchema: JSON.stringify(p.argsSchema),
        cases: JSON.stringify(p.cases),
        state: "proposed",
      },
    });
    if (same)
      return {
        improvementId: same.id,
        name: same.name,
        version: same.version,
        attempt: cycle.attempts,
        attemptsLeft: MAX_ATTEMPTS - cycle.attempts,
        next: "call test_runtime_tool",
      };

    if (cycle.attempts >= MAX_ATTEMPTS) {
      await this.abandon(cycle, `The improver used its ${MAX_ATTEMPTS} attempts`);
      throw new ToolError("ATTEMPTS_USED", `This cycle used its ${MAX_ATTEMPTS} attempts and is abandoned`);
    }
    const moved =
      cycle.state === "MODIFY" ? await this.bumpAttempt(cycle) : await this.move(cycle, "MODIFY", { attempts: cycle.attempts + 1 });
    if (!moved) throw new ToolError("CYCLE_CHANGED", "The hack cycle changed meanwhile (its time box may have run out)");
    // The untested proposal it replaces is not deployed.
    await this.deps.db.improvement.updateMany({
      where: { cycleId: cycle.id, state: "proposed" },
      data: { state: "rejected", stateReason: "Replaced by a later attempt" },
    });
    const latest = await this.deps.db.improvement.findFirst({
      where: { kind: "runtime_tool", name: p.name },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    const row = await this.deps.db.improvement.create({
      data: {
        tier: 1,
        kind: "runtime_tool",
        name: p.name,
        version: (latest?.version ?? 0) + 1,
        state: "proposed",
        description: p.description,
        source: p.source,
        argsSchema: JSON.stringify(p.argsSchema),
        capabilities: JSON.stringify(p.capabilities),
        replayClass: p.replayClass,
        scopeAgents: JSON.stringify([cycle.agentName]),
        scopeTeams: JSON.stringify(cycle.teamId ? [cycle.teamId] : []),
        cases: JSON.stringify(p.cases),
        frictionId: cycle.frictionId,
        cycleId: cycle.id,
        authorRunId: runId,
      },
    });
    await this.deps.db.hackCycle.update({ where: { id: cycle.id }, data: { improvementId: row.id } });
    await this.record(moved, [
      {
        from: cycle.state,
        to: "MODIFY",
        attempt: moved.attempts,
        improvementId: row.id,
        name: row.name,
        reason: `attempt ${moved.attempts} of ${MAX_ATTEMPTS}: ${p.name} v${row.version}`,
      },
    ]);
    return {
      improvementId: row.id,
      name: row.name,
      version: row.version,
      attempt: moved.attempts,
      attemptsLeft: MAX_ATTEMPTS - moved.attempts,
      next: "call test_runtime_tool",
    };
  }

  /** TEST: test_runtime_tool. The harness runs the trigger cases; the agent gets the results. */
  async test(runId: string, name: string): Promise<CaseRun> {
    const cycle = await this.activeCycleOf(runId);
    const row = await this.deps.db.improvement.findFirst({
      where: { cycleId: cycle.id, name, state: "proposed" },
      orderBy: { version: "desc" },
    });
    if (!row)
      throw new ToolError("NOT_PROPOSED", `There is no proposed runtime tool named ${name} in this cycle; call propose_runtime_tool first`);
    const run = await runCases(row.source, JSON.parse(row.cases) as TriggerCase[]);
    await this.deps.db.improvement.update({ where: { id: row.id }, data: { caseResults: JSON.stringify(run) } });
    if (cycle.state === "MODIFY") {
      const moved = await this.move(cycle, "TEST");
      if (moved) await this.record(moved, [{ from: "MODIFY", to: "TEST", improvementId: row.id, name, reason: run.summary }]);
    }
    return run;
  }

  private async activeCycleOf(runId: string): Promise<CycleRow> {
    const cycle = await this.forImproverRun(runId);
    if (!cycle) throw new ToolError("NO_CYCLE", "This tool works only in an improver run that Rein started for a hack cycle");
    if (!["ISOLATE", "MODIFY", "TEST"].includes(cycle.state))
      throw new ToolError("CYCLE_CLOSED", `The hack cycle is ${cycle.state}${cycle.reason ? `: ${cycle.reason}` : ""}`);
    if (cycle.deadlineAt <= this.now()) {
      await this.abandon(cycle, "Its time box ran out");
      throw new ToolError("CYCLE_CLOSED", "The hack cycle's time box ran out");
    }
    return cycle;
  }

  /** The improver run ended: the gate, or the cycle is abandoned with the run's reason. */
  async improverEnded(runId: string): Promise<void> {
    const cycle = await this.forImproverRun(runId);
    if (!cycle || !CYCLE_ACTIVE.includes(cycle.state as CycleState)) return;
    const run = await this.deps.db.run.findUnique({ where: { id: runId }, select: { status: true, statusReason: true } });
    if (run?.status !== "succeeded")
      return void (await this.abandon(
        cycle,
        `The improver run ${run?.status ?? "is gone"}${run?.statusReason ? `: ${run.statusReason}` : ""}`,
      ));
    await this.gate(cycle);
  }

  /** GATE: the trigger cases again, on the stored source, in a fresh sandbox; then DEPLOY or ABANDONED. */
  private async gate(cycle: CycleRow): Promise<void> {
    const { db } = this.deps;
    const row = cycle.improvementId ? await db.improvement.findUnique({ where: { id: cycle.improvementId } }) : null;
    if (!row && cycle.improverRunId) {
      // No runtime tool: a skill the improver proposed is the cycle's answer (its review was its test and gate).
      const skill = await db.improvement.findFirst({
        where: { kind: "skill", authorRunId: cycle.improverRunId },
        orderBy: { createdAt: "desc" },
      });
      if (skill) return this.closeWithSkill(cycle, skill);
    }
    if (!row || row.state !== "proposed") return void (await this.abandon(cycle, "The improver ended without proposing anything"));
    let at = cycle;
    if (at.state === "MODIFY") {
      const moved = await this.move(at, "TEST");
      if (!moved) return;
      await this.record(moved, [
        { from: "MODIFY", to: "TEST", improvementId: row.id, name: row.name, reason: "tested by the gate (the improver did not test it)" },
      ]);
      at = moved;
    }
    const gated = at.state === "GATE" ? at : await this.move(at, "GATE");
    if (!gated) return;
    const results = await runCases(row.source, JSON.parse(row.cases) as TriggerCase[]);
    await db.improvement.update({ where: { id: row.id }, data: { caseResults: JSON.stringify(results) } });
    if (at.state !== "GATE")
      await this.record(gated, [{ from: "TEST", to: "GATE", improvementId: row.id, name: row.name, reason: results.summary }]);
    if (results.failed > 0) {
      await db.improvement.updateMany({
        where: { id: row.id, state: "proposed" },
        data: { state: "rejected", stateReason: `The gate failed: ${results.summary}` },
      });
      return void (await this.abandon(gated, `The gate failed: ${results.summary}`));
    }
    if ((await db.hackCycle.count({ where: { sessionRunId: gated.sessionRunId, state: "DEPLOY" } })) >= MAX_DEPLOYS_PER_SESSION) {
      await db.improvement.updateMany({
        where: { id: row.id, state: "proposed" },
        data: { state: "rejected", stateReason: "Its session already had 2 deployments" },
      });
      return void (await this.abandon(gated, `Its session already had ${MAX_DEPLOYS_PER_SESSION} improvements deployed`));
    }
    await this.deploy(gated, row.id);
  }

  /**
   * A cycle answered with a skill: the skill's own gate (a reviewer of another
   * family and the trigger check) already decided when it was proposed; the
   * cycle records the same path and ends with it.
   */
  private async closeWithSkill(
    cycle: CycleRow,
    skill: { id: string; name: string; version: number; state: string; stateReason: string | null },
  ): Promise<void> {
    let at: CycleRow | null = cycle;
    const moves: Array<{ from: string; to: CycleState; reason: string }> = [];
    const step = async (to: CycleState, reason: string, patch: Partial<CycleRow> = {}) => {
      if (!at) return;
      const from = at.state;
      at = await this.move(at, to, patch as never);
      if (at) moves.push({ from, to, reason });
    };
    if (at.state === "ISOLATE") await step("MODIFY", `skill ${skill.name} v${skill.version} proposed`, { attempts: at.attempts + 1 });
    if (at?.state === "MODIFY") await step("TEST", `reviewed: ${skill.stateReason ?? skill.state}`);
    if (!at) return;
    if (skill.state !== "active") {
      await this.record(
        at,
        moves.map((m) => ({ ...m, improvementId: skill.id, name: skill.name })),
      );
      await this.abandon(at, `The skill's review did not pass: ${skill.stateReason ?? skill.state}`);
      return;
    }
    if (at.state === "TEST") await step("GATE", "the skill's review and trigger check passed");
    if (!at) return;
    const now = this.now();
    const closed = await this.deps.db.hackCycle.updateMany({
      where: { id: at.id, state: "GATE" },
      data: { state: "DEPLOY", improvementId: skill.id, reason: `Skill ${skill.name} v${skill.version} is in the library`, endedAt: now },
    });
    if (closed.count !== 1) return;
    moves.push({ from: "GATE", to: "DEPLOY", reason: `skill ${skill.name} v${skill.version} is in the library` });
    await this.deps.db.friction.updateMany({ where: { id: at.frictionId }, data: { state: "addressed" } });
    await this.deps.db.improvement.updateMany({
      where: { id: skill.id, cycleId: null },
      data: { cycleId: at.id, frictionId: at.frictionId },
    });
    await this.record(
      { ...at, state: "DEPLOY" },
      moves.map((m) => ({ ...m, improvementId: skill.id, name: skill.name })),
    );
  }

  /** DEPLOY, in one transaction: the version goes live, older ones are superseded, the cycle and its friction close. */
  private async deploy(cycle: CycleRow, improvementId: string): Promise<void> {
    const { db } = this.deps;
    const passed = performance.now();
    const now = this.now();
    const author = cycle.improverRunId ? await db.run.findUnique({ where: { id: cycle.improverRunId }, select: { costUsd: true } }) : null;
    const done = await db
      .$transaction(async (tx) => {
        const row = await tx.improvement.findUnique({ where: { id: improvementId }, select: { name: true, kind: true } });
        if (!row) return null;
        const live = await tx.improvement.updateMany({
          where: { id: improvementId, state: "proposed" },
          data: {
            state: "active",
            stateReason: null,
            expiresAt: new Date(now.getTime() + RUNTIME_TOOL_TTL_MS),
            costUsd: author?.costUsd ?? 0,
          },
        });
        const closed = await tx.hackCycle.updateMany({
          where: { id: cycle.id, state: "GATE" },
          data: { state: "DEPLOY", reason: "Every trigger case passed; hot-loaded", endedAt: now },
        });
        if (live.count !== 1 || closed.count !== 1) throw new Error("the cycle or its improvement changed while deploying");
        await tx.improvement.updateMany({
          where: { kind: row.kind, name: row.name, state: "active", id: { not: improvementId } },
          data: { state: "superseded", stateReason: "A newer version went live" },
        });
        await tx.friction.update({ where: { id: cycle.frictionId }, data: { state: "addressed" } });
        return tx.improvement.findUnique({ where: { id: improvementId } });
      })
      .catch((err: Error) => {
        this.deps.log.error(`deploying hack cycle ${cycle.id} failed; nothing was deployed`, err);
        return null;
      });
    if (!done) return void (await this.abandon({ ...cycle }, "Deploying failed; nothing was deployed"));
    try {
      this.deps.live.load(done);
      this.deps.onDeployed?.({ improvementId, name: done.name, hotLoadMs: performance.now() - passed });
    } catch (err) {
      this.deps.log.error(`hot-loading ${done.name} failed`, err);
    }
    await this.record({ ...cycle, state: "DEPLOY" }, [
      {
        from: "GATE",
        to: "DEPLOY",
        improvementId,
        name: done.name,
        reason: `${done.name} v${done.version} is live for ${cycle.agentName}`,
      },
    ]);
    this.deps.log.info(`hack cycle ${cycle.id}: ${done.name} v${done.version} deployed for ${cycle.agentName}`);
  }

  /** ABANDONED, archived with the reason; its improver run is stopped if it still runs. */
  async abandon(cycle: CycleRow, reason: string): Promise<boolean> {
    const from = cycle.state as CycleState;
    if (!CYCLE_ACTIVE.includes(from)) return false;
    const moved = await this.move(cycle, "ABANDONED", { reason, endedAt: this.now() });
    if (!moved) return false;
    await this.deps.db.improvement.updateMany({
      where: { cycleId: cycle.id, state: "proposed" },
      data: { state: "rejected", stateReason: `Its cycle was abandoned: ${reason}` },
    });
    await this.deps.db.friction.updateMany({ where: { id: cycle.frictionId, state: "improving" }, data: { state: "open" } });
    await this.record(moved, [{ from, to: "ABANDONED", reason }]);
    if (cycle.improverRunId) {
      const run = await this.deps.db.run.findUnique({ where: { id: cycle.improverRunId }, select: { status: true } });
      if (run && ["queued", "running", "paused", "waiting_human"].includes(run.status))
        await this.deps.cancelRun(cycle.improverRunId, `Its hack cycle was abandoned: ${reason}`).catch(() => {});
    }
    return true;
  }

  /**
   * The time box: cycles past their deadline are abandoned. Time an improver
   * run spends waiting for a person (a policy that asks before a proposal)
   * does not count: its deadline moves on with a minute of grace.
   */
  async tick(): Promise<number> {
    const overdue = await this.deps.db.hackCycle.findMany({ where: { state: { in: [...CYCLE_ACTIVE] }, deadlineAt: { lt: this.now() } } });
    let n = 0;
    for (const c of overdue) {
      const run = c.improverRunId ? await this.deps.db.run.findUnique({ where: { id: c.improverRunId }, select: { status: true } }) : null;
      if (run?.status === "waiting_human") {
        await this.deps.db.hackCycle.updateMany({
          where: { id: c.id, state: c.state },
          data: { deadlineAt: new Date(this.now().getTime() + 60_000) },
        });
        continue;
      }
      if (await this.abandon(c, `Its time box of ${Math.round((c.deadlineAt.getTime() - c.createdAt.getTime()) / 1000)} s ran out`)) n++;
    }
    return n;
  }

  /** Start-up: every unfinished cycle resumes or is abandoned with a reason (never half-deployed). */
  async recover(): Promise<{ resumed: number; abandoned: number }> {
    const { db } = this.deps;
    const open = await db.hackCycle.findMany({ where: { state: { in: [...CYCLE_ACTIVE] } } });
    let resumed = 0;
    let abandoned = 0;
    for (const cycle of open) {
      const run = cycle.improverRunId ? await db.run.findUnique({ where: { id: cycle.improverRunId }, select: { status: true } }) : null;
      const improverRun = !run
        ? "none"
        : run.status === "succeeded"
          ? "succeeded"
          : ["failed", "canceled"].includes(run.status)
            ? "ended"
            : "active";
      const action = onRestart(cycle.state as CycleState, { now: this.now(), deadlineAt: cycle.deadlineAt, improverRun });
      if (action.kind === "abandon") {
        if (await this.abandon(cycle, action.reason)) abandoned++;
      } else if (action.kind === "gate") {
        await this.gate(cycle);
        resumed++;
      } else if (action.kind === "resume") {
        // DETECT or ISOLATE with no improver run: nothing reached the improver yet; start over from the evidence.
        const friction = await db.friction.findUnique({ where: { id: cycle.frictionId } });
        const session = await db.run.findUnique({
          where: { id: cycle.sessionRunId },
          select: { id: true, agentName: true, teamId: true, createdById: true, goal: true },
        });
        if (!friction || !session) {
          if (await this.abandon(cycle, "Its friction or session is gone")) abandoned++;
          continue;
        }
        const evidence = JSON.parse(cycle.evidence || "{}") as Partial<CycleEvidence>;
        const observation: FrictionObservation = {
          kind: friction.kind as FrictionObservation["kind"],
          signature: friction.signature,
          title: friction.title,
          ...(friction.tool ? { tool: friction.tool } : {}),
          count: evidence.count ?? friction.occurrences,
          evidence: (evidence.calls ?? []).map((c) => ({ runId: c.runId, seq: 0, toolCallId: c.toolCallId, excerpt: c.error })),
        };
        const fresh = cycle.state === "DETECT" ? cycle : await this.rewind(cycle);
        if (fresh) {
          await this.isolate(fresh, observation, session);
          resumed++;
        }
      } else if (action.kind === "wait") {
        resumed++;
      }
    }
    return { resumed, abandoned };
  }

  /** An ISOLATE whose improver run was never written goes back to DETECT to start it again. */
  private async rewind(cycle: CycleRow): Promise<CycleRow | null> {
    const res = await this.deps.db.hackCycle.updateMany({
      where: { id: cycle.id, state: "ISOLATE" },
      data: { state: "DETECT", improverRunId: null },
    });
    return res.count ? { ...cycle, state: "DETECT", improverRunId: null } : null;
  }

  /** A compare-and-set move along the state table. */
  private async move(
    cycle: CycleRow,
    to: CycleState,
    patch: Partial<Pick<CycleRow, "evidence" | "improverRunId" | "attempts" | "reason" | "endedAt">> = {},
  ): Promise<CycleRow | null> {
    checkCycleTransition(cycle.state as CycleState, to, cycle.attempts);
    const res = await this.deps.db.hackCycle.updateMany({
      where: { id: cycle.id, state: cycle.state, attempts: cycle.attempts },
      data: { state: to, ...patch },
    });
    if (res.count !== 1) return null;
    return { ...cycle, state: to, ...patch } as CycleRow;
  }

  private async bumpAttempt(cycle: CycleRow): Promise<CycleRow | null> {
    const res = await this.deps.db.hackCycle.updateMany({
      where: { id: cycle.id, state: "MODIFY", attempts: cycle.attempts },
      data: { attempts: cycle.attempts + 1 },
    });
    return res.count === 1 ? { ...cycle, attempts: cycle.attempts + 1 } : null;
  }

  /** Each transition is an event on the improver run (its timeline and trace show the cycle). */
  private async record(
    cycle: CycleRow,
    moves: Array<{ from: string | null; to: string; reason?: string; attempt?: number; improvementId?: string; name?: string }>,
  ): Promise<void> {
    if (!cycle.improverRunId) return;
    const exists = await this.deps.db.run.findUnique({ where: { id: cycle.improverRunId }, select: { id: true } });
    if (!exists) return;
    await this.deps.store.appendEvents(
      cycle.improverRunId,
      moves.map((m) =>
        event(
          "improve.cycle",
          { cycleId: cycle.id, ...m, ...(m.reason ? { reason: m.reason.slice(0, 1000) } : {}) },
          { actor: "system", key: `cycle:${cycle.id}:${m.from ?? "start"}:${m.to}:${m.attempt ?? cycle.attempts}` },
        ),
      ),
    );
  }
}

function capJson(value: unknown, max: number): unknown {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= max ? value : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
