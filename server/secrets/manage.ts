// Secrets as admins manage them (Settings → Secrets, REST, CLI): names, who
// created them and when they were used, never a value. Provider API keys
// (provider/…) are managed with their provider in Settings → Models and are
// neither listed nor changed here. Every change is audited, without the value.
import { z } from "zod";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { teamNamesById } from "@/server/identity";
import { deleteSecret, listSecrets, putSecret } from "./store";
import { checkEnvName, envNameOf } from "./env-names";
import { isProviderSecret } from "./tool-secrets";
import { SecretScopeInput, resolveScope, scopeColumns, scopeOf, type SecretScope } from "./scope";
import { SecretNotFoundError, SecretValidationError, type SecretKeyring } from "./types";

export const SecretName = z.string().trim().min(1, "name is required").max(128, "name is at most 128 characters");
export const SetSecretInput = z.object({
  name: SecretName,
  // Not trimmed: a value is stored exactly as given.
  value: z.string().min(1, "value is required"),
  /** Who may be given it; on a new secret, absent means nobody yet. On an existing one, absent keeps its scope. */
  scope: SecretScopeInput.optional(),
});
export const SetScopeInput = z.object({ name: SecretName, scope: SecretScopeInput });
export type SetSecretInput = z.input<typeof SetSecretInput>;

/** Who changed a secret, for the audit log. */
export interface SecretActor {
  userId: string;
  name: string;
  channel: string;
}

export interface ToolSecretView {
  name: string;
  /** The environment variable a tool's process sees it as. */
  env: string;
  createdBy: { id: string; name: string; email: string } | null;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
  /** Who may be given it (teams by id). */
  scope: SecretScope;
  /** The scope's teams with their current names, to show ("*" and teams since deleted left out). */
  teams: Array<{ id: string; name: string }>;
}

function refuseProviderKey(name: string): void {
  if (isProviderSecret(name)) {
    throw new SecretValidationError(`"${name}" is a model provider's API key; change it with its provider in Settings → Models`);
  }
}

export async function listToolSecrets(db: Db): Promise<ToolSecretView[]> {
  const rows = (await listSecrets(db)).filter((s) => !isProviderSecret(s.name));
  const ids = [...new Set(rows.map((r) => r.createdById).filter((id): id is string => !!id))];
  const users = new Map(
    (await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } })).map((u) => [u.id, u]),
  );
  const scopes = new Map(
    (
      await db.secret.findMany({
        where: { name: { in: rows.map((r) => r.name) } },
        select: { name: true, allowedAgents: true, allowedTeams: true, callerCommands: true },
      })
    ).map((r) => [r.name, scopeOf(r)]),
  );
  const teamNames = await teamNamesById(
    db,
    [...scopes.values()].flatMap((s) => s.teams),
  );
  return rows.map((r) => ({
    name: r.name,
    scope: scopes.get(r.name) ?? { agents: [], teams: [], callerCommands: false },
    teams: (scopes.get(r.name)?.teams ?? []).flatMap((id) => (teamNames.has(id) ? [{ id, name: teamNames.get(id)! }] : [])),
    env: envNameOf(r.name),
    createdBy: r.createdById ? (users.get(r.createdById) ?? null) : null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    lastUsedAt: r.lastUsedAt,
  }));
}

/**
 * The names a person may pick for a run or an agent: all for admins; for
 * others only the secrets whose scope allows one of their teams or any team,
 * since a name alone can tell of another team's systems (docs/security.md#secrets).
 */
export async function listSecretNamesFor(
  db: Db,
  viewer: { role: string; teamIds: string[] },
): Promise<Array<{ name: string; env: string }>> {
  const rows = (
    await db.secret.findMany({
      select: { name: true, allowedAgents: true, allowedTeams: true, callerCommands: true },
      orderBy: { name: "asc" },
    })
  ).filter((r) => !isProviderSecret(r.name));
  const reaches = (teams: string[]) => viewer.role === "admin" || teams.includes("*") || teams.some((t) => viewer.teamIds.includes(t));
  return rows.filter((r) => reaches(scopeOf(r).teams)).map((r) => ({ name: r.name, env: envNameOf(r.name) }));
}

/** Adds a secret or replaces its value. */
export async function setToolSecret(db: Db, keyring: SecretKeyring, raw: SetSecretInput, actor: SecretActor): Promise<ToolSecretView> {
  const parsed = SetSecretInput.parse(raw);
  refuseProviderKey(parsed.name);
  checkEnvName(parsed.name);
  const input = { ...parsed, scope: parsed.scope && (await resolveScope(db, parsed.scope)) };
  const existed = (await db.secret.count({ where: { name: input.name } })) > 0;
  await putSecret(db, keyring, { name: input.name, value: input.value, actor: actor.userId });
  if (input.scope) await db.secret.update({ where: { name: input.name }, data: scopeColumns(input.scope), select: { id: true } });
  await recordAudit(db, {
    kind: existed ? "secret.updated" : "secret.created",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.channel,
    subject: input.name,
    detail: { env: envNameOf(input.name), ...(input.scope ? { scope: input.scope } : {}) },
  });
  const view = (await listToolSecrets(db)).find((s) => s.name === input.name);
  if (!view) throw new SecretNotFoundError(input.name);
  return view;
}

export async function removeToolSecret(db: Db, name: string, actor: SecretActor): Promise<void> {
  refuseProviderKey(name);
  if (!(await deleteSecret(db, name))) throw new SecretNotFoundError(name);
  await recordAudit(db, {
    kind: "secret.deleted",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.channel,
    subject: name,
    detail: {},
  });
}

/** Sets who may be given a secret: agents, teams, and whether a scenario's commands may have it. Audited. */
export async function setSecretScope(db: Db, raw: z.input<typeof SetScopeInput>, actor: SecretActor): Promise<ToolSecretView> {
  const parsed = SetScopeInput.parse(raw);
  refuseProviderKey(parsed.name);
  const input = { ...parsed, scope: await resolveScope(db, parsed.scope) };
  const { count } = await db.secret.updateMany({ where: { name: input.name }, data: scopeColumns(input.scope) });
  if (count === 0) throw new SecretNotFoundError(input.name);
  await recordAudit(db, {
    kind: "secret.scope",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.channel,
    subject: input.name,
    detail: { scope: input.scope },
  });
  const view = (await listToolSecrets(db)).find((s) => s.name === input.name);
  if (!view) throw new SecretNotFoundError(input.name);
  return view;
}
