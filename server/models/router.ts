// The ModelRouter: resolves the model a run or agent names to a backend.
// Real providers, task-class routing and failover come with their own issue;
// this interface does not change for them.
import { BUILTIN_SCENARIOS, ScriptedModel } from "./providers";
import { UnknownModelError, type LanguageModel, type ModelRequest, type ModelRouter, type ResolvedModel } from "./types";

export interface RouterOptions {
  scriptedDelayMs: number;
  /** Wraps every resolved model, e.g. in its provider's rate limit and circuit breaker (server/limits). */
  guard?: (model: LanguageModel) => LanguageModel;
}

export class DefaultModelRouter implements ModelRouter {
  constructor(private readonly options: RouterOptions) {}

  /** Models a user can pick, for forms and error messages. */
  knownModels(): string[] {
    return Object.keys(BUILTIN_SCENARIOS).map((s) => `scripted/${s}`);
  }

  resolve(request: ModelRequest): ResolvedModel {
    const resolved = this.pick(request);
    return this.options.guard ? { ...resolved, model: this.options.guard(resolved.model) } : resolved;
  }

  private pick(request: ModelRequest): ResolvedModel {
    const delayMs = this.options.scriptedDelayMs;
    if (request.scenario) {
      return {
        model: new ScriptedModel({ name: "run-scenario", scenario: request.scenario, delayMs }),
        label: "scripted · scenario given with the run",
        scripted: true,
      };
    }
    const [provider, name] = request.model.split("/", 2);
    if (provider === "scripted" && name && BUILTIN_SCENARIOS[name]) {
      return {
        model: new ScriptedModel({ name, scenario: BUILTIN_SCENARIOS[name], delayMs }),
        label: `scripted · ${name}`,
        scripted: true,
      };
    }
    if (provider === "scripted" && !name) {
      throw new UnknownModelError(request.model, this.knownModels(), `The model "scripted" needs a scenario: name a built-in one (e.g. scripted/demo-coder) or give one with the run`);
    }
    throw new UnknownModelError(request.model, this.knownModels());
  }
}
