// Signing keys for resume links
// (docs/human-requests-and-policy.md#signed-resume-links): a current key and
// the previous one, rotated monthly; the previous key verifies only inside a
// grace window after it was retired.
//
// Backends:
// - the default, `link-keys.json` in the data directory (mode 0600), created
//   on first use and rewritten (atomically) when the key rotates. One process
//   owns a data directory (the data-dir lock), so the file has one writer.
// - `REIN_LINK_KEYS`: the same JSON in the environment, for several machines
//   that must verify each other's links. It never rotates by itself: the
//   operator rotates by moving `current` to `previous` (setting `retiredAt`)
//   and putting a new `current` on every machine.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { LinkKeysFile, parseLinkKeys as parseKeys } from "@/server/config";

export const LINK_KEYS_FILE = "link-keys.json";
const DAY_MS = 86_400_000;
export const DEFAULT_ROTATE_AFTER_MS = 30 * DAY_MS;
export const DEFAULT_GRACE_MS = 30 * DAY_MS;
const SECRET_BYTES = 32;

export interface LinkKey {
  kid: string;
  secret: Buffer;
  createdAt: Date;
  /** When it stopped signing; null for the current key. */
  retiredAt: Date | null;
}

export type KeyLookup = { key: LinkKey; usable: true } | { key: LinkKey; usable: false; retiredAt: Date };

export interface LinkKeyRing {
  /** The key to sign with now; rotates first when the current key is due. */
  signingKey(): LinkKey;
  /** The key with this id, and whether it may still verify at `now`; null when the ring does not hold it. */
  lookup(kid: string, now: Date): KeyLookup | null;
}

export interface KeyRingOptions {
  /** A current key older than this is retired at the next signing. */
  rotateAfterMs?: number;
  /** How long a retired key still verifies. */
  graceMs?: number;
  now?: () => Date;
}

// The file's shape and parser live with the other configuration: REIN_LINK_KEYS is checked at start.
export { LinkKeysFile };

export class LinkKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkKeysError";
  }
}

/** A fresh random key record, created at `at`. */
export function newKeyRecord(at: Date): LinkKeysFile["current"] {
  return {
    kid: crypto.randomBytes(6).toString("base64url"),
    secret: crypto.randomBytes(SECRET_BYTES).toString("base64url"),
    createdAt: at.toISOString(),
  };
}

export function parseLinkKeys(json: string, source: string): LinkKeysFile {
  return parseKeys(json, source, LinkKeysError);
}

function toKey(r: LinkKeysFile["current"], retiredAt: string | null): LinkKey {
  return {
    kid: r.kid,
    secret: Buffer.from(r.secret, "base64url"),
    createdAt: new Date(r.createdAt),
    retiredAt: retiredAt ? new Date(retiredAt) : null,
  };
}

interface RingBackend {
  /** Called with the rotated state; absent when the backend cannot rotate. */
  persist?: (state: LinkKeysFile) => void;
}

class KeyRing implements LinkKeyRing {
  private current: LinkKey;
  private previous: LinkKey | null;
  private readonly rotateAfterMs: number;
  private readonly graceMs: number;
  private readonly now: () => Date;

  constructor(
    private state: LinkKeysFile,
    private readonly backend: RingBackend,
    opts: KeyRingOptions,
  ) {
    this.rotateAfterMs = opts.rotateAfterMs ?? DEFAULT_ROTATE_AFTER_MS;
    this.graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
    this.now = opts.now ?? (() => new Date());
    this.current = toKey(state.current, null);
    this.previous = state.previous ? toKey(state.previous, state.previous.retiredAt) : null;
  }

  signingKey(): LinkKey {
    const now = this.now();
    if (this.backend.persist && now.getTime() - this.current.createdAt.getTime() >= this.rotateAfterMs) {
      this.rotate(now);
    }
    return this.current;
  }

  lookup(kid: string, now: Date): KeyLookup | null {
    if (kid === this.current.kid) return { key: this.current, usable: true };
    const prev = this.previous;
    if (!prev || kid !== prev.kid) return null;
    const retiredAt = prev.retiredAt ?? now;
    if (now.getTime() < retiredAt.getTime() + this.graceMs) return { key: prev, usable: true };
    return { key: prev, usable: false, retiredAt };
  }

  private rotate(now: Date): void {
    // The key is retired when it is replaced, not when it fell due: links it
    // signed just before then keep their whole grace window.
    const next: LinkKeysFile = {
      version: 1,
      current: newKeyRecord(now),
      previous: { ...this.state.current, retiredAt: now.toISOString() },
    };
    this.backend.persist!(next);
    this.state = next;
    this.current = toKey(next.current, null);
    this.previous = toKey(next.previous!, next.previous!.retiredAt);
  }
}

/** A ring over the given keys that rotates in memory only (tests, or keys held elsewhere). */
export function memoryKeyRing(state: LinkKeysFile, opts: KeyRingOptions = {}): LinkKeyRing {
  return new KeyRing(LinkKeysFile.parse(state), { persist: () => {} }, opts);
}

/** A ring that never rotates by itself, from JSON such as `REIN_LINK_KEYS`. */
export function staticKeyRing(json: string, opts: KeyRingOptions = {}, source = "REIN_LINK_KEYS"): LinkKeyRing {
  return new KeyRing(parseLinkKeys(json, source), {}, opts);
}

function writeKeysFile(file: string, state: LinkKeysFile): void {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The default backend: `link-keys.json` in the data directory, created with a random key on first use. */
export function fileKeyRing(dataDir: string, opts: KeyRingOptions = {}): LinkKeyRing {
  const file = path.join(dataDir, LINK_KEYS_FILE);
  const now = opts.now ?? (() => new Date());
  let state: LinkKeysFile;
  if (fs.existsSync(file)) {
    // Tighten a copy that was restored or edited with looser permissions.
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    state = parseLinkKeys(fs.readFileSync(file, "utf8"), file);
  } else {
    fs.mkdirSync(dataDir, { recursive: true });
    state = { version: 1, current: newKeyRecord(now()), previous: null };
    try {
      fs.writeFileSync(file, JSON.stringify(state, null, 2) + "\n", { mode: 0o600, flag: "wx" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      state = parseLinkKeys(fs.readFileSync(file, "utf8"), file);
    }
  }
  return new KeyRing(state, { persist: (next) => writeKeysFile(file, next) }, { ...opts, now });
}

/** `REIN_LINK_KEYS` when set (several machines share the keys), else the key file in the data directory. */
export function openLinkKeyRing(dataDir: string, opts: KeyRingOptions & { env?: Record<string, string | undefined> } = {}): LinkKeyRing {
  const { env = process.env, ...ringOpts } = opts;
  const fromEnv = env.REIN_LINK_KEYS;
  if (fromEnv && fromEnv.trim() !== "") return staticKeyRing(fromEnv, ringOpts);
  return fileKeyRing(dataDir, ringOpts);
}
