// A model behind its provider's rate limit and circuit breaker. Only failures
// of the provider count (rate limits, 5xx, timeouts, network); a bad request or
// a caller's abort does not open the circuit.
import { isProviderError, type CallOptions, type LanguageModel, type StreamPart } from "@/server/models";
import type { CircuitBreaker } from "./circuit-breaker";
import type { RateLimiter } from "./rate-limiter";

export interface ModelGuards {
  limiter: RateLimiter;
  breaker: CircuitBreaker;
}

const counts = (err: unknown) => isProviderError(err) && err.kind !== "bad_request" && err.kind !== "auth";

export function guardModel(model: LanguageModel, guards: ModelGuards): LanguageModel {
  const key = model.provider;
  const admit = async (options: CallOptions) => {
    guards.breaker.before(key);
    await guards.limiter.acquire(key, options.abortSignal);
  };
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    family: model.family,
    async doGenerate(options) {
      await admit(options);
      try {
        const result = await model.doGenerate(options);
        guards.breaker.success(key);
        return result;
      } catch (err) {
        if (counts(err)) guards.breaker.failure(key);
        throw err;
      }
    },
    async doStream(options) {
      await admit(options);
      let result: { stream: ReadableStream<StreamPart> };
      try {
        result = await model.doStream(options);
      } catch (err) {
        if (counts(err)) guards.breaker.failure(key);
        throw err;
      }
      // The outcome is known when the stream finishes or fails.
      const watched = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          transform(part, controller) {
            if (part.type === "finish") guards.breaker.success(key);
            if (part.type === "error" && counts(part.error)) guards.breaker.failure(key);
            controller.enqueue(part);
          },
        }),
      );
      return { stream: watched };
    },
  };
}
