// SecretsProvider (I7), SPEC section 5: secrets encrypted at rest with
// AES-256-GCM, a key from REIN_SECRET_KEY or a generated key file, values
// masked for display and redacted from traces, events, logs and prompts.
// Other code imports only this file.
export { putSecret, getSecretValue, listSecrets, deleteSecret, MAX_SECRET_BYTES, type PutSecretInput } from "./store";
export { loadSecretKeyring, memoryKeyring, parseSecretKey, SECRET_KEY_FILE, type LoadKeyringOptions } from "./key";
export { mask, redact } from "./redact";
export {
  SecretKeyError,
  SecretDecryptError,
  SecretNotFoundError,
  SecretValidationError,
  type SecretKey,
  type SecretKeyring,
  type SecretSummary,
  type NamedSecret,
} from "./types";
