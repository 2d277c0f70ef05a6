// AES-256-GCM sealing of secret values. The stored form is
//   v1.<keyId>.<iv>.<ciphertext>.<tag>   (base64url parts)
// with a fresh random 12-byte IV per seal and a 16-byte auth tag. The secret's
// name is bound as additional authenticated data, so a ciphertext copied onto
// another secret's row does not open.
import crypto from "node:crypto";
import { SecretDecryptError, type SecretKey, type SecretKeyring } from "./types";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** A stable id for a key that reveals nothing usable about it. */
export function keyIdOf(key: Buffer): string {
  return crypto.createHash("sha256").update("rein-secret-key-id\0").update(key).digest("base64url").slice(0, 12);
}

export function secretKey(key: Buffer): SecretKey {
  if (key.length !== KEY_BYTES) throw new RangeError(`A secret key has ${KEY_BYTES} bytes, not ${key.length}`);
  return { id: keyIdOf(key), key };
}

function aad(name: string): Buffer {
  return Buffer.from(`rein-secret\0${name}`, "utf8");
}

export function seal(key: SecretKey, name: string, value: string): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(name));
  const data = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, key.id, iv.toString("base64url"), data.toString("base64url"), tag.toString("base64url")].join(".");
}

/** The key id a sealed value names, or null when it is not in a known format. */
export function sealedKeyId(sealed: string): string | null {
  const parts = sealed.split(".");
  return parts.length === 5 && parts[0] === VERSION ? parts[1] : null;
}

export function open(keyring: SecretKeyring, name: string, sealed: string): string {
  const parts = sealed.split(".");
  if (parts[0] !== VERSION || parts.length !== 5) {
    throw new SecretDecryptError(`The secret "${name}" is not in a format this version of Rein reads (expected ${VERSION})`, "format");
  }
  const [, keyId, ivText, dataText, tagText] = parts;
  const key = keyring.byId(keyId);
  if (!key) {
    throw new SecretDecryptError(
      `The secret "${name}" was encrypted with key ${keyId}, but the key in use (${keyring.source}) is ${keyring.current.id}. ` +
        `Start Rein with the key it was stored with, or store the secret again.`,
      "wrong_key",
    );
  }
  const iv = Buffer.from(ivText, "base64url");
  const tag = Buffer.from(tagText, "base64url");
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretDecryptError(`The secret "${name}" is corrupt: its IV or auth tag has the wrong length`, "format");
  }
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(name));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(Buffer.from(dataText, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretDecryptError(
      `The secret "${name}" failed its integrity check: the stored ciphertext was altered or belongs to another secret`,
      "tampered",
    );
  }
}
