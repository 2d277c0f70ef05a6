// The secrets key: REIN_SECRET_KEY (32 bytes, base64 or hex) when set, for
// several machines sharing one database; otherwise `secret.key` in the data
// directory, generated on first use with mode 0600.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { parseSecretKey as parseKey } from "@/server/config";
import { KEY_BYTES, secretKey } from "./crypto";
import { SecretKeyError, type SecretKey, type SecretKeyring } from "./types";

export const SECRET_KEY_FILE = "secret.key";

/** Decodes 32 bytes written as 64 hex characters or as base64 / base64url. Never echoes the input. */
export function parseSecretKey(text: string, source: string): Buffer {
  // The parser lives with the other configuration: REIN_SECRET_KEY is checked at start.
  return parseKey(text, source, SecretKeyError);
}

export function keyring(current: SecretKey, source: string, others: SecretKey[] = []): SecretKeyring {
  const byId = new Map([current, ...others].map((k) => [k.id, k]));
  return { current, source, byId: (id) => byId.get(id) };
}

/** A keyring with a fresh random key (or the given one), for tests and tools. */
export function memoryKeyring(key: Buffer = crypto.randomBytes(KEY_BYTES)): SecretKeyring {
  return keyring(secretKey(key), "an in-memory key");
}

export interface LoadKeyringOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
}

export function loadSecretKeyring({ dataDir, env = process.env }: LoadKeyringOptions): SecretKeyring {
  const fromEnv = env.REIN_SECRET_KEY;
  if (fromEnv !== undefined && fromEnv !== "") {
    return keyring(secretKey(parseSecretKey(fromEnv, "REIN_SECRET_KEY")), "REIN_SECRET_KEY");
  }
  const file = path.join(dataDir, SECRET_KEY_FILE);
  return keyring(secretKey(readOrCreateKeyFile(file)), SECRET_KEY_FILE);
}

function readOrCreateKeyFile(file: string): Buffer {
  const fresh = crypto.randomBytes(KEY_BYTES);
  // Written whole to a temporary file, then linked into place: a second
  // process starting at the same time either wins the link or reads a
  // complete file, never a half-written one.
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(tmp, fresh.toString("base64") + "\n", { mode: 0o600, flag: "wx" });
    fs.chmodSync(tmp, 0o600);
    fs.linkSync(tmp, file);
    return fresh;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new SecretKeyError(`Cannot create the secrets key file ${SECRET_KEY_FILE}: ${(err as Error).message}`);
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new SecretKeyError(`Cannot read the secrets key file ${SECRET_KEY_FILE}: ${(err as Error).message}`);
  }
  return parseSecretKey(text, `The secrets key file ${SECRET_KEY_FILE}`);
}
