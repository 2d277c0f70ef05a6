// Secrets at rest in the database, sealed with the keyring's current key.
// Reads that list secrets select names and dates only; the one function that
// returns a value is getSecretValue, and it records when it was used.
import type { Db } from "@/server/db";
import { open, seal } from "./crypto";
import { SecretNotFoundError, SecretValidationError, type SecretKeyring, type SecretSummary } from "./types";

const NAME = /^[A-Za-z_][A-Za-z0-9_.:/-]{0,127}$/;
export const MAX_SECRET_BYTES = 64 * 1024;

const SUMMARY = { name: true, keyId: true, createdById: true, createdAt: true, updatedAt: true, lastUsedAt: true } as const;

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw new SecretValidationError(
      `A secret name starts with a letter or "_" and has at most 128 letters, digits or _ . : / - (got ${JSON.stringify(name.slice(0, 40))})`,
    );
  }
}

export interface PutSecretInput {
  name: string;
  value: string;
  /** The user storing it; null for the system. */
  actor: string | null;
}

/** Creates the secret or replaces its value. */
export async function putSecret(db: Db, keyring: SecretKeyring, input: PutSecretInput): Promise<SecretSummary> {
  checkName(input.name);
  if (typeof input.value !== "string" || input.value.length === 0) {
    throw new SecretValidationError(`The secret "${input.name}" needs a non-empty value`);
  }
  if (Buffer.byteLength(input.value, "utf8") > MAX_SECRET_BYTES) {
    throw new SecretValidationError(`The secret "${input.name}" is larger than ${MAX_SECRET_BYTES / 1024} KiB`);
  }
  const ciphertext = seal(keyring.current, input.name, input.value);
  const keyId = keyring.current.id;
  return db.secret.upsert({
    where: { name: input.name },
    create: { name: input.name, ciphertext, keyId, createdById: input.actor },
    update: { ciphertext, keyId },
    select: SUMMARY,
  });
}

/**
 * The secret's value in clear, for the tool boundary and provider calls only.
 * `touch: false` reads it without recording a use (e.g. to show it masked).
 */
export async function getSecretValue(db: Db, keyring: SecretKeyring, name: string, options: { touch?: boolean } = {}): Promise<string> {
  const row = await db.secret.findUnique({ where: { name }, select: { ciphertext: true } });
  if (!row) throw new SecretNotFoundError(name);
  const value = open(keyring, name, row.ciphertext);
  if (options.touch !== false) await db.secret.update({ where: { name }, data: { lastUsedAt: new Date() }, select: { id: true } });
  return value;
}

export async function listSecrets(db: Db): Promise<SecretSummary[]> {
  return db.secret.findMany({ select: SUMMARY, orderBy: { name: "asc" } });
}

/** True when a secret was deleted, false when there was none by that name. */
export async function deleteSecret(db: Db, name: string): Promise<boolean> {
  const { count } = await db.secret.deleteMany({ where: { name } });
  return count > 0;
}
