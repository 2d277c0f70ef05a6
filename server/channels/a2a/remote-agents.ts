// Remote A2A agents Rein's agents may hand a subtask to
// (docs/a2a.md#remote-agents): an admin names each one, gives the address of
// its card, the Rein secret that holds its bearer token, and whether it lives
// on a private network. Kept in one setting; the token stays a sealed secret.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ChannelError, parseChannelInput, requireChannelAdmin } from "../errors";

export const A2A_REMOTES_SETTING = "a2a.remote-agents";
export const MAX_REMOTE_AGENTS = 50;

export const RemoteName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "a remote agent's name is lower-case letters, digits and dashes, at most 63");

export const RemoteAgentInput = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: "url is an http:// or https:// address" })
      .max(2_000)
      .describe("The agent's address: its card is at .well-known/agent-card.json under it"),
    description: z.string().trim().max(500).default("").describe("What it does, for the agents that may call it"),
    tokenSecret: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .nullable()
      .default(null)
      .describe("The Rein secret holding its bearer token; null: no token"),
    privateNetwork: z
      .boolean()
      .default(false)
      .describe("true: its host and port may be on this machine or a private network (they are refused otherwise)"),
  })
  .strict();

const RemoteAgent = RemoteAgentInput.extend({ name: RemoteName });
export type RemoteAgent = z.output<typeof RemoteAgent>;

export async function listRemoteAgents(db: Db): Promise<RemoteAgent[]> {
  const row = await db.setting.findUnique({ where: { key: A2A_REMOTES_SETTING }, select: { value: true } });
  if (!row) return [];
  try {
    const parsed = z.array(RemoteAgent).safeParse(JSON.parse(row.value));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

async function save(db: Db, actor: Actor, remotes: RemoteAgent[]) {
  const value = JSON.stringify(remotes);
  await db.setting.upsert({
    where: { key: A2A_REMOTES_SETTING },
    create: { key: A2A_REMOTES_SETTING, value, updatedById: actor.userId },
    update: { value, updatedById: actor.userId },
  });
}

/** Adds or replaces a remote agent (admins only); its token secret must exist. */
export async function saveRemoteAgent(db: Db, actor: Actor, name: string, input: unknown): Promise<RemoteAgent> {
  requireChannelAdmin(actor, "Adding a remote A2A agent");
  const remote = { ...parseChannelInput(RemoteAgentInput, input), name: parseChannelInput(RemoteName, name) };
  if (remote.tokenSecret && !(await db.secret.findUnique({ where: { name: remote.tokenSecret }, select: { id: true } })))
    throw new ChannelError("INVALID_INPUT", `No secret is named ${remote.tokenSecret}`, [
      { field: "tokenSecret", message: "no such secret; an admin adds it in Settings › Secrets" },
    ]);
  const remotes = await listRemoteAgents(db);
  if (!remotes.some((r) => r.name === remote.name) && remotes.length >= MAX_REMOTE_AGENTS)
    throw new ChannelError("CONFLICT", `At most ${MAX_REMOTE_AGENTS} remote agents can be added`);
  await save(db, actor, [...remotes.filter((r) => r.name !== remote.name), remote]);
  await recordAudit(db, {
    kind: "a2a.remote_saved",
    actorId: actor.userId,
    actorName: actor.name,
    channel: "admin",
    subject: remote.name,
    detail: { url: remote.url, tokenSecret: remote.tokenSecret, privateNetwork: remote.privateNetwork },
  });
  return remote;
}

export async function removeRemoteAgent(db: Db, actor: Actor, name: string): Promise<boolean> {
  requireChannelAdmin(actor, "Removing a remote A2A agent");
  const remotes = await listRemoteAgents(db);
  const next = remotes.filter((r) => r.name !== name);
  if (next.length === remotes.length) return false;
  await save(db, actor, next);
  await recordAudit(db, { kind: "a2a.remote_removed", actorId: actor.userId, actorName: actor.name, channel: "admin", subject: name });
  return true;
}
