// Pairing codes and device tokens (docs/devices.md#pairing): their shapes,
// the typed forms a code is accepted in, and the constant-time comparison.
import { describe, expect, it } from "vitest";
import { DEVICE_TOKEN_LENGTH, PAIRING_ALPHABET, normalizePairingCode } from "@/lib/device-protocol";
import { digest, looksLikeDeviceToken, matchesDigest, newDeviceToken, newPairingCode } from "./tokens";

describe("pairing codes", () => {
  it("are 8 characters of an alphabet without I, O, 0 or 1, and spread over all of it", () => {
    expect(PAIRING_ALPHABET).toHaveLength(32);
    expect(PAIRING_ALPHABET).not.toMatch(/[IO01]/);
    const seen = new Set<string>();
    for (let i = 0; i < 400; i++) {
      const code = newPairingCode();
      expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      for (const c of code.replace("-", "")) seen.add(c);
    }
    expect(seen.size).toBe(32);
  });

  it.each([
    ["abcd-efgh", "ABCD-EFGH"],
    ["ABCDEFGH", "ABCD-EFGH"],
    [" abcd efgh ", "ABCD-EFGH"],
    ["ABCD-EFG", null],
    ["ABCD-EFGI", null],
    ["ABCD-EFG0", null],
    ["ABCD-EFGHJ", null],
  ])("%j reads as %j", (typed, code) => {
    expect(normalizePairingCode(typed)).toBe(code);
  });
});

describe("device tokens", () => {
  it("are rdv_ and 32 random bytes, told apart from anything else before a hash or a query", () => {
    const token = newDeviceToken();
    expect(token).toHaveLength(DEVICE_TOKEN_LENGTH);
    expect(looksLikeDeviceToken(token)).toBe(true);
    expect(newDeviceToken()).not.toBe(token);
    for (const other of ["", "rdv_", `rein_gk_${token.slice(4)}`, `${token}x`, `rdv_${"!".repeat(43)}`])
      expect(looksLikeDeviceToken(other)).toBe(false);
  });

  it("match their stored digest only", () => {
    const token = newDeviceToken();
    expect(matchesDigest(token, digest(token))).toBe(true);
    expect(matchesDigest(`${token.slice(0, -1)}A`, digest(token))).toBe(token.endsWith("A"));
    expect(matchesDigest(token, "abc")).toBe(false);
  });
});
