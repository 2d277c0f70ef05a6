// Routing (docs/models.md#routing): which configured models may serve a call, best
// first. Pure: the catalog snapshot, the request and the clock go in; the
// ordered candidates and the reasons for every model left out come out, and
// the decision is recorded on the call's span.
import type { TaskClass } from "../types";
import type { ModelRef, ModelView, RoutingConfig } from "./types";

export interface RoutableProvider {
  name: string;
  selfHosted: boolean;
  enabled: boolean;
}

export interface RoutingSnapshot {
  providers: Map<string, RoutableProvider>;
  models: Map<ModelRef, ModelView>;
  routing: RoutingConfig;
  /** USD per million tokens, input + output, for the "cheapest" strategy. */
  blendedPrice(ref: ModelRef): number | null;
}

export interface RouteRequest {
  /** A model the run or agent names ("<provider>/<model id>"), or null to let the rules decide. */
  model: ModelRef | null;
  taskClass: TaskClass;
  teamId?: string | null;
  /** The task's complexity, 0..1; candidates at least this strong come first. */
  complexity?: number | null;
  /** The agent has tools, so the model must support tool calls. */
  needsTools: boolean;
  /** For a judge: the family of the agent's model, which the judge must not share. */
  judgeOfFamily?: string | null;
}

export interface RoutingDecision {
  taskClass: TaskClass;
  /** The team's sensitivity pool, if it has one. */
  pool: string | null;
  complexity: number;
  strategy: "ordered" | "cheapest" | "named";
  candidates: ModelRef[];
  skipped: Array<{ model: ModelRef; reason: string }>;
  /** Why the first candidate is first, in words. */
  reason: string;
}

export class RoutingError extends Error {
  constructor(
    message: string,
    readonly decision?: Partial<RoutingDecision>,
  ) {
    super(message);
    this.name = "RoutingError";
  }
}

export const DEFAULT_COMPLEXITY = 0.5;

/** Models of the pool: those listed, and every model of a self-hosted provider when the pool says so. */
export function poolMembers(snapshot: RoutingSnapshot, poolName: string): Set<ModelRef> {
  const pool = snapshot.routing.pools.find((p) => p.name === poolName);
  const members = new Set<ModelRef>(pool?.models ?? []);
  if (pool?.selfHosted) {
    for (const m of snapshot.models.values()) if (snapshot.providers.get(m.provider)?.selfHosted) members.add(m.ref);
  }
  return members;
}

export function route(snapshot: RoutingSnapshot, request: RouteRequest, cooling: (ref: ModelRef) => number | null): RoutingDecision {
  const complexity = clamp(request.complexity ?? DEFAULT_COMPLEXITY);
  const poolName = request.teamId ? (snapshot.routing.teamPools[request.teamId] ?? null) : null;
  const pool = poolName ? poolMembers(snapshot, poolName) : null;
  const rule = snapshot.routing.rules[request.taskClass];
  const skipped: RoutingDecision["skipped"] = [];

  /** Why a model may not serve this call, or null when it may. */
  const unusable = (ref: ModelRef): string | null => {
    const model = snapshot.models.get(ref);
    if (!model) return "not configured";
    if (!model.enabled) return "disabled";
    const provider = snapshot.providers.get(model.provider);
    if (!provider?.enabled) return `its provider ${model.provider} is disabled`;
    if (pool && !pool.has(ref)) return `outside the pool "${poolName}"`;
    if (request.needsTools && !model.tools) return "does not support tool calls";
    if (request.taskClass === "judge" && request.judgeOfFamily && model.family === request.judgeOfFamily) {
      return `same family (${model.family}) as the agent it judges`;
    }
    return null;
  };

  const named = request.model;
  if (named) {
    const why = unusable(named);
    if (why) throw new RoutingError(`The model ${named} cannot serve this run: ${why}`, { pool: poolName, taskClass: request.taskClass });
  }
  const listed = rule?.candidates.length ? rule.candidates : named ? [] : [...snapshot.models.keys()];
  const usable: ModelRef[] = [];
  for (const ref of listed) {
    if (ref === named || usable.includes(ref)) continue;
    const why = unusable(ref);
    if (why) skipped.push({ model: ref, reason: why });
    else usable.push(ref);
  }

  const strength = (ref: ModelRef) => snapshot.models.get(ref)!.strength;
  const strong = usable.filter((r) => strength(r) >= complexity);
  const weak = usable.filter((r) => strength(r) < complexity).sort((a, b) => strength(b) - strength(a));
  const strategy = rule?.strategy ?? "ordered";
  if (strategy === "cheapest") strong.sort((a, b) => (snapshot.blendedPrice(a) ?? Infinity) - (snapshot.blendedPrice(b) ?? Infinity));
  let candidates = [...(named ? [named] : []), ...strong, ...weak];

  // Models cooling down after a failure go last; they are still better than no model at all.
  const now = candidates.map((ref) => ({ ref, until: cooling(ref) }));
  const warm = now.filter((c) => c.until === null).map((c) => c.ref);
  const cold = now.filter((c) => c.until !== null).sort((a, b) => a.until! - b.until!);
  for (const c of cold)
    skipped.push({ model: c.ref, reason: `cooling down for ${Math.ceil((c.until! - Date.now()) / 1000)} s after a failure; tried last` });
  candidates = [...warm, ...cold.map((c) => c.ref)];

  if (candidates.length === 0) {
    const where = poolName ? ` in the pool "${poolName}"` : "";
    const detail = skipped.length ? ` (${skipped.map((s) => `${s.model}: ${s.reason}`).join("; ")})` : "";
    throw new RoutingError(
      `No model${where} can serve a ${request.taskClass} call${detail}. Add one in Settings → Models, or pick a scripted model.`,
      { pool: poolName, taskClass: request.taskClass, skipped },
    );
  }
  const first = candidates[0];
  const reason =
    first === named
      ? `${first} was named by the run or its agent`
      : strategy === "cheapest"
        ? `${first} is the cheapest ${request.taskClass} candidate at least as strong as the task (${complexity})`
        : `${first} is the first ${request.taskClass} candidate that can serve the call`;
  return { taskClass: request.taskClass, pool: poolName, complexity, strategy: named ? "named" : strategy, candidates, skipped, reason };
}

function clamp(n: number): number {
  return Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : DEFAULT_COMPLEXITY;
}
