// Where the secrets key comes from: REIN_SECRET_KEY or a generated key file.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { open, seal } from "./crypto";
import { SECRET_KEY_FILE, loadSecretKeyring, parseSecretKey } from "./key";
import { SecretKeyError } from "./types";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-secret-key-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the key file", () => {
  it("is created on first use with mode 0600 and reused afterwards", () => {
    const first = loadSecretKeyring({ dataDir: dir, env: {} });
    const file = path.join(dir, SECRET_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64")).toEqual(first.current.key);
    const second = loadSecretKeyring({ dataDir: dir, env: {} });
    expect(second.current.id).toBe(first.current.id);
    expect(open(second, "n", seal(first.current, "n", "v"))).toBe("v");
    expect(fs.readdirSync(dir)).toEqual([SECRET_KEY_FILE]);
  });

  it("a corrupt key file is a clear error naming the file, not a new key", () => {
    fs.writeFileSync(path.join(dir, SECRET_KEY_FILE), "not a key\n");
    expect(() => loadSecretKeyring({ dataDir: dir, env: {} })).toThrow(SecretKeyError);
    expect(() => loadSecretKeyring({ dataDir: dir, env: {} })).toThrow(/secrets key file secret\.key must hold 32 bytes/);
    expect(fs.readFileSync(path.join(dir, SECRET_KEY_FILE), "utf8")).toBe("not a key\n");
  });

  it("an unwritable data directory is a clear error", () => {
    expect(() => loadSecretKeyring({ dataDir: path.join(dir, "missing", "deeper"), env: {} })).toThrow(
      /Cannot create the secrets key file/,
    );
  });
});

describe("REIN_SECRET_KEY", () => {
  const key = crypto.randomBytes(32);

  it("accepts 32 bytes as base64, base64url or hex, and wins over the key file", () => {
    for (const text of [
      key.toString("base64"),
      key.toString("base64url"),
      key.toString("hex"),
      key.toString("hex").toUpperCase(),
      ` ${key.toString("base64")}\n`,
    ]) {
      const ring = loadSecretKeyring({ dataDir: dir, env: { REIN_SECRET_KEY: text } });
      expect(ring.current.key).toEqual(key);
      expect(ring.source).toBe("REIN_SECRET_KEY");
    }
    expect(fs.existsSync(path.join(dir, SECRET_KEY_FILE))).toBe(false);
  });

  it("refuses anything else with a clear error that does not echo the value", () => {
    const bad = [
      "hunter2-but-not-a-key",
      crypto.randomBytes(16).toString("base64"),
      crypto.randomBytes(33).toString("hex"),
      "z".repeat(64),
      key.toString("base64").slice(0, -2) + "!!",
    ];
    for (const text of bad) {
      let caught: unknown;
      try {
        loadSecretKeyring({ dataDir: dir, env: { REIN_SECRET_KEY: text } });
      } catch (err) {
        caught = err;
      }
      expect(caught, text).toBeInstanceOf(SecretKeyError);
      const message = (caught as Error).message;
      expect(message).toMatch(/^REIN_SECRET_KEY must hold 32 bytes as base64 \(44 characters\) or hex \(64 characters\)/);
      expect(message).toMatch(/openssl rand -base64 32/);
      expect(message).not.toContain(text);
    }
  });

  it("reports how many bytes a wrong-length key decodes to", () => {
    expect(() => parseSecretKey(crypto.randomBytes(16).toString("base64"), "K")).toThrow(/24 characters that decode to 16 bytes/);
  });

  it("an empty REIN_SECRET_KEY falls back to the key file", () => {
    const ring = loadSecretKeyring({ dataDir: dir, env: { REIN_SECRET_KEY: "" } });
    expect(ring.source).toBe(SECRET_KEY_FILE);
  });
});
