// The key Rein signs its agent cards with (docs/a2a.md#signed-cards): an
// Ed25519 key made once, on first use, and kept in the settings table sealed
// with the secrets' keyring, like the other credentials Rein keeps in
// settings. Every process of a deployment reads the same key. Only the public
// half ever leaves this file: as a JWKS, and as the signatures it makes.
import crypto from "node:crypto";
import type { Db } from "@/server/db";
import { openValue, sealValue, type SecretKeyring } from "@/server/secrets";

export const A2A_SIGNING_KEY_SETTING = "a2a.signing-key";
const PLACE = "setting:a2a.signing-key";

export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

export interface SigningKey {
  kid: string;
  privateKey: crypto.KeyObject;
  jwk: PublicJwk;
}

interface StoredKey {
  kid: string;
  /** The PKCS#8 private key, PEM, sealed. */
  sealed: string;
}

function keyOf(kid: string, privateKey: crypto.KeyObject): SigningKey {
  const { x } = crypto.createPublicKey(privateKey).export({ format: "jwk" });
  return { kid, privateKey, jwk: { kty: "OKP", crv: "Ed25519", x: String(x), kid, alg: "EdDSA", use: "sig" } };
}

function fresh(keyring: SecretKeyring): { key: SigningKey; stored: StoredKey } {
  const { privateKey } = crypto.generateKeyPairSync("ed25519");
  const kid = `rein-a2a-${crypto.randomBytes(6).toString("hex")}`;
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  return { key: keyOf(kid, privateKey), stored: { kid, sealed: sealValue(keyring, PLACE, pem) } };
}

function opened(keyring: SecretKeyring, value: string): SigningKey {
  const stored = JSON.parse(value) as StoredKey;
  return keyOf(stored.kid, crypto.createPrivateKey(openValue(keyring, PLACE, stored.sealed)));
}

/** Rein's card-signing key, made and stored on first use; the first process to store one wins. */
export class CardSigner {
  private key: Promise<SigningKey> | null = null;

  constructor(private readonly deps: { db: Db; keyring: SecretKeyring }) {}

  current(): Promise<SigningKey> {
    this.key ??= this.load().catch((err) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  private async load(): Promise<SigningKey> {
    const { db, keyring } = this.deps;
    const row = await db.setting.findUnique({ where: { key: A2A_SIGNING_KEY_SETTING }, select: { value: true } });
    if (row) return opened(keyring, row.value);
    const made = fresh(keyring);
    // Another process may store its key at the same moment: whichever row is there is the key.
    await db.setting.create({ data: { key: A2A_SIGNING_KEY_SETTING, value: JSON.stringify(made.stored) } }).catch(async (err: unknown) => {
      if (!(await db.setting.findUnique({ where: { key: A2A_SIGNING_KEY_SETTING }, select: { key: true } }))) throw err;
    });
    const stored = await db.setting.findUniqueOrThrow({ where: { key: A2A_SIGNING_KEY_SETTING }, select: { value: true } });
    return opened(keyring, stored.value);
  }

  async jwks(): Promise<{ keys: PublicJwk[] }> {
    return { keys: [(await this.current()).jwk] };
  }
}
