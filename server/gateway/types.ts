// What the model gateway serves and what it needs (docs/gateway.md): a run the
// ACP host bound to a token, and the kernel's pieces a model call goes through.
import type { NewRunEvent, TransientRunMessage } from "@/server/kernel";
import type { ModelRouter, Scenario, TaskClass } from "@/server/models";

export interface GatewayRun {
  runId: string;
  teamId: string | null;
  /** The agent spec's name, for events' `agent` and `actor: agent:<name>`. */
  agent: string;
  /** What the router resolves: the spec's or run's model, e.g. "scripted/<scenario>", "<provider>/<model id>" or "auto". */
  model: string;
  taskClass: TaskClass;
  /** The run's scenario, so the scripted model plays it. */
  scenario?: Scenario | null;
  /** The task's complexity, 0..1, for routing. */
  complexity?: number | null;
  /** Other model names the host tells the agent to ask for (e.g. the vendor's own), listed by GET /v1/models besides `model` and "rein". */
  advertised?: string[];
  /** Model calls allowed in all (the run's maxSteps); past it every call is refused in words. */
  maxCalls: number;
  /** The step number of the next model.turn (the host keeps the count); called once per call the gateway lets through. */
  nextStep(): number;
  /** Aborted when the run is canceled, paused or stopped: calls in flight abort. */
  signal: AbortSignal;
}

/** Limits checked before each model call (server/limits): budgets. */
export interface GatewayLimits {
  beforeModelCall(runId: string): Promise<{ ok: boolean; code?: string; reason?: string }>;
}

export interface GatewayDeps {
  router: ModelRouter;
  limits?: GatewayLimits;
  appendEvents(runId: string, events: NewRunEvent[]): Promise<unknown>;
  publishTransient(message: TransientRunMessage): void;
  log: GatewayLog;
}

export interface GatewayLog {
  info(m: string): void;
  error(m: string, e?: unknown): void;
}

/** The wire protocol of a request, which decides the shape of its answers and errors. */
export type Protocol = "openai" | "anthropic";
