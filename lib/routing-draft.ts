// The Routing section of Settings › Models as the admin edits it: a rule per
// task class, sensitivity pools, and each team's pool, turned into
// models.setRouting's input. Renaming or removing a pool carries the teams
// that use it along, so an edit never leaves a team pointing at nothing.
import type { RoutingConfig, TaskClass } from "@/server/models";

export const TASK_CLASS_ORDER: TaskClass[] = ["plan", "code", "classify", "summarize", "judge"];

export const TASK_CLASS_HINTS: Record<TaskClass, string> = {
  plan: "Orchestrators and planners breaking work down.",
  code: "Agents writing and running code.",
  classify: "Short labelling and triage calls.",
  summarize: "Condensing long text.",
  judge: "Evaluating another agent's work; never a model of the judged agent's family.",
};

export type Strategy = "ordered" | "cheapest";

export const STRATEGY_HINTS: Record<Strategy, string> = {
  ordered: "Tried in this order: the first that can serve the call answers, the next ones take over when it fails.",
  cheapest: "Cheapest first among the candidates at least as strong as the task's complexity; weaker ones after.",
};

export interface RuleDraft {
  strategy: Strategy;
  candidates: string[];
}

export interface PoolDraft {
  name: string;
  selfHosted: boolean;
  models: string[];
}

export interface RoutingDraft {
  rules: Record<TaskClass, RuleDraft>;
  pools: PoolDraft[];
  /** team id → pool name; a team without an entry may use every model. */
  teamPools: Record<string, string>;
}

export function routingDraftOf(r: Pick<RoutingConfig, "rules" | "pools" | "teamPools">): RoutingDraft {
  const rules = Object.fromEntries(
    TASK_CLASS_ORDER.map((c) => [c, { strategy: r.rules[c]?.strategy ?? "ordered", candidates: [...(r.rules[c]?.candidates ?? [])] }]),
  ) as Record<TaskClass, RuleDraft>;
  return {
    rules,
    pools: r.pools.map((p) => ({ name: p.name, selfHosted: p.selfHosted, models: [...p.models] })),
    teamPools: { ...r.teamPools },
  };
}

/** A rule with no candidates and the default strategy says nothing, so it is left out. */
export function toRoutingInput(d: RoutingDraft) {
  const rules: Partial<Record<TaskClass, RuleDraft>> = {};
  for (const c of TASK_CLASS_ORDER) {
    const rule = d.rules[c];
    if (rule.candidates.length || rule.strategy !== "ordered") rules[c] = { strategy: rule.strategy, candidates: [...rule.candidates] };
  }
  return {
    rules,
    pools: d.pools.map((p) => ({ name: p.name.trim(), selfHosted: p.selfHosted, models: [...p.models] })),
    teamPools: { ...d.teamPools },
  };
}

export function routingDirty(d: RoutingDraft, saved: RoutingDraft): boolean {
  return JSON.stringify(toRoutingInput(d)) !== JSON.stringify(toRoutingInput(saved));
}

/** The list with the item at `index` moved by `delta` (-1 up, +1 down); unchanged at either end. */
export function move<T>(list: readonly T[], index: number, delta: -1 | 1): T[] {
  const to = index + delta;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return [...list];
  const next = [...list];
  [next[index], next[to]] = [next[to], next[index]];
  return next;
}

export function withItem(list: readonly string[], item: string): string[] {
  return item && !list.includes(item) ? [...list, item] : [...list];
}

export function withoutIndex<T>(list: readonly T[], index: number): T[] {
  return list.filter((_, i) => i !== index);
}

export function renamePool(d: RoutingDraft, index: number, name: string): RoutingDraft {
  const old = d.pools[index]?.name;
  if (old === undefined) return d;
  const teamPools = Object.fromEntries(Object.entries(d.teamPools).map(([team, pool]) => [team, pool === old ? name : pool]));
  return { ...d, pools: d.pools.map((p, i) => (i === index ? { ...p, name } : p)), teamPools };
}

export function removePool(d: RoutingDraft, index: number): RoutingDraft {
  const old = d.pools[index]?.name;
  const teamPools = Object.fromEntries(Object.entries(d.teamPools).filter(([, pool]) => pool !== old));
  return { ...d, pools: withoutIndex(d.pools, index), teamPools };
}

/** A name not taken yet: "Pool 1", "Pool 2", … */
export function newPoolName(d: RoutingDraft): string {
  for (let i = 1; ; i++) if (!d.pools.some((p) => p.name === `Pool ${i}`)) return `Pool ${i}`;
}

export function setTeamPool(d: RoutingDraft, teamId: string, pool: string): RoutingDraft {
  const teamPools = { ...d.teamPools };
  if (pool) teamPools[teamId] = pool;
  else delete teamPools[teamId];
  return { ...d, teamPools };
}

/**
 * The server's issues by where they belong: "rules.code", "pools.0", "teamPools.<team>",
 * or "" for the rest. Issues about a candidate or a pool's model go to its rule or pool.
 */
export function routingIssues(issues: Array<{ path: string; message: string }> | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of issues ?? []) {
    const parts = i.path.split(".");
    const key = parts[0] === "rules" || parts[0] === "pools" || parts[0] === "teamPools" ? parts.slice(0, 2).join(".") : "";
    const rest = parts.slice(2).join(".");
    (out[key] ??= []).push(rest ? `${rest}: ${i.message}` : i.message);
  }
  return out;
}
