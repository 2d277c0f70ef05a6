// A Rein LanguageModel over an AI SDK provider model (LanguageModelV4).
//
// Why the provider model's own doGenerate/doStream and not `generateText` /
// `streamText` from `ai`: they give the raw stream of one HTTP call — text
// deltas, the provider-assembled tool call with its exact JSON input, the
// provider's usage for this call — without the agent loop, tool execution,
// step aggregation and built-in retries that `ai` wraps around them. Rein's
// kernel owns the loop and the router owns retries and failover, so nothing
// here retries (the V4 model makes exactly one request per call).
import type { LanguageModelV4, LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { CallOptions, GenerateResult, LanguageModel, StreamPart } from "../../types";
import { toCallOptions, toGenerateResult, toReinStream, type ConvertOptions } from "./convert";
import { classifyError } from "./errors";

export interface AiSdkModelOptions {
  /** The provider name as configured (e.g. "openai", "local-vllm"). */
  provider: string;
  /** The model family, for the judge cross-family rule. */
  family: string;
  model: LanguageModelV4;
  /** Kept only to scrub it from error messages. */
  apiKey?: string;
  /** Sent with every call, e.g. OpenAI's `store: false`. */
  providerOptions?: LanguageModelV4CallOptions["providerOptions"];
  /** See ConvertOptions. */
  wrapsToolErrors?: boolean;
}

export class AiSdkLanguageModel implements LanguageModel {
  readonly specificationVersion = "rein-v1" as const;
  readonly provider: string;
  readonly modelId: string;
  readonly family: string;
  private readonly model: LanguageModelV4;
  private readonly secrets: string[];
  private readonly providerOptions: LanguageModelV4CallOptions["providerOptions"];
  private readonly convert: ConvertOptions;

  constructor(options: AiSdkModelOptions) {
    this.provider = options.provider;
    this.family = options.family;
    this.model = options.model;
    this.modelId = options.model.modelId;
    this.secrets = options.apiKey ? [options.apiKey] : [];
    this.providerOptions = options.providerOptions;
    this.convert = { wrapsToolErrors: options.wrapsToolErrors };
  }

  private call(options: CallOptions): LanguageModelV4CallOptions {
    const call = toCallOptions(options, this.convert);
    return this.providerOptions ? { ...call, providerOptions: this.providerOptions } : call;
  }

  /** A caller's abort stays an abort; everything else becomes a ProviderError. */
  private failure(error: unknown, signal: AbortSignal | undefined): unknown {
    if (signal?.aborted) return signal.reason ?? error;
    return classifyError(error, { provider: this.provider, secrets: this.secrets });
  }

  async doGenerate(options: CallOptions): Promise<GenerateResult> {
    const call = this.call(options);
    try {
      return toGenerateResult(await this.model.doGenerate(call));
    } catch (error) {
      throw this.failure(error, options.abortSignal);
    }
  }

  /**
   * Rejects with a ProviderError when the call fails before the stream starts
   * (an HTTP error status, an error the provider streams before any output,
   * no connection, no answer in time), so the router
   * can fail over before anything reached the user; a failure once text is
   * flowing arrives as an `error` part.
   */
  async doStream(options: CallOptions): Promise<{ stream: ReadableStream<StreamPart> }> {
    const call = this.call(options);
    let result: Awaited<ReturnType<LanguageModelV4["doStream"]>>;
    try {
      result = await this.model.doStream(call);
    } catch (error) {
      throw this.failure(error, options.abortSignal);
    }
    return { stream: toReinStream(result.stream, (error) => this.failure(error, options.abortSignal)) };
  }
}
