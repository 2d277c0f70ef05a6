// The ModelRouter (docs/models.md#which-model-a-run-uses): resolves the model a
// run or agent names, or the routing rules pick, to a backend plus the
// candidates to fail over to. Scripted models need no configuration; configured
// providers come from the catalog. Deployments that failed (429, 5xx, timeouts)
// cool down for the time the provider asked (Retry-After) or a default, and are
// tried last.
import { BUILTIN_SCENARIOS, GOAL_SCENARIOS, ScriptedModel, createProviderModel } from "./providers";
import { isProviderError } from "./errors";
import { emptySnapshot, type CatalogSnapshot } from "./catalog/catalog";
import { route, RoutingError, type RoutingDecision } from "./catalog/routing";
import { UnknownModelError, type LanguageModel, type ModelRequest, type ModelRouter, type ResolvedModel } from "./types";

export interface RouterOptions {
  scriptedDelayMs: number;
  /** Wraps every resolved model, e.g. in its provider's rate limit and circuit breaker (server/limits). */
  guard?: (model: LanguageModel) => LanguageModel;
  /** Configured providers and models; without it only scripted models resolve. */
  catalog?: { readonly snapshot: CatalogSnapshot };
  /** Silence timeout of provider calls (ms). */
  timeoutMs?: number;
  now?: () => number;
}

/** How long a deployment rests after a failure that named no Retry-After. */
export const DEFAULT_COOLDOWN_MS: Record<string, number> = { rate_limit: 30_000, server: 15_000, timeout: 15_000, network: 15_000 };
export const MAX_COOLDOWN_MS = 10 * 60_000;

export const AUTO_MODEL = "auto";

/** A model that keeps failing: what Settings › Models says of it (docs/models.md#failover-cooldowns-and-the-circuit-breaker). */
export interface ModelHealth {
  ref: string;
  /** Failures in a row since its last answer. */
  failures: number;
  kind: string;
  /** The last failure, in words. */
  message: string;
  lastFailedAt: number;
  /** Auto tries it only after every other candidate until then; null once that has passed. */
  coolingUntil: number | null;
}

export class DefaultModelRouter implements ModelRouter {
  private readonly cooling = new Map<string, number>();
  private readonly failing = new Map<string, { failures: number; kind: string; message: string; at: number }>();
  private readonly backends = new Map<string, { version: number; model: LanguageModel }>();
  private readonly now: () => number;

  constructor(private readonly options: RouterOptions) {
    this.now = options.now ?? Date.now;
  }

  private get snapshot(): CatalogSnapshot {
    return this.options.catalog?.snapshot ?? emptySnapshot();
  }

  /** Models a user can pick, for forms and error messages. */
  knownModels(): string[] {
    return [...Object.keys(BUILTIN_SCENARIOS).map((s) => `scripted/${s}`), ...this.snapshot.models.keys()];
  }

  familyOf(ref: string): string | null {
    if (ref === "scripted" || ref.startsWith("scripted/")) return "scripted";
    return this.snapshot.models.get(ref)?.family ?? null;
  }

  resolve(request: ModelRequest): ResolvedModel {
    const guard = (r: ResolvedModel): ResolvedModel => (this.options.guard ? { ...r, model: this.options.guard(r.model) } : r);
    const resolved = this.pick(request);
    return { ...guard(resolved), fallbacks: resolved.fallbacks?.map(guard) };
  }

  /**
   * A deployment failed: it rests for Retry-After (capped) or a default for
   * the kind of failure. Returns the pause in ms, or null for failures that
   * another attempt would not fix (bad request, auth).
   */
  coolDown(ref: string, err: unknown): number | null {
    if (!isProviderError(err) || !err.retryable) return null;
    // A model nothing answers for rests longer each time in a row (15 s, 30 s, 1 min … 10 min), so auto stops leaning on it.
    const before = this.failing.get(ref);
    const failures = (before?.failures ?? 0) + 1;
    const base = err.retryAfterMs ?? DEFAULT_COOLDOWN_MS[err.kind] ?? 15_000;
    const ms = Math.min(MAX_COOLDOWN_MS, err.retryAfterMs !== undefined ? base : base * 2 ** Math.min(failures - 1, 10));
    this.cooling.set(ref, this.now() + ms);
    this.failing.set(ref, { failures, kind: err.kind, message: err.message.slice(0, 500), at: this.now() });
    return ms;
  }

  /** The deployment answered: its failures are forgotten. */
  answered(ref: string): void {
    this.failing.delete(ref);
    this.cooling.delete(ref);
  }

  /** Models that failed since they last answered, most recent first. */
  health(): ModelHealth[] {
    return [...this.failing.entries()]
      .map(([ref, f]) => ({
        ref,
        failures: f.failures,
        kind: f.kind,
        message: f.message,
        lastFailedAt: f.at,
        coolingUntil: this.coolingUntil(ref),
      }))
      .sort((a, b) => b.lastFailedAt - a.lastFailedAt);
  }

  /** When the deployment may be tried first again, or null when it is not cooling down. */
  coolingUntil(ref: string): number | null {
    const until = this.cooling.get(ref);
    if (until === undefined) return null;
    if (until <= this.now()) {
      this.cooling.delete(ref);
      return null;
    }
    return until;
  }

  private pick(request: ModelRequest): ResolvedModel {
    const delayMs = this.options.scriptedDelayMs;
    if (request.scenario) {
      return {
        model: new ScriptedModel({ name: "run-scenario", scenario: request.scenario, delayMs }),
        label: "scripted · scenario given with the run",
        scripted: true,
        ...(request.scenario.contextWindow ? { contextWindow: request.scenario.contextWindow } : {}),
      };
    }
    const slash = request.model.indexOf("/");
    const provider = slash < 0 ? request.model : request.model.slice(0, slash);
    const name = slash < 0 ? "" : request.model.slice(slash + 1);
    if (provider === "scripted") {
      if (name && BUILTIN_SCENARIOS[name]) {
        const scenario = BUILTIN_SCENARIOS[name];
        return {
          model: new ScriptedModel({ name, scenario, forGoal: GOAL_SCENARIOS[name], delayMs }),
          label: `scripted · ${name}`,
          scripted: true,
          ...(scenario.contextWindow ? { contextWindow: scenario.contextWindow } : {}),
        };
      }
      if (!name)
        throw new UnknownModelError(
          request.model,
          this.knownModels(),
          `The model "scripted" needs a scenario: name a built-in one (e.g. scripted/demo-coder) or give one with the run`,
        );
      throw new UnknownModelError(request.model, this.knownModels());
    }
    const snapshot = this.snapshot;
    const auto = request.model === AUTO_MODEL;
    if (!auto && !snapshot.models.has(request.model)) throw new UnknownModelError(request.model, this.knownModels());
    let decision: RoutingDecision;
    try {
      decision = route(
        snapshot,
        {
          model: auto ? null : request.model,
          taskClass: request.taskClass,
          teamId: request.teamId,
          complexity: request.complexity,
          needsTools: request.needsTools ?? false,
          judgeOfFamily: request.judgeOfFamily,
        },
        (ref) => this.coolingUntil(ref),
      );
    } catch (err) {
      if (err instanceof RoutingError) throw new UnknownModelError(request.model, this.knownModels(), err.message);
      throw err;
    }
    const [first, ...rest] = decision.candidates.map((ref) => this.backend(snapshot, ref));
    return { ...first, routing: decision, fallbacks: rest };
  }

  private backend(snapshot: CatalogSnapshot, ref: string): ResolvedModel {
    const m = snapshot.models.get(ref)!;
    const p = snapshot.providers.get(m.provider)!;
    const cached = this.backends.get(ref);
    let model = cached?.version === snapshot.version ? cached.model : null;
    if (!model) {
      model = createProviderModel(p.kind, {
        name: p.name,
        baseUrl: p.baseUrl ?? undefined,
        apiKey: p.apiKey ?? undefined,
        modelId: m.modelId,
        family: m.family,
        timeoutMs: this.options.timeoutMs,
      });
      this.backends.set(ref, { version: snapshot.version, model });
    }
    return {
      model,
      label: `${p.name} · ${m.modelId}`,
      scripted: false,
      ref,
      contextWindow: m.contextWindow,
      ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
    };
  }
}
