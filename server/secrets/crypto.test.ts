// Sealing and opening secret values (AES-256-GCM with a key id and a version).
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { open, seal, sealedKeyId, secretKey } from "./crypto";
import { keyring, memoryKeyring } from "./key";
import { SecretDecryptError } from "./types";

const ring = memoryKeyring();

function expectDecryptError(fn: () => unknown, reason: SecretDecryptError["reason"], message: RegExp) {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SecretDecryptError);
  expect((caught as SecretDecryptError).reason).toBe(reason);
  expect((caught as Error).message).toMatch(message);
}

describe("seal and open", () => {
  it("round-trips values, unicode and long ones included", () => {
    for (const value of ["sk-test-1234567890", "ü ✓ 🔑 \n\t\"'", "x".repeat(60_000)]) {
      expect(open(ring, "a", seal(ring.current, "a", value))).toBe(value);
    }
  });

  it("writes a version, the key id and base64url parts; a fresh IV each time", () => {
    const a = seal(ring.current, "a", "same value");
    const b = seal(ring.current, "a", "same value");
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(sealedKeyId(a)).toBe(ring.current.id);
    expect(a).not.toBe(b);
    expect(a).not.toContain(Buffer.from("same value").toString("base64url"));
  });

  it("refuses a value sealed with another key, naming both key ids", () => {
    const other = memoryKeyring();
    const sealed = seal(other.current, "a", "v");
    expectDecryptError(() => open(ring, "a", sealed), "wrong_key", new RegExp(`key ${other.current.id}.*is ${ring.current.id}`));
  });

  it("refuses a forged key id with the wrong key bytes as tampered, not as garbage", () => {
    // Same id on the ring, different bytes: GCM's tag check catches it.
    const forged = keyring({ id: ring.current.id, key: crypto.randomBytes(32) }, "test");
    expectDecryptError(() => open(forged, "a", seal(ring.current, "a", "v")), "tampered", /integrity check/);
  });

  it("refuses tampered ciphertext, IV or tag", () => {
    const sealed = seal(ring.current, "a", "a value long enough");
    const parts = sealed.split(".");
    const flip = (s: string) => {
      const b = Buffer.from(s, "base64url");
      b[0] ^= 1;
      return b.toString("base64url");
    };
    for (const i of [2, 3, 4]) {
      const bad = [...parts];
      bad[i] = flip(bad[i]);
      expectDecryptError(() => open(ring, "a", bad.join(".")), "tampered", /altered/);
    }
  });

  it("refuses a ciphertext moved onto another secret's name", () => {
    expectDecryptError(() => open(ring, "b", seal(ring.current, "a", "v")), "tampered", /belongs to another secret/);
  });

  it("refuses unknown formats and truncated parts", () => {
    expectDecryptError(() => open(ring, "a", "plain text"), "format", /format/);
    expectDecryptError(() => open(ring, "a", seal(ring.current, "a", "v").replace(/^v1/, "v2")), "format", /expected v1/);
    const parts = seal(ring.current, "a", "v").split(".");
    parts[2] = parts[2].slice(0, 8);
    expectDecryptError(() => open(ring, "a", parts.join(".")), "format", /corrupt/);
  });

  it("only accepts 32-byte keys", () => {
    expect(() => secretKey(Buffer.alloc(16))).toThrow(/32 bytes, not 16/);
  });
});
