// Every problem of an agent spec at once (docs/agents.md): its shape
// (AgentSpecInput), then what needs the database and the registries: tools,
// handoffs, the model, the tier, secrets and the team. Each check reads the
// raw input loosely, so a broken field elsewhere does not hide its problems.
import type { Db } from "@/server/db";
import { roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { agentVisibleTo } from "@/server/kernel";
import { AUTO_MODEL, UnknownModelError, type ModelRouter } from "@/server/models";
import { listToolSecrets } from "@/server/secrets";
import { hostedProgram, hostedPrograms } from "@/server/hosted";
import { NOT_BUILT, TIER_IDS, TIER_NAMES, isTierId, readTierSettings } from "@/server/tiers";
import { AgentSpecInput, type AgentSpecFields, type SpecProblem } from "./input";

/** What the service needs: the database, the tool registry and the model router. */
export interface AgentDeps {
  db: Db;
  registry: { names(): string[] };
  router: ModelRouter;
}

/** The spec is new (its name must be free), a new version of the named agent, or whichever the name says. */
export type SpecMode = { kind: "create" } | { kind: "save"; name: string } | { kind: "infer" };

export const CALL_CAP_WITHOUT_CEILING = 50;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** May the actor publish agents to this team (operator or more in it; everyone's agents need a global admin)? */
export function mayPublishTo(actor: Actor, teamId: string | null): boolean {
  if (teamId === null) return actor.role === "admin";
  const role = roleIn(actor, teamId);
  return role !== null && roleAtLeast(role, "operator");
}

export async function validateAgentSpec(
  deps: AgentDeps,
  raw: unknown,
  actor: Actor,
  mode: SpecMode = { kind: "infer" },
): Promise<{ spec: AgentSpecFields | null; problems: SpecProblem[] }> {
  const parsed = AgentSpecInput.safeParse(raw);
  const problems: SpecProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ field: i.path.join(".") || "spec", message: i.message }));
  const add = (field: string, message: string) => problems.push({ field, message });
  if (!isObject(raw)) return { spec: null, problems };
  const input = raw;
  const name = text(input.name);
  const tools = strings(input.tools);
  const handoffs = strings(input.handoffs);
  const teamId = input.teamId === undefined ? null : input.teamId === null ? null : text(input.teamId);

  if (name) await checkName(deps.db, actor, name, mode, add);
  duplicates(tools, "tools", (t) => `The tool "${t}" is listed twice`, add);
  const known = new Set(deps.registry.names());
  for (const [i, t] of tools.entries()) if (t && !known.has(t)) add(`tools.${i}`, `The tool "${t}" does not exist`);
  await checkHandoffs(deps.db, actor, { name, handoffs, tools, teamId }, add);
  checkGuardrails(input.guardrails, add);
  checkModel(deps.router, text(input.model), add);
  await checkTier(deps.db, text(input.tier) ?? (input.tier === undefined ? "T1" : undefined), add);
  await checkSecrets(deps.db, strings(input.secrets), add);
  checkHosted(input.hosted, tools, handoffs, add);
  if (teamId !== undefined) await checkTeam(deps.db, actor, teamId, add);

  return { spec: parsed.success && problems.length === 0 ? parsed.data : null, problems };
}

type Add = (field: string, message: string) => void;

/** A hosted agent names a program Rein knows, and lists no tools or handoffs of Rein's: its program has its own (docs/hosted-agents.md). */
function checkHosted(hosted: unknown, tools: string[], handoffs: string[], add: Add) {
  if (!isObject(hosted)) return;
  const program = text(hosted.program);
  if (program && !hostedProgram(program))
    add(
      "hosted.program",
      `Rein has no hosted program "${program}"; it has ${hostedPrograms()
        .map((p) => p.id)
        .join(", ")}`,
    );
  if (tools.length) add("tools", "A hosted agent uses its own program's tools: leave Rein's tools empty");
  if (handoffs.length) add("handoffs", "A hosted agent hands off to no one: leave handoffs empty");
}

function duplicates(list: string[], field: string, message: (item: string) => string, add: Add) {
  const seen = new Set<string>();
  for (const [i, item] of list.entries()) {
    if (seen.has(item)) add(`${field}.${i}`, message(item));
    seen.add(item);
  }
}

async function nameInUse(db: Db, name: string) {
  const [agent, spec] = await Promise.all([
    db.agent.findUnique({ where: { name }, select: { teamId: true } }),
    db.agentSpec.findFirst({ where: { name, draft: false }, select: { version: true } }),
  ]);
  return agent || spec ? { teamId: agent?.teamId ?? null } : null;
}

async function checkName(db: Db, actor: Actor, name: string, mode: SpecMode, add: Add) {
  if (mode.kind === "save") {
    if (name !== mode.name) add("name", `The name stays ${mode.name}; copy the agent to give it another name`);
    return;
  }
  const existing = await nameInUse(db, name);
  if (!existing) return;
  // Checking an agent's edit: its own name is fine.
  if (mode.kind === "infer" && agentVisibleTo(existing, actor)) return;
  add("name", `The name "${name}" is taken; pick another`);
}

async function checkHandoffs(
  db: Db,
  actor: Actor,
  spec: { name?: string; handoffs: string[]; tools: string[]; teamId: string | null | undefined },
  add: Add,
) {
  duplicates(spec.handoffs, "handoffs", (h) => `"${h}" is listed twice`, add);
  if (spec.handoffs.length === 0) return;
  if (!spec.tools.includes("handoff")) add("handoffs", 'Handing off needs the "handoff" tool; add it to the tools');
  const targets = [...new Set(spec.handoffs)];
  const [agents, specs] = await Promise.all([
    db.agent.findMany({ where: { name: { in: targets } }, select: { name: true, teamId: true, archivedAt: true } }),
    db.agentSpec.findMany({ where: { name: { in: targets }, draft: false }, select: { name: true }, distinct: ["name"] }),
  ]);
  const rows = new Map(agents.map((a) => [a.name, a]));
  const saved = new Set(specs.map((s) => s.name));
  for (const [i, target] of spec.handoffs.entries()) {
    const field = `handoffs.${i}`;
    const row = rows.get(target) ?? null;
    if (target === spec.name) add(field, "An agent cannot hand off to itself");
    else if (!saved.has(target) || !agentVisibleTo(row, actor)) add(field, `"${target}" is not an agent you can hand off to`);
    else if (row?.archivedAt) add(field, `"${target}" is archived; unarchive it to hand off to it`);
    // Whoever can run this agent must be able to run the one it hands off to.
    else if (row?.teamId && row.teamId !== spec.teamId)
      add(field, `"${target}" belongs to another team; an agent hands off only to its own team's agents or to everyone's`);
  }
}

function checkGuardrails(raw: unknown, add: Add) {
  if (!isObject(raw)) return;
  const cap = raw.callCap;
  if (typeof cap === "number" && cap > CALL_CAP_WITHOUT_CEILING && raw.costCeilingUsd === undefined) {
    add("guardrails.callCap", `The call cap over ${CALL_CAP_WITHOUT_CEILING} needs a cost ceiling`);
  }
}

function checkModel(router: ModelRouter, model: string | undefined, add: Add) {
  if (!model || model === AUTO_MODEL) return;
  if (!/^[^/\s]+\/\S+$/.test(model)) {
    add("model", "Name a model as <provider>/<model id> (e.g. openai/gpt-4.1), scripted/<scenario>, or auto");
    return;
  }
  const known = router.knownModels?.();
  if (known) {
    if (!known.includes(model)) add("model", `The model "${model}" is not one this server knows; Settings › Models lists them`);
    return;
  }
  try {
    router.resolve({ model, taskClass: "code" });
  } catch (err) {
    if (err instanceof UnknownModelError) add("model", `The model "${model}" is not one this server knows; Settings › Models lists them`);
    else throw err;
  }
}

async function checkTier(db: Db, tier: string | undefined, add: Add) {
  if (tier === undefined) return;
  const offered = TIER_IDS.filter((t) => !NOT_BUILT[t]);
  if (!isTierId(tier)) return add("tier", `The tier is one of ${offered.join(", ")}`);
  const notBuilt = NOT_BUILT[tier];
  if (notBuilt) return add("tier", notBuilt);
  const { settings } = await readTierSettings(db);
  if (!settings[tier].enabled) add("tier", `The tier ${tier} (${TIER_NAMES[tier]}) is turned off in Settings › Tiers`);
}

async function checkSecrets(db: Db, secrets: string[], add: Add) {
  duplicates(secrets, "secrets", (s) => `The secret "${s}" is listed twice`, add);
  if (secrets.length === 0) return;
  const known = new Set((await listToolSecrets(db)).map((s) => s.name));
  for (const [i, s] of secrets.entries()) if (s && !known.has(s)) add(`secrets.${i}`, `There is no secret named "${s}"`);
}

async function checkTeam(db: Db, actor: Actor, teamId: string | null, add: Add) {
  if (teamId === null) {
    if (!mayPublishTo(actor, null)) add("teamId", "Only an admin can share an agent with everyone; pick one of your teams");
    return;
  }
  const team = await db.team.findUnique({ where: { id: teamId }, select: { name: true, archivedAt: true } });
  if (!team || (!actor.teamIds.includes(teamId) && actor.role !== "admin")) return add("teamId", "Pick one of your teams");
  if (team.archivedAt) return add("teamId", `The team ${team.name} is archived`);
  if (!mayPublishTo(actor, teamId)) add("teamId", `Publishing an agent to ${team.name} needs the operator role there`);
}
