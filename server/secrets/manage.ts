// Secrets as admins manage them (Settings → Secrets, REST, CLI): names, who
// created them and when they were used, never a value. Provider API keys
// (provider/…) are managed with their provider in Settings → Models and are
// neither listed nor changed here. Every change is audited, without the value.
import { z } from "zod";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { deleteSecret, listSecrets, putSecret } from "./store";
import { checkEnvName, envNameOf } from "./env-names";
import { isProviderSecret } from "./tool-secrets";
import { SecretNotFoundError, SecretValidationError, type SecretKeyring } from "./types";

export const SecretName = z.string().trim().min(1, "name is required").max(128, "name is at most 128 characters");
export const SetSecretInput = z.object({
  name: SecretName,
  // Not trimmed: a value is stored exactly as given.
  value: z.string().min(1, "value is required"),
});
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
}

function refuseProviderKey(name: string): void {
  if (isProviderSecret(name)) {
    throw new SecretValidationError(`"${name}" is a model provider's API key; change it with its provider in Settings → Models`);
  }
}

export async function listToolSecrets(db: Db): Promise<ToolSecretView[]> {
  const rows = (await listSecrets(db)).filter((s) => !isProviderSecret(s.name));
  const ids = [...new Set(rows.map((r) => r.createdById).filter((id): id is string => !!id))];
  const users = new Map((await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } })).map((u) => [u.id, u]));
  return rows.map((r) => ({
    name: r.name,
    env: envNameOf(r.name),
    createdBy: r.createdById ? (users.get(r.createdById) ?? null) : null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    lastUsedAt: r.lastUsedAt,
  }));
}

/** Adds a secret or replaces its value. */
export async function setToolSecret(db: Db, keyring: SecretKeyring, raw: SetSecretInput, actor: SecretActor): Promise<ToolSecretView> {
  const input = SetSecretInput.parse(raw);
  refuseProviderKey(input.name);
  checkEnvName(input.name);
  const existed = (await db.secret.count({ where: { name: input.name } })) > 0;
  await putSecret(db, keyring, { name: input.name, value: input.value, actor: actor.userId });
  await recordAudit(db, {
    kind: existed ? "secret.updated" : "secret.created",
    actorId: actor.userId,
    actorName: actor.name,
    channel: actor.channel,
    subject: input.name,
    detail: { env: envNameOf(input.name) },
  });
  const view = (await listToolSecrets(db)).find((s) => s.name === input.name);
  if (!view) throw new SecretNotFoundError(input.name);
  return view;
}

export async function removeToolSecret(db: Db, name: string, actor: SecretActor): Promise<void> {
  refuseProviderKey(name);
  if (!(await deleteSecret(db, name))) throw new SecretNotFoundError(name);
  await recordAudit(db, { kind: "secret.deleted", actorId: actor.userId, actorName: actor.name, channel: actor.channel, subject: name, detail: {} });
}
