// SecretsProvider (I7, docs/secrets.md): the shapes and the errors.

/** A 32-byte AES-256 key and its id (derived from the key, safe to store and show). */
export interface SecretKey {
  readonly id: string;
  readonly key: Buffer;
}

/** The key new secrets are sealed with, and every key that may open a stored one. */
export interface SecretKeyring {
  readonly current: SecretKey;
  byId(id: string): SecretKey | undefined;
  /** Where the current key came from, for messages: "REIN_SECRET_KEY" or the key file's name. */
  readonly source: string;
}

/** What may be shown about a secret: never its value. */
export interface SecretSummary {
  name: string;
  keyId: string;
  createdById: string | null;
  createdAt: Date;
  updatedAt: Date;
  lastUsedAt: Date | null;
}

/** A secret value with its name, for redaction. */
export interface NamedSecret {
  name: string;
  value: string;
}

/** The key material is missing, malformed or unreadable. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretKeyError";
  }
}

/** A stored secret cannot be opened: sealed with another key, altered, or not in a known format. */
export class SecretDecryptError extends Error {
  constructor(
    message: string,
    readonly reason: "wrong_key" | "tampered" | "format",
  ) {
    super(message);
    this.name = "SecretDecryptError";
  }
}

export class SecretNotFoundError extends Error {
  constructor(readonly secretName: string) {
    super(`No secret named "${secretName}"`);
    this.name = "SecretNotFoundError";
  }
}

export class SecretValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretValidationError";
  }
}
