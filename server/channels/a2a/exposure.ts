// Which agents Rein serves over A2A (docs/a2a.md#expose-an-agent): an admin's
// explicit choice, kept in one setting. Each exposed agent gets an opaque id
// that its card and task URLs use, so a URL never names an agent or a team;
// at most one of them is the agent of the public well-known card.
import crypto from "node:crypto";
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ChannelError, requireChannelAdmin } from "../errors";

export const A2A_EXPOSURE_SETTING = "a2a.exposure";
/** Enough for any deployment's set of public agents; the setting stays small. */
export const MAX_EXPOSED_AGENTS = 100;

const ExposedAgent = z.object({
  id: z.string().regex(/^[a-z0-9]{8,40}$/),
  agent: z.string().min(1).max(200),
  wellKnown: z.boolean(),
});
export type ExposedAgent = z.infer<typeof ExposedAgent>;

const Exposure = z.object({ agents: z.array(ExposedAgent).max(MAX_EXPOSED_AGENTS) });

export const ExposeInput = z
  .object({
    agent: z.string().trim().min(1, "agent is required").max(200),
    /** This agent's card is also the one at /.well-known/agent-card.json (only one agent's is). */
    wellKnown: z.boolean().default(false),
  })
  .strict();

/** The exposed agents; none when the setting is missing or unreadable. */
export async function listExposed(db: Db): Promise<ExposedAgent[]> {
  const row = await db.setting.findUnique({ where: { key: A2A_EXPOSURE_SETTING }, select: { value: true } });
  if (!row) return [];
  try {
    const parsed = Exposure.safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data.agents : [];
  } catch {
    return [];
  }
}

export async function exposedById(db: Db, id: string): Promise<ExposedAgent | null> {
  return (await listExposed(db)).find((a) => a.id === id) ?? null;
}

export async function wellKnownAgent(db: Db): Promise<ExposedAgent | null> {
  return (await listExposed(db)).find((a) => a.wellKnown) ?? null;
}

async function save(db: Db, actor: Actor, agents: ExposedAgent[]) {
  const value = JSON.stringify({ agents });
  await db.setting.upsert({
    where: { key: A2A_EXPOSURE_SETTING },
    create: { key: A2A_EXPOSURE_SETTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
}

/** Exposes an agent (admins only); exposing it again keeps its id and sets wellKnown. */
export async function exposeAgent(db: Db, actor: Actor, raw: z.input<typeof ExposeInput>): Promise<ExposedAgent> {
  requireChannelAdmin(actor, "Exposing an agent over A2A");
  const input = ExposeInput.parse(raw);
  const agent = await db.agent.findUnique({ where: { name: input.agent }, select: { name: true, archivedAt: true } });
  if (!agent) throw new ChannelError("NOT_FOUND", `There is no agent named ${input.agent}`);
  if (agent.archivedAt) throw new ChannelError("CONFLICT", `The agent ${input.agent} is archived; bring it back before exposing it`);
  const agents = await listExposed(db);
  const existing = agents.find((a) => a.agent === agent.name);
  if (!existing && agents.length >= MAX_EXPOSED_AGENTS)
    throw new ChannelError("CONFLICT", `At most ${MAX_EXPOSED_AGENTS} agents can be exposed over A2A`);
  const entry: ExposedAgent = existing
    ? { ...existing, wellKnown: input.wellKnown }
    : { id: crypto.randomBytes(12).toString("hex"), agent: agent.name, wellKnown: input.wellKnown };
  const next = agents
    .filter((a) => a.agent !== agent.name)
    .map((a) => (input.wellKnown ? { ...a, wellKnown: false } : a))
    .concat(entry);
  await save(db, actor, next);
  await recordAudit(db, {
    kind: "a2a.exposed",
    actorId: actor.userId,
    actorName: actor.name,
    channel: "admin",
    subject: agent.name,
    detail: { id: entry.id, wellKnown: entry.wellKnown },
  });
  return entry;
}

/** Stops serving an agent over A2A; its card and tasks answer not found from then on. */
export async function unexposeAgent(db: Db, actor: Actor, agentName: string): Promise<boolean> {
  requireChannelAdmin(actor, "Withdrawing an agent from A2A");
  const agents = await listExposed(db);
  const next = agents.filter((a) => a.agent !== agentName);
  if (next.length === agents.length) return false;
  await save(db, actor, next);
  await recordAudit(db, { kind: "a2a.withdrawn", actorId: actor.userId, actorName: actor.name, channel: "admin", subject: agentName });
  return true;
}
