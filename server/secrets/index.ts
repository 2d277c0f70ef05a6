// SecretsProvider (I7, docs/secrets.md): secrets encrypted at rest with
// AES-256-GCM, a key from REIN_SECRET_KEY or a generated key file, values
// masked for display and redacted from traces, events, logs and prompts;
// injected into tools' processes at the tool boundary (tool-secrets.ts).
// Other code imports only this file.
export { putSecret, getSecretValue, listSecrets, deleteSecret, MAX_SECRET_BYTES, type PutSecretInput } from "./store";
export { loadSecretKeyring, memoryKeyring, parseSecretKey, SECRET_KEY_FILE, type LoadKeyringOptions } from "./key";
export { mask, redact, redactor } from "./redact";
export { sealValue, openValue } from "./sealed";
export { SecretRedactor } from "./redactor";
export { StreamRedactor } from "./stream";
export { envNameOf, checkEnvName } from "./env-names";
export { ToolSecrets, checkToolSecretNames, isProviderSecret, PROVIDER_SECRET_PREFIX, MAX_RUN_SECRETS } from "./tool-secrets";
export {
  listToolSecrets,
  listSecretNamesFor,
  setToolSecret,
  setSecretScope,
  removeToolSecret,
  SetSecretInput,
  SetScopeInput,
  SecretName,
  type SecretActor,
  type ToolSecretView,
} from "./manage";
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
export { TerminalRedactor } from "./terminal";
export { SecretScopeInput, checkSecretScopes, scopeOf, type RunIdentity, type SecretScope } from "./scope";
