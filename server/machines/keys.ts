// A machine's key pair and host key fingerprints (docs/desktops-and-tiers.md#t3-remote-machines):
// Rein makes an ed25519 pair per machine, keeps the private key sealed with
// the secrets keyring bound to the machine's id and field (a sealed value
// copied to another machine's row does not open), and shows the public key.
import crypto from "node:crypto";
import ssh2 from "ssh2";
import { openValue, sealValue, type SecretKeyring } from "@/server/secrets";

const place = (machineId: string) => `machine:${machineId}:privateKey`;

export interface MachineKeyPair {
  /** ssh-ed25519 AAAA… rein-<name>: what the machine's authorized_keys gets. */
  publicKey: string;
  /** Sealed for this machine's row; never shown. */
  privateKeySealed: string;
}

export function makeMachineKeyPair(keyring: SecretKeyring, machineId: string, name: string): MachineKeyPair {
  const pair = ed25519KeyPair(`rein-${name}`);
  return { publicKey: pair.public.trim(), privateKeySealed: sealValue(keyring, place(machineId), pair.private) };
}

/**
 * An ed25519 key pair in OpenSSH form that the SSH client reads back. The
 * library's generator makes, about 3 times in 1,000, a private key its own
 * parser then refuses as malformed: such a pair is made again.
 */
export function ed25519KeyPair(comment?: string): { public: string; private: string } {
  for (let attempt = 0; ; attempt++) {
    const pair = ssh2.utils.generateKeyPairSync("ed25519", comment ? { comment } : {});
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error) || attempt >= 20) return pair;
  }
}

/** The private key in OpenSSH form, for one connection; throws SecretDecryptError on a foreign or damaged value. */
export function openPrivateKey(keyring: SecretKeyring, machineId: string, sealed: string): string {
  return openValue(keyring, place(machineId), sealed);
}

/** The public key line for a new comment (a renamed machine): the key itself stays. */
export function withComment(publicKey: string, name: string): string {
  const [type, blob] = publicKey.split(" ");
  return `${type} ${blob} rein-${name}`;
}

/** SHA256:<base64, no padding> of a host key's wire form: what `ssh-keygen -lf` prints. */
export function fingerprintOf(hostKey: Buffer): string {
  return `SHA256:${crypto.createHash("sha256").update(hostKey).digest("base64").replace(/=+$/, "")}`;
}

/** Compares two fingerprints in constant time. */
export function sameFingerprint(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
