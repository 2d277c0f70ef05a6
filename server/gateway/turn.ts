// One model call of a hosted agent, whatever protocol it came in
// (docs/gateway.md#before-each-call): the run must be running, under its call
// cap and within its budgets; the router resolves the run's model, the kernel's
// callModel serves it with failover, and the call becomes a `model.turn` event
// like one of the kernel's own, before the agent hears the end of the answer.
import { ModelCallError, callModel, event, modelName, routingSummary } from "@/server/kernel";
import { UnknownModelError, isProviderError, type CallOptions, type FinishReason, type ResolvedModel, type Usage } from "@/server/models";
import { GatewayRefusal } from "./errors";
import type { GatewayDeps, GatewayRun } from "./types";

/** A run bound to a token, and what the gateway counts for it. */
export interface Binding {
  run: GatewayRun;
  /** When bind() was called (ms since the epoch). */
  boundAt: number;
  /** Calls let through so far; failed calls count too, so an agent retrying a failure cannot loop forever. */
  calls: number;
  /** The step of the last call let through (0 before the first). */
  lastStep: number;
  /** Aborted by unbind(): calls in flight stop. */
  unbound: AbortController;
  /** Refusals already on the run's timeline: an agent that keeps asking adds no event per attempt. */
  recorded: Set<string>;
}

/**
 * Who a request is from, as the endpoints see it: a run bound to a token, or
 * a team key (docs/gateway.md#team-keys). Each checks its own limits before
 * a call and records the call its own way.
 */
export interface Caller {
  /** For the log; never a secret: "run <id>", "gateway key <id>". */
  readonly label: string;
  /** What the in-flight refusal calls it: "run", "key". */
  readonly kind: string;
  /** Requests of this caller being read or served now (docs/gateway.md#limits). */
  inFlight: number;
  /** What GET /v1/models lists, and since when (ms since the epoch). */
  models(): { ids: string[]; since: number } | Promise<{ ids: string[]; since: number }>;
  /** One model call: the checks before it, the call, and its record. */
  turn(request: TurnRequest): Promise<TurnAnswer>;
}

export interface TurnRequest {
  /** The model name the client sent: recorded, it does not choose the model. */
  requestedModel: string;
  options: Omit<CallOptions, "abortSignal">;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Text as it streams. */
  onText?(delta: string): void;
}

export interface TurnAnswer {
  text: string;
  /** As the model wrote them: ids, names and the JSON text of the arguments. */
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: FinishReason;
  usage: Usage;
}

/** Thrown when the client went away mid-call; nobody is left to answer. */
export class ClientGone extends Error {
  constructor() {
    super("The client closed the connection");
    this.name = "ClientGone";
  }
}

const notRunning = () =>
  new GatewayRefusal("not_running", "The run is not running (it was paused, canceled or stopped): no model call is made");

export async function serveTurn(deps: GatewayDeps, binding: Binding, request: TurnRequest): Promise<TurnAnswer> {
  const { run } = binding;
  const resolved = await admit(deps, binding, request);
  const step = run.nextStep();
  binding.lastStep = step;
  const signal = AbortSignal.any([run.signal, binding.unbound.signal, request.signal]);
  // Tool calls of each attempt: only the attempt that answered counts (an earlier one may have failed over).
  const calls: Array<TurnAnswer["toolCalls"]> = [];
  let result: Awaited<ReturnType<typeof callModel>>;
  try {
    result = await callModel(
      { router: deps.router, appendEvents: (events) => deps.appendEvents(run.runId, events), publishTransient: deps.publishTransient },
      resolved,
      {
        runId: run.runId,
        step,
        agent: run.agent,
        options: { ...request.options, abortSignal: signal },
        onPart(part, attempt) {
          if (part.type === "text-delta") request.onText?.(part.delta);
          else if (part.type === "tool-call")
            (calls[attempt] ??= []).push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        },
      },
    );
  } catch (err) {
    if (request.signal.aborted) throw new ClientGone();
    if (signal.aborted) throw notRunning();
    if (err instanceof ModelCallError) throw upstreamRefusal(err.cause, addressesOf(resolved));
    throw err;
  }
  const { text, usage, finishReason, served } = result;
  await deps.appendEvents(run.runId, [
    event(
      "model.turn",
      {
        step,
        agent: run.agent,
        model: modelName(served),
        modelLabel: served.label,
        scripted: served.scripted,
        text,
        toolCalls: result.calls.map((c) => ({ toolCallId: c.toolCallId, tool: c.toolName, args: c.input })),
        finishReason,
        usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cachedInputTokens: usage.cachedInputTokens },
        durationMs: result.durationMs,
        ...(resolved.routing ? { routing: routingSummary(resolved.routing) } : {}),
        ...(result.failovers ? { failovers: result.failovers } : {}),
        requestedModel: request.requestedModel,
      },
      { actor: `agent:${run.agent}`, key: `model:${step}` },
    ),
  ]);
  return { text, toolCalls: calls[result.failovers] ?? [], finishReason: finishReason as FinishReason, usage };
}

/** The checks before a call, in order (docs/gateway.md#before-each-call); returns the model that serves it. */
async function admit(deps: GatewayDeps, binding: Binding, request: TurnRequest): Promise<ResolvedModel> {
  const { run } = binding;
  if (run.signal.aborted || binding.unbound.signal.aborted) throw notRunning();
  if (binding.calls >= run.maxCalls) {
    const reason = `This run reached its limit of ${run.maxCalls} model calls; no more calls are made for it`;
    await recordRefusal(deps, binding, "call_cap", reason);
    throw new GatewayRefusal("call_cap", reason);
  }
  // The slot is taken before the first await, so calls made at once cannot pass the cap together.
  binding.calls++;
  try {
    const allowed = await deps.limits?.beforeModelCall(run.runId);
    if (allowed && !allowed.ok) {
      const reason = allowed.reason ?? "A budget of this run would be exceeded; no more model calls are made for it";
      await recordRefusal(deps, binding, allowed.code ?? "budget", reason);
      throw new GatewayRefusal("budget", reason);
    }
    if (run.signal.aborted) throw notRunning();
    return resolve(deps, binding, request);
  } catch (err) {
    binding.calls--;
    throw err;
  }
}

function resolve(deps: GatewayDeps, binding: Binding, request: TurnRequest): ResolvedModel {
  const { run } = binding;
  try {
    return deps.router.resolve({
      model: run.model,
      taskClass: run.taskClass,
      scenario: run.scenario ?? null,
      teamId: run.teamId,
      complexity: run.complexity ?? null,
      needsTools: (request.options.tools?.length ?? 0) > 0,
    });
  } catch (err) {
    if (err instanceof UnknownModelError)
      throw new GatewayRefusal("unknown_model", `The run's model cannot serve this call: ${err.message}`);
    throw err;
  }
}

/** A refusal on the run's timeline as a model.error, once per reason. */
async function recordRefusal(deps: GatewayDeps, binding: Binding, kind: string, reason: string) {
  if (binding.recorded.has(reason)) return;
  binding.recorded.add(reason);
  await deps.appendEvents(binding.run.runId, [
    event(
      "model.error",
      { step: binding.lastStep + 1, agent: binding.run.agent, model: binding.run.model, error: reason, durationMs: 0, errorKind: kind },
      { actor: `agent:${binding.run.agent}` },
    ),
  ]);
}

const FAILED: Record<string, string> = {
  server: "the provider answered with a server error",
  timeout: "the provider did not answer in time",
  network: "the provider could not be reached",
};

/**
 * A failed call in words for the agent: the provider's own words only for a
 * request it refused (e.g. a prompt too long), never its address or key; the
 * run's timeline has the rest (callModel wrote a model.error per attempt).
 */
export function upstreamRefusal(cause: unknown, addresses: string[], details = "the run's timeline has the details"): GatewayRefusal {
  if (isProviderError(cause)) {
    if (cause.kind === "rate_limit")
      return new GatewayRefusal(
        "rate_limited",
        "The model is rate limited; try again shortly",
        cause.retryAfterMs !== undefined ? { "retry-after": String(Math.max(1, Math.ceil(cause.retryAfterMs / 1000))) } : {},
      );
    if (cause.kind === "bad_request")
      return new GatewayRefusal("invalid_request", `The model refused the request: ${withoutAddresses(cause.message, addresses)}`);
    if (cause.kind === "auth")
      return new GatewayRefusal("upstream", "The model's provider refused Rein's credentials; an admin must check it in Settings › Models");
    return new GatewayRefusal("upstream", `The model call failed: ${FAILED[cause.kind] ?? "it failed"}; ${details}`);
  }
  if (cause instanceof Error && cause.name === "CircuitOpenError")
    return new GatewayRefusal("unavailable", "The model's provider failed repeatedly and rests for a moment; try again shortly");
  return new GatewayRefusal("upstream", `The model call failed; ${details}`);
}

/** Where the candidates' providers answer (their base URLs' hosts), which a provider's words may name. */
export function addressesOf(resolved: ResolvedModel): string[] {
  return [resolved, ...(resolved.fallbacks ?? [])].flatMap((r) => (r.baseUrl && URL.canParse(r.baseUrl) ? [new URL(r.baseUrl).host] : []));
}

function withoutAddresses(text: string, addresses: string[]): string {
  return addresses.reduce((t, host) => t.replaceAll(host, "[the provider]"), text);
}
