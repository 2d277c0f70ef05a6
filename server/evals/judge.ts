// Judges for Evals (docs/evals.md#judges): a model that scores a run's result is
// always of another family than the model of the agent it judges, chosen by
// the router for the `judge` task class within the run's team pool. The
// scripted model never judges. Calls fail over as the kernel's do.
import { AUTO_MODEL, isProviderError, type ModelRouter, type ResolvedModel, type Usage } from "@/server/models";
import { costOf, type ModelPrice } from "@/server/telemetry";
import { ScoringUnavailableError } from "./scorers/types";

export interface JudgeRequest {
  /** The judge's instructions. */
  system: string;
  /** The material to judge, untrusted parts fenced. */
  user: string;
  /** A judge model the scorer names ("<provider>/<model id>"); it must still be of another family. */
  model?: string;
  maxOutputTokens?: number;
  abortSignal?: AbortSignal;
}

export interface JudgeReply {
  text: string;
  /** "<provider>/<model id>" of the judge that answered. */
  model: string;
  /** What the UI shows for it, e.g. "anthropic · claude-sonnet-4". */
  label: string;
  family: string;
  usage: Usage;
  /** USD from the price table; null when the judge has no price there. */
  costUsd: number | null;
}

export interface JudgeClient {
  /** The family of the judged agent's model; null when it is not known. */
  readonly agentFamily: string | null;
  /** Asks a judge of another family; throws JudgeUnavailableError when there is none. */
  ask(request: JudgeRequest): Promise<JudgeReply>;
}

/** Prices by model, e.g. the telemetry service's PriceBook. */
export interface PriceLookup {
  lookup(model: string): { price: ModelPrice; known: boolean };
}

export interface JudgeClientOptions {
  router: ModelRouter;
  /** The run's team: its sensitivity pool limits the judges too. */
  teamId?: string | null;
  /** The model the judged agent used: "<provider>/<model id>" or "scripted/<scenario>"; null when it made no model call. */
  agentModel: string | null;
  prices?: PriceLookup;
}

/** No judge may score this run here; a scorer that needs one is skipped with the reason. */
export class JudgeUnavailableError extends ScoringUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = "JudgeUnavailableError";
  }
}

const DEFAULT_MAX_OUTPUT_TOKENS = 1_024;

export const noJudgeReason = (family: string) =>
  `no judge model is configured: add a model of another family than ${family} for the judge task class in Settings → Models`;

/** The router's message without its list of every model a run may name (a judge may use few of them). */
function routerReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cut = message.indexOf(". Available:");
  return cut < 0 ? message : message.slice(0, cut);
}

function familyOf(router: ModelRouter, ref: string): string | null {
  if (ref === "scripted" || ref.startsWith("scripted/")) return "scripted";
  return router.familyOf?.(ref) ?? null;
}

const failoverable = (err: unknown) => (isProviderError(err) ? err.retryable : err instanceof Error && err.name === "CircuitOpenError");

export function createJudgeClient(options: JudgeClientOptions): JudgeClient {
  const { router, teamId = null, agentModel, prices } = options;
  const agentFamily = agentModel ? familyOf(router, agentModel) : null;

  function candidates(named: string | undefined, family: string): ResolvedModel[] {
    if (named) {
      if (familyOf(router, named) === "scripted")
        throw new JudgeUnavailableError(`the judge model ${named} is scripted, and the scripted model never judges`);
      const namedFamily = familyOf(router, named);
      if (namedFamily === null) throw new JudgeUnavailableError(`the judge model ${named} is not configured in Settings → Models`);
      if (namedFamily === family)
        throw new JudgeUnavailableError(`the judge model ${named} is of the same family (${family}) as the agent it judges`);
    }
    let resolved: ResolvedModel;
    try {
      resolved = router.resolve({ model: named ?? AUTO_MODEL, taskClass: "judge", judgeOfFamily: family, teamId, needsTools: false });
    } catch (err) {
      throw new JudgeUnavailableError(
        named ? `the judge model ${named} cannot judge this run: ${routerReason(err)}` : noJudgeReason(family),
      );
    }
    // The router keeps to the rule; this keeps a judge honest even behind a router that does not.
    const usable = [resolved, ...(resolved.fallbacks ?? [])].filter(
      (r) => !r.scripted && r.model.provider !== "scripted" && r.model.family !== family,
    );
    if (usable.length === 0) throw new JudgeUnavailableError(noJudgeReason(family));
    return usable;
  }

  return {
    agentFamily,
    async ask(request) {
      if (!agentModel)
        throw new JudgeUnavailableError("the run made no model call, so there is no agent model to pick a judge of another family against");
      if (agentFamily === null) {
        throw new JudgeUnavailableError(
          `the family of the agent's model ${agentModel} is not known (it is not in Settings → Models), so no judge of another family can be chosen`,
        );
      }
      const attempts = candidates(request.model, agentFamily);
      for (let i = 0; ; i++) {
        const current = attempts[i];
        const ref = current.ref ?? `${current.model.provider}/${current.model.modelId}`;
        try {
          const result = await current.model.doGenerate({
            prompt: [
              { role: "system", content: request.system },
              { role: "user", content: request.user },
            ],
            maxOutputTokens: request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
            temperature: 0,
            abortSignal: request.abortSignal,
          });
          const text = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
          const priced = prices?.lookup(ref);
          return {
            text,
            model: ref,
            label: current.label,
            family: current.model.family,
            usage: result.usage,
            costUsd: priced?.known ? costOf(result.usage, priced.price) : null,
          };
        } catch (err) {
          if (request.abortSignal?.aborted) throw err;
          if (current.ref) router.coolDown?.(current.ref, err);
          if (!attempts[i + 1] || !failoverable(err)) {
            throw new JudgeUnavailableError(
              `the judge ${current.label} could not answer: ${err instanceof Error ? err.message : String(err)}`,
            );
          }
        }
      }
    },
  };
}
