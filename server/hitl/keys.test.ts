import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@/test/helpers/db";
import {
  LINK_KEYS_FILE,
  LinkKeysError,
  fileKeyRing,
  newKeyRecord,
  openLinkKeyRing,
  parseLinkKeys,
  staticKeyRing,
  type LinkKeysFile,
} from "./keys";

const T0 = new Date("2030-01-01T00:00:00Z");
const DAY = 86_400_000;
const at = (days: number) => new Date(T0.getTime() + days * DAY);

const dirs: string[] = [];
function tempDir(): string {
  const d = makeTempDir("rein-link-keys-");
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const readFile = (dir: string): LinkKeysFile => JSON.parse(fs.readFileSync(path.join(dir, LINK_KEYS_FILE), "utf8"));

describe("fileKeyRing", () => {
  it("creates link-keys.json on first use, mode 0600, with a random 32-byte key, and reads it back", () => {
    const dir = tempDir();
    const ring = fileKeyRing(dir, { now: () => T0 });
    const file = path.join(dir, LINK_KEYS_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = readFile(dir);
    expect(Buffer.from(saved.current.secret, "base64url")).toHaveLength(32);
    expect(saved.current.createdAt).toBe(T0.toISOString());
    expect(saved.previous).toBeNull();
    const key = ring.signingKey();
    expect(key.kid).toBe(saved.current.kid);
    const again = fileKeyRing(dir, { now: () => T0 });
    expect(again.signingKey().secret.equals(key.secret)).toBe(true);
    expect(
      fileKeyRing(tempDir(), { now: () => T0 })
        .signingKey()
        .secret.equals(key.secret),
    ).toBe(false);
  });

  it("rotates when the current key is 30 days old, keeps the previous one for 30 days, and persists the rotation", () => {
    const dir = tempDir();
    let now = T0;
    const ring = fileKeyRing(dir, { now: () => now });
    const first = ring.signingKey();
    now = at(29.9);
    expect(ring.signingKey().kid).toBe(first.kid);
    now = at(45);
    const second = ring.signingKey();
    expect(second.kid).not.toBe(first.kid);
    const saved = readFile(dir);
    expect(saved.current.kid).toBe(second.kid);
    expect(saved.previous).toMatchObject({ kid: first.kid, retiredAt: at(45).toISOString() });
    expect(fs.statSync(path.join(dir, LINK_KEYS_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual([LINK_KEYS_FILE]);

    // The grace window counts from the retirement, not from when rotation fell due.
    expect(ring.lookup(first.kid, at(74.9))).toMatchObject({ usable: true });
    expect(ring.lookup(first.kid, at(75))).toMatchObject({ usable: false, retiredAt: at(45) });
    expect(ring.lookup(second.kid, at(1000))).toMatchObject({ usable: true });
    expect(ring.lookup("nope", at(46))).toBeNull();

    const reopened = fileKeyRing(dir, { now: () => at(46) });
    expect(reopened.signingKey().kid).toBe(second.kid);
    expect(reopened.lookup(first.kid, at(46))).toMatchObject({ usable: true });

    now = at(80);
    const third = ring.signingKey();
    expect(ring.lookup(first.kid, at(80))).toBeNull();
    expect(ring.lookup(second.kid, at(80))).toMatchObject({ usable: true });
    expect(readFile(dir).previous?.kid).toBe(second.kid);
    expect(third.kid).not.toBe(second.kid);
  });

  it("takes both periods as options", () => {
    let now = T0;
    const ring = fileKeyRing(tempDir(), { now: () => now, rotateAfterMs: 1 * DAY, graceMs: 2 * DAY });
    const first = ring.signingKey();
    now = at(1);
    expect(ring.signingKey().kid).not.toBe(first.kid);
    expect(ring.lookup(first.kid, at(2.9))?.usable).toBe(true);
    expect(ring.lookup(first.kid, at(3))?.usable).toBe(false);
  });

  it("tightens a key file that other users can read", () => {
    const dir = tempDir();
    fileKeyRing(dir, { now: () => T0 });
    const file = path.join(dir, LINK_KEYS_FILE);
    fs.chmodSync(file, 0o644);
    fileKeyRing(dir, { now: () => T0 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a damaged key file with a message naming it", () => {
    const dir = tempDir();
    const file = path.join(dir, LINK_KEYS_FILE);
    fs.writeFileSync(file, "{not json", { mode: 0o600 });
    expect(() => fileKeyRing(dir)).toThrow(LinkKeysError);
    expect(() => fileKeyRing(dir)).toThrow(/link-keys\.json is not JSON/);
    fs.writeFileSync(file, JSON.stringify({ version: 1, current: { ...newKeyRecord(T0), secret: "c2hvcnQ" } }));
    expect(() => fileKeyRing(dir)).toThrow(/current\.secret: secret must hold at least 32 bytes/);
    fs.writeFileSync(file, JSON.stringify({ version: 1 }));
    expect(() => fileKeyRing(dir)).toThrow(/current/);
  });
});

describe("REIN_LINK_KEYS", () => {
  const shared: LinkKeysFile = {
    version: 1,
    current: newKeyRecord(at(-40)),
    previous: { ...newKeyRecord(at(-80)), retiredAt: at(-10).toISOString() },
  };

  it("overrides the key file, writes nothing, and never rotates by itself", () => {
    const dir = tempDir();
    const ring = openLinkKeyRing(dir, { env: { REIN_LINK_KEYS: JSON.stringify(shared) }, now: () => T0 });
    expect(ring.signingKey().kid).toBe(shared.current.kid);
    expect(ring.lookup(shared.previous!.kid, T0)).toMatchObject({ usable: true });
    expect(ring.lookup(shared.previous!.kid, at(20))).toMatchObject({ usable: false });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("falls back to the file when unset or empty", () => {
    const dir = tempDir();
    const ring = openLinkKeyRing(dir, { env: { REIN_LINK_KEYS: "" }, now: () => T0 });
    expect(ring.signingKey().kid).toBe(readFile(dir).current.kid);
  });

  it("refuses invalid JSON or shape with a message naming the variable", () => {
    expect(() => staticKeyRing("{")).toThrow(/REIN_LINK_KEYS is not JSON/);
    expect(() => staticKeyRing(JSON.stringify({ ...shared, extra: 1 }))).toThrow(/REIN_LINK_KEYS is not a valid link key file/);
    const same = { ...shared, previous: { ...shared.current, retiredAt: T0.toISOString() } };
    expect(() => parseLinkKeys(JSON.stringify(same), "REIN_LINK_KEYS")).toThrow(/same kid/);
  });
});
