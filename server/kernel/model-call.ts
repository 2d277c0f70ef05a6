// One model turn with failover
// (docs/models.md#failover-cooldowns-and-the-circuit-breaker): stream from the
// routed model; when it fails with a rate limit, a 5xx, a timeout or an open
// circuit before any text reached the watcher, the deployment cools down and
// the next candidate serves the turn. Every failed attempt is a `model.error`
// event (and so an error span) saying why and where the call went next.
import {
  failureWords,
  isProviderError,
  type CallOptions,
  type ResolvedModel,
  type StreamPart,
  type ToolCallPart,
  type Usage,
  type ModelRouter,
} from "@/server/models";
import { event, type NewRunEvent, type TransientRunMessage } from "./events";

export interface TurnResult {
  text: string;
  calls: ToolCallPart[];
  usage: Usage;
  finishReason: string;
  stopReason?: string;
  /** The model that answered. */
  served: ResolvedModel;
  durationMs: number;
  /** Failed attempts before it. */
  failovers: number;
}

export interface ModelCallDeps {
  router: ModelRouter;
  appendEvents(events: NewRunEvent[]): Promise<unknown>;
  publishTransient(message: TransientRunMessage): void;
}

/** Why the turn failed, after every candidate it was allowed to try. */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly cause: unknown,
  ) {
    super(message);
    this.name = "ModelCallError";
  }
}

export const modelName = (r: ResolvedModel) => `${r.model.provider}/${r.model.modelId}`;

/** Failures another deployment may not share: rate limits, server errors, timeouts, network, an open circuit. */
export function failoverable(err: unknown): boolean {
  if (isProviderError(err)) return err.retryable;
  return err instanceof Error && err.name === "CircuitOpenError";
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : typeof err === "string" ? err : JSON.stringify(err);
}

/** Tool-call arguments arrive as JSON text; keep unparsable text so validation can say why. */
export function parseToolInput(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

interface Turn {
  runId: string;
  step: number;
  agent: string;
  options: CallOptions & { abortSignal: AbortSignal };
  /** Every part as it streams, with the attempt it belongs to (0 first, then each failover): the model gateway relays them. */
  onPart?(part: StreamPart, attempt: number): void;
}

export async function callModel(deps: ModelCallDeps, resolved: ResolvedModel, turn: Turn): Promise<TurnResult> {
  const attempts = [resolved, ...(resolved.fallbacks ?? [])];
  for (let i = 0; ; i++) {
    const current = attempts[i];
    const started = performance.now();
    const progress = { streamed: false, usage: null as Usage | null };
    try {
      const result = await attempt(deps, current, turn, progress, i);
      if (current.ref) deps.router.answered?.(current.ref);
      return { ...result, served: current, durationMs: Math.round(performance.now() - started), failovers: i };
    } catch (err) {
      if (turn.options.abortSignal.aborted) throw turn.options.abortSignal.reason ?? err;
      const next = attempts[i + 1];
      const cooldownMs = current.ref ? (deps.router.coolDown?.(current.ref, err) ?? null) : null;
      const failover = next && !progress.streamed && failoverable(err) ? next : null;
      // In words with the next step (nothing answers at the address, no answer in time, a refused key): docs/models.md#providers.
      const message = `The model call failed: ${isProviderError(err) ? failureWords(err.kind, err.message, current.baseUrl) : errorText(err)}`;
      await deps.appendEvents([
        event(
          "model.error",
          {
            step: turn.step,
            agent: turn.agent,
            model: modelName(current),
            error: message,
            durationMs: Math.round(performance.now() - started),
            ...(progress.usage ? { usage: progress.usage } : {}),
            ...(isProviderError(err)
              ? {
                  errorKind: err.kind,
                  ...(err.status ? { status: err.status } : {}),
                  ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
                }
              : {}),
            ...(cooldownMs !== null ? { cooldownMs } : {}),
            ...(failover ? { failoverTo: modelName(failover) } : {}),
            ...(progress.streamed && next ? { noFailover: "text had already reached the watcher" } : {}),
          },
          { actor: `agent:${turn.agent}` },
        ),
      ]);
      if (!failover) throw new ModelCallError(message, err);
    }
  }
}

async function attempt(
  deps: ModelCallDeps,
  resolved: ResolvedModel,
  turn: Turn,
  progress: { streamed: boolean; usage: Usage | null },
  index: number,
): Promise<Omit<TurnResult, "served" | "durationMs" | "failovers">> {
  let text = "";
  const calls: ToolCallPart[] = [];
  let finish: { finishReason: string; stopReason?: string } | null = null;
  const { stream } = await resolved.model.doStream(turn.options);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    turn.onPart?.(value, index);
    switch (value.type) {
      case "text-delta":
        text += value.delta;
        progress.streamed = true;
        deps.publishTransient({ type: "model.delta", runId: turn.runId, step: turn.step, agent: turn.agent, delta: value.delta });
        break;
      case "tool-call":
        calls.push({ type: "tool-call", toolCallId: value.toolCallId, toolName: value.toolName, input: parseToolInput(value.input) });
        break;
      case "finish":
        progress.usage = value.usage;
        finish = { finishReason: value.finishReason, stopReason: value.stopReason };
        break;
      case "error":
        throw value.error;
      case "stream-start":
        break;
    }
  }
  if (!finish || !progress.usage) throw new Error("The model stream ended without a finish message");
  return { text, calls, usage: progress.usage, ...finish };
}
