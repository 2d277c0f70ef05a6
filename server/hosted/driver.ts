// A run of a hosted agent (docs/hosted-agents.md): the kernel hands the run
// to this driver instead of taking model steps itself. It starts the agent's
// program in the run's sandbox, binds the run to the model gateway, opens or
// reloads the agent's session and prompts it with the goal and, later, with
// people's messages. It returns to the kernel when the agent's turn ends (the
// run is done) or when the run is asked to pause, cancel or stop; the kernel
// then ends or parks the run as it does its own.
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import {
  event,
  RunFailure,
  type AgentSpec,
  type KernelDeps,
  type NewRunEvent,
  type RunControl,
  type RunRecord,
  type StoredCheckpoint,
} from "@/server/kernel";
import { reviewerStopReason, type CheckpointState, type ReviewerStop, type Task } from "@/server/kernel";
import type { CallGate, GateCall, ToolContext, ToolDefinition } from "@/server/tools";
import type { Db } from "@/server/db";
import { personMessage } from "@/server/models";
import { AcpHost, AgentExitedError, type HostAction, type HostIO } from "./acp-host";
import { hostedProgram, type HostedProgram } from "./programs";
import { runFolders, startAgentProcess } from "./sandbox";
import { listenRelay } from "./relay";
import { jailMode } from "@/server/compute";

/** A run as the model gateway serves it (server/gateway). */
export interface GatewayRun {
  runId: string;
  teamId: string | null;
  agent: string;
  model: string;
  taskClass: AgentSpec["taskClass"];
  scenario?: RunRecord["scenario"];
  maxCalls: number;
  nextStep(): number;
  signal: AbortSignal;
}

/** The model gateway as the driver uses it (server/gateway). */
export interface RunGateway {
  bind(run: GatewayRun): { token: string; unbind(): void };
  listen(socketPath: string): Promise<{ close(): Promise<void> }>;
}

export interface HostedDeps {
  gateway: RunGateway;
  /** The policy and its human requests (server/hitl HumanGate). Absent: every permission is refused. */
  gate?: CallGate;
  /** Where a human request's state is read while the agent waits for it. */
  db?: Db;
  /** Cancels a human request nobody needs any more (the agent's process ended while it waited); server/hitl HitlBroker.cancel. */
  cancelRequest?(requestId: string, reason: string): Promise<unknown>;
  /** Wakes a waiting permission as soon as a request changes in this process (others are polled). */
  requestChanges?: { on(listener: (change: { requestId: string }) => void): () => void };
  /** Rein's data folder: a run's agent keeps its home (sessions) under hosted/<run id>. */
  dataDir: string;
  log: { info(m: string): void; error(m: string, e?: unknown): void };
}

/** How long a canceled turn has to end before its process is stopped. */
const CANCEL_GRACE_MS = 5_000;
const CONTROL_POLL_MS = 200;
const REQUEST_POLL_MS = 500;
/** Text of a tool call's arguments or output kept in the event log. */
const EVENT_TEXT_CHARS = 16_000;
/** Timeline events an agent's updates may cause in one run; past it they are dropped (docs/hosted-agents.md#what-rein-answers). */
export const MAX_UPDATE_EVENTS = 5_000;
/** Commands let through and not yet run, remembered at most. */
const MAX_ALLOWED = 64;
/** Decisions an agent may have waiting at once; one is taken at a time. */
const MAX_QUEUED_DECISIONS = 8;
/** Tool calls of one process the timeline keeps track of. */
const MAX_CALLS = 10_000;

export class HostedRuns {
  constructor(private readonly deps: HostedDeps) {}

  /** The kernel's entry: runs the agent until its turn ends or the run is asked to stop; see docs/hosted-agents.md#runs. */
  async step(
    run: RunRecord,
    spec: AgentSpec,
    cp: StoredCheckpoint,
    k: KernelDeps,
    control: RunControl,
  ): Promise<{ cp: StoredCheckpoint; pause?: string }> {
    const programId = spec.hosted?.program ?? "";
    const program = hostedProgram(programId);
    if (!program) throw new RunFailure("HOSTED_AGENT_UNKNOWN", `The hosted agent program "${programId}" is not known to this server`);
    const installed = program.install();
    if ("missing" in installed)
      throw new RunFailure("HOSTED_AGENT_MISSING", `${program.name} cannot start on this server: ${installed.missing}`);

    const hosted = cp.state.hosted ?? {};
    // Rein restarted under a turn of an agent that cannot reload its session: a person decides (docs/hosted-agents.md#restarts).
    if (
      hosted.sessionId &&
      hosted.turnOpen &&
      (control.recovered || control.takeover) &&
      !hosted.restartSeen &&
      !(await this.canLoadKnown(hosted))
    ) {
      const state: CheckpointState = { ...cp.state, hosted: { ...hosted, restartSeen: true } };
      const next = await k.store.commitStep(run.id, { events: [], checkpoint: state, seq: cp.seq + 1 });
      return {
        cp: next,
        pause: `Rein restarted while ${program.name} was working, and ${program.name} cannot reload its session. The workspace and the timeline hold what it did so far. Resume to start it again on the goal, told what happened; cancel to stop here.`,
      };
    }
    // A third-party program runs only confined (docs/hosted-agents.md#the-sandbox), whatever REIN_SANDBOX allows Rein's own tools.
    if (jailMode().kind !== "bubblewrap")
      throw new RunFailure(
        "SANDBOX_UNAVAILABLE",
        `${program.name} runs only in the sandbox, and bubblewrap is not available on this server`,
      );
    const session = new HostedSession(this.deps, program, run, spec, cp, k, control);
    const stepped = await session.go();
    // Only an ended turn or a person's request ends a step; anything else would start the agent again and again.
    const asked = control.cancelRequested() || control.pauseRequested() || control.stopping() || control.leaseLost?.();
    if (!stepped.cp.state.done && !asked)
      throw new RunFailure("HOSTED_AGENT_ERROR", `${program.name} ended its turn in a way Rein does not know; the run stops here`);
    return stepped;
  }

  private async canLoadKnown(hosted: NonNullable<CheckpointState["hosted"]>): Promise<boolean> {
    return hosted.canLoad === true;
  }
}

type Hosted = NonNullable<CheckpointState["hosted"]>;

class HostedSession {
  private cp: StoredCheckpoint;
  private step: number;
  private tasks: Task[];
  private readonly abort = new AbortController();
  /** Tool calls by id; `awaited`: announced before its input, and not on the timeline yet. */
  private readonly calls = new Map<string, { tool: string; started: number; title: string; awaited?: boolean }>();
  /** Commands a person or the policy let through in this process (the agent asked, then runs it): not asked twice. */
  private readonly allowed = new Map<string, number>();
  private host: AcpHost | null = null;
  private updateEvents = 0;
  /** Decisions are taken one at a time: one person is asked at a time (docs/hosted-agents.md#permissions). */
  private decisions: Promise<unknown> = Promise.resolve();
  private queuedDecisions = 0;
  /** The last action a person refused, and the model step it was refused at. */
  private refused: (ReviewerStop & { step: number }) | null = null;
  /** Human requests this process opened and still waits for; canceled when it ends. */
  private readonly open = new Set<string>();
  private execChain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: HostedDeps,
    private readonly program: HostedProgram,
    private readonly run: RunRecord,
    private readonly spec: AgentSpec,
    cp: StoredCheckpoint,
    private readonly k: KernelDeps,
    private readonly control: RunControl,
  ) {
    this.cp = cp;
    this.step = cp.state.step;
    this.tasks = cp.state.tasks;
    this.updateEvents = cp.state.hosted?.recorded ?? 0;
  }

  private get hosted(): Hosted {
    return this.cp.state.hosted ?? {};
  }

  async go(): Promise<{ cp: StoredCheckpoint; pause?: string }> {
    const { run, spec, k } = this;
    const workspace = k.workspaceFor(run.id);
    const runDir = path.join(this.deps.dataDir, "hosted", run.id);
    const folders = runFolders(runDir);
    // The steps an earlier process took are in the event log even when its last checkpoint is older (a restart mid-turn).
    const turns = await k.store.eventsOfType(run.id, "model.turn", 0);
    this.step = Math.max(this.step, ...turns.map((e) => Number((e.payload as { step?: unknown }).step) || 0));
    const binding = this.deps.gateway.bind({
      runId: run.id,
      teamId: run.teamId,
      agent: spec.name,
      model: run.model || spec.model,
      taskClass: spec.taskClass,
      scenario: run.scenario,
      // The gateway counts the calls of this process; the run's earlier ones are already spent.
      maxCalls: Math.max(0, run.maxSteps - this.step),
      nextStep: () => ++this.step,
      signal: this.abort.signal,
    });
    const listener = await this.deps.gateway.listen(folders.socket);
    let relay: { close(): Promise<void> } | null = null;
    try {
      // A program that runs its commands itself has them run at the pod's prompt, through the relay, when there is a pod.
      if (this.program.relaysShell && this.io().exec)
        relay = await listenRelay(folders.relaySocket, (command, signal) => {
          if (!this.host) throw new Error("The agent is not connected");
          return this.host.relay(command, signal);
        });
      const child = startAgentProcess({
        program: this.program,
        workspaceDir: workspace.root,
        runDir,
        gatewaySocket: folders.socket,
        gateway: { token: binding.token, model: "rein" },
        ...(relay ? { relaySocket: folders.relaySocket } : {}),
      });
      this.host = new AcpHost(child, this.io(), this.deps.log);
      return await this.converse(this.host);
    } catch (err) {
      if (err instanceof AgentExitedError) throw new RunFailure("HOSTED_AGENT_EXITED", err.message);
      throw err;
    } finally {
      this.abort.abort(new Error("the hosted agent's turn ended"));
      await this.host?.close().catch(() => {});
      binding.unbind();
      await listener.close().catch(() => {});
      await relay?.close().catch(() => {});
      for (const id of this.open)
        await this.deps.cancelRequest?.(id, "The agent that asked stopped before anyone answered").catch(() => {});
    }
  }

  private async converse(host: AcpHost): Promise<{ cp: StoredCheckpoint }> {
    const { run, k } = this;
    const info = await host.initialize(this.control.signal);
    const agentName = info.agentInfo?.title ?? info.agentInfo?.name ?? this.program.name;
    let prompt: string;
    const hosted = this.hosted;
    const messages = await this.unreadMessages();
    if (hosted.sessionId && host.canLoad) {
      await host.loadSession(hosted.sessionId, this.control.signal);
      prompt =
        messages.text ??
        (hosted.turnOpen ? "Rein restarted while you were working on this task. Continue it where you stopped." : "Continue the task.");
      await this.commit({ ...hosted, canLoad: true }, [], messages.cursor);
    } else {
      const sessionId = await host.newSession(this.control.signal);
      const first = !hosted.sessionId && !hosted.prompted;
      prompt = first
        ? this.goalPrompt()
        : `${this.goalPrompt()}\n\nAn earlier session of yours on this goal ended (${hosted.turnOpen ? "Rein restarted during it" : "it was paused or ended"}). The workspace holds what was done so far; check it before you go on.${messages.text ? `\n\n${messages.text}` : ""}`;
      await this.commit({ sessionId, canLoad: host.canLoad, prompted: true }, [], messages.cursor);
      k.log.info(`run ${run.id}: ${agentName} started session ${sessionId.slice(0, 80)}`);
    }

    for (;;) {
      await this.commit({ ...this.hosted, turnOpen: true }, []);
      const stop = await this.turn(host, prompt);
      if (stop === "interrupted") {
        const next = await this.unreadMessages();
        await this.commit({ ...this.hosted, turnOpen: false }, [], next.cursor);
        prompt = next.text ?? "Continue the task.";
        continue;
      }
      if (stop === "control") {
        // Paused or canceled here: the turn ended at a boundary. Stopping: left open, so a restart knows.
        if (!this.control.stopping()) await this.commit({ ...this.hosted, turnOpen: false }, []);
        return { cp: this.cp };
      }
      const next = await this.unreadMessages();
      if (stop === "end_turn" && next.text) {
        await this.commit({ ...this.hosted, turnOpen: false }, [], next.cursor);
        prompt = next.text;
        continue;
      }
      // An agent that stopped right after a person refused its action (no model call since) stopped on that person's word.
      const byReviewer = this.refused && this.refused.step === this.step && stop !== "max_tokens";
      const done = byReviewer
        ? { outcome: "canceled" as const, reason: reviewerStopReason(this.refused!), byReviewer: true }
        : doneOf(stop, agentName);
      await this.commit({ ...this.hosted, turnOpen: false }, [], undefined, done);
      return { cp: this.cp };
    }
  }

  private goalPrompt(): string {
    const instructions = this.spec.instructions.trim();
    return instructions ? `${instructions}\n\nGoal: ${this.run.goal}` : this.run.goal;
  }

  /** One prompt turn, watched: a cancel, pause, stop or an interrupting message ends it early. */
  private async turn(host: AcpHost, text: string): Promise<acp.StopReason | "control" | "interrupted"> {
    const sessionId = this.hosted.sessionId!;
    const turn = host.prompt(sessionId, text);
    let why: "control" | "interrupted" | null = null;
    const watch = setInterval(() => {
      if (why) return;
      if (this.control.cancelRequested() || this.control.pauseRequested() || this.control.stopping() || this.control.leaseLost?.())
        why = "control";
      else if (this.control.toolSignal?.().aborted) why = "interrupted";
      if (why) void host.cancel(sessionId);
    }, CONTROL_POLL_MS);
    try {
      const settled = turn.then(
        (stop) => ({ stop }),
        (err: unknown) => ({ err }),
      );
      const first = await settled;
      // Told to end its turn when Rein refused it an action as the run was paused or canceled (ended()), before the watch saw it.
      if ("stop" in first) return why ?? (first.stop === "cancelled" && this.ending() ? "control" : first.stop);
      if (why) return why;
      throw first.err;
    } catch (err) {
      if (err instanceof AgentExitedError) throw err;
      // The connection closes a moment before the process is seen to exit: a crash is told as one.
      const gone = await Promise.race([host.exited, delay(1_000).then(() => null)]);
      if (gone) throw new AgentExitedError(gone);
      // The agent refused the prompt: its words and, when a budget stopped its model call, the budget's.
      const limit = await this.k.limits?.beforeModelCall(this.run.id);
      if (limit && !limit.ok) throw new RunFailure(limit.code ?? "BUDGET_EXCEEDED", limit.reason ?? "A budget would be exceeded");
      throw new RunFailure("HOSTED_AGENT_ERROR", `${this.program.name} stopped with an error: ${errorText(err)}`);
    } finally {
      clearInterval(watch);
      // A turn that did not end after session/cancel ends with the process.
      if (why) await Promise.race([turn.catch(() => {}), delay(CANCEL_GRACE_MS)]);
      this.control.toolEnded?.();
    }
  }

  private async unreadMessages(): Promise<{ text: string | null; cursor?: number }> {
    const events = await this.k.store.eventsOfType(this.run.id, "user.message", this.cp.state.messageCursor ?? 0);
    if (!events.length) return { text: null };
    const text = events
      .map((e) => {
        const m = e.payload as { text: string; byName: string };
        return personMessage(m.byName, m.text).content as string;
      })
      .join("\n\n");
    return { text, cursor: events[events.length - 1].seq };
  }

  private async commit(hosted: Hosted, events: NewRunEvent[], messageCursor?: number, done?: CheckpointState["done"]) {
    const state: CheckpointState = {
      ...this.cp.state,
      step: Math.max(this.cp.state.step, this.step),
      tasks: this.tasks,
      hosted: { ...hosted, recorded: this.updateEvents },
      ...(messageCursor !== undefined ? { messageCursor } : {}),
      ...(done ? { done } : {}),
    };
    this.cp = await this.k.store.commitStep(this.run.id, { events, checkpoint: state, seq: this.cp.seq + 1 });
  }

  private append(events: NewRunEvent[]) {
    return this.k.store.appendEvents(this.run.id, events);
  }

  /** Events from the agent's updates: an agent flooding them fills no disk; past the limit they are dropped, once said in the server's log. */
  private async record(events: NewRunEvent[]) {
    this.updateEvents += events.length;
    if (this.updateEvents > MAX_UPDATE_EVENTS) {
      if (this.updateEvents - events.length <= MAX_UPDATE_EVENTS)
        this.k.log.error(
          `run ${this.run.id}: the hosted agent's updates made more than ${MAX_UPDATE_EVENTS} timeline events; the rest are not recorded`,
        );
      return;
    }
    await this.append(events);
  }

  private io(): HostIO {
    const workspace = this.k.workspaceFor(this.run.id);
    const pod = this.k.tiers?.tierOf(this.run) === "T0" ? undefined : this.k.terminals?.get(this.run.id);
    return {
      readText: async (relative) => (await workspace.readFile(relative, { maxBytes: 4 * 1024 * 1024 })).data.toString("utf8"),
      writeText: async (relative, content) => {
        await workspace.writeFile(relative, content);
      },
      exec: pod
        ? (command, { signal }) => {
            // One command at the pod's prompt at a time, in the order asked.
            const ran = this.execChain.then(() => pod.exec(command, { timeoutMs: 30 * 60_000, signal }));
            this.execChain = ran.catch(() => {});
            return ran;
          }
        : null,
      permission: (request, signal) => this.permission(request, signal),
      allow: (action, signal) => this.allow(action, signal),
      update: (update) => this.update(update),
    };
  }

  /** The agent asks before an action: Rein's policy, and a person when it says so (docs/hosted-agents.md#permissions). */
  private async permission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const tc = request.toolCall;
    const view = policyView(tc.kind ?? undefined, tc.rawInput, tc.title ?? "", tc.locations ?? []);
    // The call is on the timeline before the decision about it, with the input the agent asked with.
    await this.called(boundedId(tc.toolCallId), view.tool, tc.title ?? undefined, tc.rawInput, false);
    // A person canceled or paused the run (the agent was asked to end its turn): nothing more is let through.
    if (await this.ended()) return { outcome: { outcome: "cancelled" } };
    const verdict = await this.decide(view, tc.toolCallId, signal);
    const pick = (kinds: acp.PermissionOptionKind[]) => kinds.map((k) => request.options.find((o) => o.kind === k)).find(Boolean);
    if (verdict === "cancelled") return { outcome: { outcome: "cancelled" } };
    if (verdict.ok) {
      // Only a once: the agent must ask again next time, so Rein decides every call.
      const option = pick(["allow_once"]);
      if (option) {
        // The write or command it then makes is not put to the policy (or a person) a second time.
        const key = allowedKey(view);
        if (key) {
          this.allowed.set(key, Date.now());
          if (this.allowed.size > MAX_ALLOWED) this.allowed.delete(this.allowed.keys().next().value!);
        }
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      }
    }
    const refuse = pick(["reject_once", "reject_always"]);
    return refuse ? { outcome: { outcome: "selected", optionId: refuse.optionId } } : { outcome: { outcome: "cancelled" } };
  }

  /** A write or a command the agent did not ask about (or asked and was let through): the policy still applies. */
  private async allow(action: HostAction, signal: AbortSignal): Promise<void> {
    const ending = await this.ended();
    if (ending) throw new Error(ending);
    // The write, or the command (or its shell's script), the agent asked about a moment ago and was let through: once.
    const keys = action.kind === "edit" ? [`edit:${action.path}`] : [action.command, action.script].map((c) => c && `execute:${c}`);
    for (const asked of keys) {
      const at = asked === undefined ? undefined : this.allowed.get(asked);
      if (asked !== undefined && at !== undefined && Date.now() - at < 10 * 60_000) {
        this.allowed.delete(asked);
        return;
      }
    }
    const view =
      action.kind === "edit" ? { tool: "write_file", args: { path: action.path } } : { tool: "shell", args: { command: action.command } };
    const id = `${action.kind}:${action.kind === "edit" ? action.path : action.command}:${this.step}`;
    const verdict = await this.decide(view, id, signal);
    if (verdict === "cancelled") throw new Error("The request was canceled");
    if (!verdict.ok) throw new Error(verdict.reason);
    const late = await this.ended();
    if (late) throw new Error(late);
  }

  /**
   * Why nothing more runs in this turn, when it is ending: a person canceled or paused the run, the server stops,
   * or the agent's process is being closed. The agent's writes and commands past that point are refused, not run
   * while it takes its time to stop.
   */
  private ending(): string | null {
    const c = this.control;
    if (c.cancelRequested()) return "The run is being canceled: Rein runs nothing more for this agent";
    if (c.pauseRequested()) return "The run is being paused: Rein runs nothing more for this agent until it is resumed";
    if (c.stopping() || c.leaseLost?.() || this.abort.signal.aborted) return "The agent's turn is ending: Rein runs nothing more in it";
    return null;
  }

  /** ending(), and when the turn is ending the agent is told to end it (session/cancel) before it hears of the refusal. */
  private async ended(): Promise<string | null> {
    const why = this.ending();
    if (why && this.hosted.sessionId) await this.host?.cancel(this.hosted.sessionId);
    return why;
  }

  /** One decision at a time; an agent asking about many actions at once is refused past a few (docs/hosted-agents.md#permissions). */
  private async decide(
    view: { tool: string; args: unknown },
    callId: string,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; reason: string } | "cancelled"> {
    if (this.queuedDecisions >= MAX_QUEUED_DECISIONS)
      return {
        ok: false,
        reason: `The agent asked about more than ${MAX_QUEUED_DECISIONS} actions at once; Rein decides them one at a time`,
      };
    this.queuedDecisions++;
    const turn = this.decisions.then(() => this.decideNow(view, callId, signal));
    this.decisions = turn.catch(() => {});
    try {
      return await turn;
    } finally {
      this.queuedDecisions--;
    }
  }

  private async decideNow(
    view: { tool: string; args: unknown },
    callId: string,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; reason: string } | "cancelled"> {
    const gate = this.deps.gate;
    if (!gate) return { ok: false, reason: "Rein has no policy to decide this with here" };
    if (signal.aborted) return "cancelled";
    // Every decision is its own: an id the agent chose never names it, so an approval cannot be reused for another action.
    const nodeId = `hosted:${randomUUID()}`;
    const call: GateCall = {
      tool: hostedTool(view.tool),
      args: view.args,
      address: { runId: this.run.id, nodeId, checkpointId: this.cp.id },
      ctx: {
        runId: this.run.id,
        workspace: this.k.workspaceFor(this.run.id),
        agent: { name: this.spec.name, version: this.spec.version },
        actorId: this.run.createdById,
        teamId: this.run.teamId,
        tier: this.k.tiers?.tierOf(this.run) ?? this.run.tier ?? "T1",
        signal,
      } as unknown as ToolContext,
    };
    for (let announced = false; ;) {
      const verdict = await gate.check(call);
      if (verdict.kind === "proceed") {
        // A person who changed the action approved theirs, not the agent's: the agent's is not run, and it hears what was approved.
        if (JSON.stringify(verdict.args) !== JSON.stringify(view.args))
          return {
            ok: false,
            reason: `A person approved it changed, as ${JSON.stringify(verdict.args).slice(0, 1000)}; the action as asked was not run. Ask again with that if it is what you meant.`,
          };
        return { ok: true };
      }
      if (verdict.kind === "result") {
        if (verdict.outcome.ok) return { ok: true };
        const reviewer = verdict.outcome.error.reviewer;
        if (reviewer) this.refused = { ...reviewer, tool: view.tool, step: this.step };
        return { ok: false, reason: verdict.outcome.error.message };
      }
      if (verdict.kind === "cancel") return { ok: false, reason: verdict.reason };
      this.open.add(verdict.request.id);
      if (!announced) {
        announced = true;
        if (verdict.created)
          await this.append([
            event(
              "human.requested",
              {
                requestId: verdict.request.id,
                kind: verdict.request.kind,
                title: verdict.request.title,
                requiredRole: verdict.request.requiredRole,
                expiresAt: verdict.request.expiresAt,
                tool: view.tool,
                toolCallId: callId.slice(0, 200),
                ...(verdict.request.slot ? { slot: verdict.request.slot } : {}),
              },
              { actor: `agent:${this.spec.name}`, key: `request:${verdict.request.id}` },
            ),
          ]);
      }
      const closed = await this.closed(verdict.request.id, signal);
      if (!closed) {
        // The agent stopped waiting (it withdrew the question, or its relayed command): nobody needs the answer, and
        // a question asked and withdrawn again and again leaves no pile of requests in the Inbox.
        if (signal.aborted && !this.abort.signal.aborted && this.deps.cancelRequest) {
          this.open.delete(verdict.request.id);
          await this.deps.cancelRequest(verdict.request.id, "The agent stopped waiting for the answer").catch(() => {});
        }
        return "cancelled";
      }
      this.open.delete(verdict.request.id);
    }
  }

  /** Waits until a human request is no longer open; false when the agent or the run gave up first. */
  private async closed(requestId: string, signal: AbortSignal): Promise<boolean> {
    const db = this.deps.db;
    if (!db) return false;
    for (;;) {
      if (signal.aborted || this.abort.signal.aborted || this.control.cancelRequested() || this.control.stopping()) return false;
      const row = await db.humanRequest.findUnique({ where: { id: requestId }, select: { state: true, kind: true } });
      if (!row) return true;
      if (row.state !== "PENDING" && row.state !== "ESCALATED" && !(row.kind === "veto" && row.state === "EXPIRED")) return true;
      await new Promise<void>((resolve) => {
        const off = this.deps.requestChanges?.on((c) => c.requestId === requestId && done());
        const timer = setTimeout(done, REQUEST_POLL_MS);
        function done() {
          clearTimeout(timer);
          off?.();
          resolve();
        }
      });
    }
  }

  /** The agent's session updates on the run's timeline: its tool calls and their results, its plan. */
  private async update(update: acp.SessionUpdate): Promise<void> {
    const actor = `agent:${this.spec.name}`;

    switch (update.sessionUpdate) {
      case "tool_call":
      case "tool_call_update": {
        const id = boundedId(update.toolCallId);
        const ends = update.status === "completed" || update.status === "failed";
        // Announced before its input (Claude Code's adapter as its model begins a call, Qwen Code for every call, whose
        // input comes with the permission request): the timeline gets it once, whole, when its input or its end comes.
        const awaited = !ends && (update.rawInput === undefined || update.rawInput === null || isEmptyObject(update.rawInput));
        const tool = update.kind ? hostedToolName(update.kind) : undefined;
        if (!(await this.called(id, tool, update.title ?? undefined, update.rawInput, awaited))) return;
        if (ends) await this.result(id, update.status as "completed" | "failed", update.content ?? [], update.rawOutput);
        return;
      }
      case "plan": {
        this.tasks = update.entries.slice(0, 100).map((e) => ({
          title: bounded(e.content, 500),
          status: e.status === "completed" ? "done" : e.status === "in_progress" ? "doing" : "todo",
        }));
        await this.record([event("tasks.updated", { tasks: this.tasks }, { actor })]);
        return;
      }
      default:
        // Messages and thoughts reach the timeline through the gateway's model turns; the rest is the agent's own state.
        return;
    }
  }

  /**
   * A tool call the agent announced or asked permission for: on the timeline once, as soon as its input is known
   * (or it ended). False when it is not kept (past MAX_CALLS).
   */
  private async called(id: string, named: string | undefined, title: string | undefined, rawInput: unknown, awaited: boolean) {
    const held = this.calls.get(id);
    if (held && !held.awaited) return true;
    if (!held && this.calls.size >= MAX_CALLS) return false;
    const tool = named ?? held?.tool ?? hostedToolName(undefined);
    const shown = bounded(title ?? held?.title ?? "", 200);
    this.calls.set(id, { tool, started: held?.started ?? Date.now(), title: shown, ...(awaited ? { awaited } : {}) });
    if (awaited) return true;
    await this.record([
      event(
        "tool.call",
        { step: this.step, agent: this.spec.name, toolCallId: id, tool, args: argsOf(title ?? held?.title ?? "", rawInput) },
        { actor: `agent:${this.spec.name}` },
      ),
    ]);
    return true;
  }

  private async result(id: string, status: "completed" | "failed", content: acp.ToolCallContent[], rawOutput: unknown) {
    const call = this.calls.get(id)!;
    if (call.started < 0) return;
    const text = textOf(content, rawOutput);
    await this.record([
      event(
        "tool.result",
        {
          step: this.step,
          toolCallId: id,
          tool: call.tool,
          ok: status === "completed",
          ...(status === "completed"
            ? { output: text }
            : { error: { code: "HOSTED_TOOL_FAILED", message: text || "The agent reported this call failed" } }),
          cached: false,
          replayClass: null,
          durationMs: Date.now() - call.started,
        },
        { actor: `agent:${this.spec.name}` },
      ),
    ]);
    call.started = -1;
  }
}

/** What a permission the policy granted lets through once, in allow(): a command, or a write to one file. */
function allowedKey(view: { tool: string; args: unknown }): string | null {
  const args = view.args as { command?: unknown; path?: unknown };
  if (view.tool === "shell" && typeof args.command === "string") return `execute:${args.command}`;
  if (view.tool === "write_file" && typeof args.path === "string" && args.path) return `edit:${args.path}`;
  return null;
}

/** How an ACP tool kind reads in Rein's timeline and policy. */
export function hostedToolName(kind: acp.ToolKind | undefined): string {
  switch (kind) {
    case "read":
      return "read_file";
    case "edit":
    case "delete":
    case "move":
      return "write_file";
    case "search":
      return "search";
    case "execute":
      return "shell";
    default:
      return `hosted:${kind ?? "other"}`;
  }
}

/** The tool and arguments Rein's policy decides a permission prompt by: a command as `shell`, a file change as `write_file`. */
export function policyView(
  kind: acp.ToolKind | undefined,
  rawInput: unknown,
  title: string,
  locations: Array<{ path: string }>,
): { tool: string; args: unknown } {
  const input = rawInput && typeof rawInput === "object" ? (rawInput as Record<string, unknown>) : {};
  const tool = hostedToolName(kind ?? kindOfInput(input));
  if (tool === "shell") {
    const command = Array.isArray(input.command)
      ? input.command.map(String).join(" ")
      : typeof input.command === "string"
        ? input.command
        : title;
    // The agent's own words for the action go with it to the person asked (the policy's rules read `command`).
    const description = title && title !== command ? { description: bounded(title, 500) } : {};
    return { tool, args: { command: bounded(command, 8000), ...description } };
  }
  const where =
    locations[0]?.path ?? (typeof input.path === "string" ? input.path : typeof input.file_path === "string" ? input.file_path : "");
  if (tool === "write_file" || tool === "read_file")
    return {
      tool,
      args: { path: bounded(where.replace(/^\/workspace\/?/, ""), 1000), ...(title ? { description: bounded(title, 500) } : {}) },
    };
  return { tool, args: { title: bounded(title, 1000) } };
}

/**
 * The kind of a call that names none, by its input: a command or a file change is never decided as some
 * other action (docs/hosted-agents.md#permissions).
 */
function kindOfInput(input: Record<string, unknown>): acp.ToolKind | undefined {
  if (typeof input.command === "string" || Array.isArray(input.command)) return "execute";
  if (["content", "new_string", "new_source", "edits"].some((k) => k in input)) return "edit";
  return undefined;
}

function hostedTool(name: string): ToolDefinition {
  return { name, description: "A hosted agent's action" } as unknown as ToolDefinition;
}

function doneOf(stop: acp.StopReason, agent: string): NonNullable<CheckpointState["done"]> {
  switch (stop) {
    case "end_turn":
      return { outcome: "succeeded", reason: `${agent} finished` };
    case "max_tokens":
      return { outcome: "failed", reason: `${agent} stopped: its model reached its output token limit` };
    case "max_turn_requests":
      return { outcome: "failed", reason: `${agent} stopped: it reached its own limit of model requests in one turn` };
    case "refusal":
      return { outcome: "failed", reason: `${agent} stopped: its model refused to go on` };
    case "cancelled":
      return { outcome: "canceled", reason: `${agent} canceled its turn` };
    default:
      return { outcome: "failed", reason: `${agent} stopped for a reason Rein does not know (${String(stop).slice(0, 100)})` };
  }
}

function bounded(text: string, max = EVENT_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function isEmptyObject(value: unknown): boolean {
  return !!value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}

function boundedId(id: string): string {
  return id.length <= 128 ? id : `${id.slice(0, 100)}~${createHash("sha256").update(id).digest("hex").slice(0, 16)}`;
}

function argsOf(title: string, rawInput: unknown): unknown {
  let input: unknown = rawInput ?? null;
  const json = JSON.stringify(input) ?? "null";
  if (json.length > EVENT_TEXT_CHARS) input = bounded(json);
  return { title: bounded(title, 1000), input };
}

function textOf(content: acp.ToolCallContent[], rawOutput: unknown): string {
  const parts: string[] = [];
  for (const c of content.slice(0, 50)) {
    if (c.type === "content" && c.content.type === "text") parts.push(c.content.text);
    else if (c.type === "diff") parts.push(`Changed ${c.path}`);
    else if (c.type === "terminal") parts.push(`Terminal ${c.terminalId}`);
  }
  if (!parts.length && rawOutput !== undefined && rawOutput !== null)
    parts.push(typeof rawOutput === "string" ? rawOutput : (JSON.stringify(rawOutput) ?? ""));
  return bounded(parts.join("\n"));
}

function errorText(err: unknown): string {
  if (err && typeof err === "object" && "message" in err) return String((err as { message: unknown }).message).slice(0, 1000);
  return String(err).slice(0, 1000);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
