// Secrets at the tool boundary (docs/secrets.md#how-a-tool-gets-the-value). A
// run's tools may use the secrets its agent spec lists and those it was
// launched with; each reaches a tool's process as an environment variable.
// Provider API keys (provider/<name>/api-key) are for model calls only: never
// given to a tool. Every value handed out, and every provider key, is
// remembered by the redactor, which takes them out of what comes back.
import type { Db, NativeSqlite } from "@/server/db";
import { open } from "./crypto";
import { checkEnvName, envNameOf } from "./env-names";
import { SecretRedactor } from "./redactor";
import { getSecretValue } from "./store";
import { checkSecretScopes, type RunIdentity } from "./scope";
import { SecretValidationError, type SecretKeyring } from "./types";

export const PROVIDER_SECRET_PREFIX = "provider/";

/** At most this many secrets per run. */
export const MAX_RUN_SECRETS = 20;

export function isProviderSecret(name: string): boolean {
  return name.startsWith(PROVIDER_SECRET_PREFIX);
}

/**
 * The names a run may be given, checked: each exists, none is a provider key,
 * and no two land in the same variable. Returns them without duplicates.
 */
export async function checkToolSecretNames(db: Db, names: string[], run?: RunIdentity): Promise<string[]> {
  const unique = [...new Set(names)];
  if (unique.length > MAX_RUN_SECRETS)
    throw new SecretValidationError(`A run may use at most ${MAX_RUN_SECRETS} secrets (got ${unique.length})`);
  for (const name of unique) {
    if (isProviderSecret(name))
      throw new SecretValidationError(`"${name}" is a model provider's API key; provider keys are never given to tools`);
    checkEnvName(name);
  }
  const found = new Set((await db.secret.findMany({ where: { name: { in: unique } }, select: { name: true } })).map((r) => r.name));
  const missing = unique.filter((n) => !found.has(n));
  if (missing.length) {
    throw new SecretValidationError(
      `No secret named ${missing.map((n) => `"${n}"`).join(", ")}; an admin adds secrets in Settings → Secrets`,
    );
  }
  const byEnv = new Map<string, string>();
  for (const name of unique) {
    const other = byEnv.get(envNameOf(name));
    if (other)
      throw new SecretValidationError(
        `The secrets "${other}" and "${name}" would both be $${envNameOf(name)}; give a run only one of them`,
      );
    byEnv.set(envNameOf(name), name);
  }
  if (run) await checkSecretScopes(db, unique, run);
  return unique;
}

/** The ToolRunner's access to secrets: values for a tool's process, and redaction of what comes back. */
export class ToolSecrets {
  readonly redactor = new SecretRedactor();
  /** updatedAt of each secret whose value the redactor already has. */
  private readonly seen = new Map<string, number>();
  private refreshedAt = 0;

  private readonly rowsOf: (names: string[]) => Promise<Array<{ name: string; ciphertext: string; updatedAt: number }>>;

  constructor(
    private readonly deps: {
      db: Db;
      keyring: SecretKeyring;
      /** The direct SQLite connection: the look before every tool call then costs ~0.02 ms instead of ~0.5 ms. */
      native?: NativeSqlite | null;
      log?: { error(message: string, err?: unknown): void };
    },
  ) {
    const { db, native } = deps;
    if (native) {
      const query = native.prepare(
        `SELECT name, ciphertext, updatedAt FROM "Secret" WHERE name IN (SELECT value FROM json_each(?)) OR substr(name, 1, ?) = ?`,
      );
      this.rowsOf = async (names) =>
        (
          query.all(JSON.stringify(names), PROVIDER_SECRET_PREFIX.length, PROVIDER_SECRET_PREFIX) as Array<{
            name: string;
            ciphertext: string;
            updatedAt: string;
          }>
        ).map((r) => ({
          ...r,
          updatedAt: new Date(r.updatedAt).getTime(),
        }));
    } else {
      this.rowsOf = async (names) =>
        (
          await db.secret.findMany({
            where: { OR: [{ name: { in: names } }, { name: { startsWith: PROVIDER_SECRET_PREFIX } }] },
            select: { name: true, ciphertext: true, updatedAt: true },
          })
        ).map((r) => ({ ...r, updatedAt: r.updatedAt.getTime() }));
    }
  }

  /**
   * Makes sure the redactor knows the current values of these secrets and of
   * every provider key; only rows changed since the last look are opened.
   * Records no use.
   */
  async refresh(names: string[]): Promise<void> {
    const rows = await this.rowsOf(names);
    this.refreshedAt = Date.now();
    for (const row of rows) {
      if (this.seen.get(row.name) === row.updatedAt) continue;
      // Looked at once per value, opened or not: an unreadable one is reported once, not on every call.
      this.seen.set(row.name, row.updatedAt);
      try {
        this.redactor.remember([{ name: row.name, value: open(this.deps.keyring, row.name, row.ciphertext) }]);
      } catch (err) {
        this.deps.log?.error(`The secret "${row.name}" cannot be read with this server's key; it cannot be redacted either`, err);
      }
    }
  }

  /** NAME=value for a tool's process, recording each use. A secret deleted since the launch is a clear error. */
  async environment(names: string[], run?: RunIdentity): Promise<Record<string, string>> {
    // The scope is checked again at use: an admin who narrows it stops runs already going.
    if (run) await checkSecretScopes(this.deps.db, names, run);
    const env: Record<string, string> = {};
    for (const name of names) {
      if (isProviderSecret(name))
        throw new SecretValidationError(`"${name}" is a model provider's API key; provider keys are never given to tools`);
      const value = await getSecretValue(this.deps.db, this.deps.keyring, name).catch((err: Error) => {
        throw new SecretValidationError(`The secret "${name}" this run was given cannot be used: ${err.message}`);
      });
      this.redactor.remember([{ name, value }]);
      env[envNameOf(name)] = value;
    }
    return env;
  }

  /**
   * refresh([]) when the last look is older than `maxAgeMs`, so a provider key
   * added meanwhile becomes known. Never throws: redaction goes on with what
   * it knows.
   */
  async prepare(maxAgeMs = 10_000): Promise<void> {
    if (Date.now() - this.refreshedAt < maxAgeMs) return;
    await this.refresh([]).catch((err: unknown) => this.deps.log?.error("Reading the secrets to redact failed", err));
  }

  /**
   * Makes sure the redactor knows every secret's current value, not only
   * those handed out: before text a person wrote (a goal, a message to an
   * agent, a note) is stored or read by a model. Only changed rows are opened.
   */
  async prepareAll(): Promise<void> {
    const names = (await this.deps.db.secret.findMany({ select: { name: true } })).map((r) => r.name);
    await this.refresh(names);
  }

  redact<T>(value: T): T {
    return this.redactor.value(value);
  }

  text(text: string): string {
    return this.redactor.text(text);
  }
}
