// Secret values kept outside the Secret table (a setting's credentials, such
// as the OTLP export headers): the same AES-256-GCM sealing and keyring as
// stored secrets. `place` names where the value lives and is bound to the
// ciphertext, so a sealed value copied elsewhere does not open.
import { open, seal } from "./crypto";
import type { SecretKeyring } from "./types";

export function sealValue(keyring: SecretKeyring, place: string, value: string): string {
  return seal(keyring.current, place, value);
}

/** The value in clear; throws SecretDecryptError when the key or the place does not match. */
export function openValue(keyring: SecretKeyring, place: string, sealed: string): string {
  return open(keyring, place, sealed);
}
