// A test kernel that runs hosted agents (docs/hosted-agents.md) as the server
// wires them: terminal pods, the model gateway, the policy and people, and
// HostedRuns; and agent specs on a program of the test's own.
import fs from "node:fs";
import path from "node:path";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { ModelGateway } from "@/server/gateway";
import { HostedRuns, registerHostedProgram, type HostedProgram } from "@/server/hosted";
import { RequestBus } from "@/server/hitl";
import type { CallGate } from "@/server/tools";
import { DEMO_HOSTED_AGENT } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "./kernel";
import { waitFor } from "./wait";

const QUIET = { info: () => {}, error: () => {} };

export interface HostedKernel {
  tk: TestKernel;
  pods: PodPool;
  gateway: ModelGateway;
  /** Every chunk the runs' terminals printed, as a watcher sees it. */
  stream(): string;
  /** A person answers a request in the Inbox; the waiting agent hears of it as the server's request bus tells it. */
  decide(requestId: string, decision: "approve" | "reject", comment: string, edited?: Record<string, unknown>): Promise<void>;
  /** A spec named `name` on `program` (registered for the test when given as a whole program), with this call cap. */
  spec(name: string, program: string | HostedProgram, options?: { callCap?: number; model?: string }): Promise<string>;
  cleanup(): Promise<void>;
}

export async function hostedKernel(
  options: {
    models?: boolean;
    log?: typeof QUIET;
    /** Wraps the policy gate (a test that records what was asked). */ gate?: (gate: CallGate) => CallGate;
  } = {},
): Promise<HostedKernel> {
  const log = options.log ?? QUIET;
  const dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "rein-hosted-pods-"));
  const pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
  await pods.start();
  let stream = "";
  pods.onChange((_runId, pod) => void pod?.onData((chunk) => (stream += chunk), { replay: true }));
  const tk = await createTestKernel({ hitl: true, telemetry: true, terminals: pods, models: options.models });
  const k = tk.kernel.deps;
  const requests = new RequestBus();
  const gateway = new ModelGateway({
    router: k.router,
    limits: k.limits,
    appendEvents: (runId, e) => k.store.appendEvents(runId, e),
    publishTransient: (m) => k.publishTransient(m),
    log,
  });
  k.hosted = new HostedRuns({
    gateway,
    gate: options.gate ? options.gate(tk.hitl!.gate) : tk.hitl!.gate,
    db: tk.t.db,
    dataDir: tk.t.dir,
    log,
    cancelRequest: (id, reason) => tk.hitl!.broker.cancel(id, reason),
    requestChanges: requests,
  });
  const unregister: Array<() => void> = [];
  return {
    tk,
    pods,
    gateway,
    stream: () => stream,
    async decide(requestId, decision, comment, edited) {
      const approver = { id: tk.actors.approver.userId, name: tk.actors.approver.name, role: tk.actors.approver.role };
      const decided = await tk.hitl!.broker.decide(
        requestId,
        approver,
        { decision, comment, ...(edited ? { editedArguments: edited } : {}) },
        "inbox",
      );
      requests.publish({ requestId, runId: decided.runId, state: decided.state, teamId: null });
    },
    async spec(name, program, opts = {}) {
      if (typeof program !== "string") unregister.push(registerHostedProgram(program));
      const id = typeof program === "string" ? program : program.id;
      const base = await tk.t.db.agentSpec.findFirstOrThrow({ where: { name: DEMO_HOSTED_AGENT } });
      await tk.t.db.agent.create({ data: { name, builtIn: false, teamId: null } });
      await tk.t.db.agentSpec.create({
        data: {
          ...base,
          id: undefined,
          name,
          version: 1,
          builtIn: false,
          ...(opts.model ? { model: opts.model } : {}),
          guardrails: JSON.stringify({ callCap: opts.callCap ?? 10, hosted: { program: id } }),
        },
      });
      return name;
    },
    async cleanup() {
      unregister.forEach((u) => u());
      await tk.cleanup();
      await pods.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A run's events in order, their payloads parsed. */
export async function runEvents(tk: TestKernel, runId: string) {
  const rows = await tk.t.db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true, payload: true } });
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** The run's open human request, when it has one; a run that ended first fails the wait with its events. */
export function pendingRequest(tk: TestKernel, runId: string, limitMs = 60_000) {
  return waitFor(
    async () => {
      const open = await tk.t.db.humanRequest.findFirst({ where: { runId, state: { in: ["PENDING", "ESCALATED"] } } });
      if (open) return open;
      const run = await tk.t.db.run.findUnique({ where: { id: runId }, select: { status: true, errorMessage: true } });
      if (run && run.status !== "running" && run.status !== "queued")
        throw new Error(`the run is ${run.status} (${run.errorMessage}): ${JSON.stringify(await runEvents(tk, runId))}`);
      return null;
    },
    "the run's human request",
    { limitMs, intervalMs: 20 },
  );
}

/**
 * The environments of a hosted agent's processes now, as text: every process
 * under one whose command line holds `marker` (its sandbox, the launcher, the
 * program and what it starts, whatever they rename themselves).
 */
export function agentEnvironments(marker: string): string[] {
  const read = (pid: string, file: string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/${file}`, "utf8");
    } catch {
      return null; // gone meanwhile
    }
  };
  const parent = new Map<string, string>();
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const stat = read(pid, "stat");
    if (stat) parent.set(pid, stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  const inTree = (pid: string): boolean => {
    for (let p: string | undefined = pid; p && p !== "0"; p = parent.get(p)) if (read(p, "cmdline")?.includes(marker)) return true;
    return false;
  };
  return [...parent.keys()].filter(inTree).flatMap((pid) => read(pid, "environ")?.replaceAll("\0", "\n") ?? []);
}
