// DES against published vectors and vectors from another implementation
// (OpenSSL's legacy DES-ECB), and VNC's key rule (bit-reversed password bytes).
import { describe, expect, it } from "vitest";
import { desEncryptBlock, vncAuthResponse, vncKey } from "./des";

const hex = (s: string) => Buffer.from(s, "hex");
const enc = (key: string, block: string) => desEncryptBlock(hex(key), hex(block)).toString("hex");

describe("DES", () => {
  it("encrypts the textbook and NIST examples", () => {
    // The worked example of Grabbe's "The DES Algorithm Illustrated".
    expect(enc("133457799bbcdff1", "0123456789abcdef")).toBe("85e813540f0ab405");
    // FIPS 81's ECB example ("Now is t").
    expect(enc("0123456789abcdef", "4e6f772069732074")).toBe("3fa40e8a984d4815");
    // NBS special publication 500-20 style vectors (weak and all-ones keys, a parity-only key).
    expect(enc("0000000000000000", "0000000000000000")).toBe("8ca64de9c1b123a7");
    expect(enc("ffffffffffffffff", "ffffffffffffffff")).toBe("7359b2163e4edc58");
    expect(enc("3000000000000000", "1000000000000001")).toBe("958e6e627a05557b");
    expect(enc("0e329232ea6d0d73", "8787878787878787")).toBe("0000000000000000");
  });

  it("agrees with OpenSSL on random keys and blocks", () => {
    expect(enc("4ec56bc3479d2e63", "4ffe9a426cbb852f")).toBe("1bab96b8a4ed742f");
    expect(enc("f1787d1fbc237e58", "babdda5d6f5141fd")).toBe("0d26d3e3645b64fa");
    expect(enc("0675451388156a45", "53f904db3ff9eba2")).toBe("71594abba11bbd72");
  });

  it("ignores the parity bit of each key byte, as DES does", () => {
    expect(enc("123557799abcdef0", "0123456789abcdef")).toBe(enc("133457799bbcdff1", "0123456789abcdef"));
  });

  it("refuses keys and blocks that are not 8 bytes", () => {
    expect(() => desEncryptBlock(Buffer.alloc(7), Buffer.alloc(8))).toThrow(/8 bytes, not 7/);
    expect(() => desEncryptBlock(Buffer.alloc(8), Buffer.alloc(9))).toThrow(/8 bytes, not 9/);
  });
});

describe("VNC authentication", () => {
  it("reverses the bits of each password byte and pads or cuts it to 8 bytes", () => {
    expect(vncKey("s3cret!x").toString("hex")).toBe("ceccc64ea62e841e");
    expect(vncKey("ab").toString("hex")).toBe("8646000000000000");
    // Only the first 8 characters count.
    expect(vncKey("s3cret!x-and-more")).toEqual(vncKey("s3cret!x"));
  });

  it("answers a challenge by encrypting each half with the password's key", () => {
    expect(vncAuthResponse("s3cret!x", hex("00112233445566778899aabbccddeeff")).toString("hex")).toBe("a0faa1cdcf150bc5f99cdb4d271bf6d7");
    expect(vncAuthResponse("ab", hex("0f0e0d0c0b0a09080706050403020100")).toString("hex")).toBe("28a668fec0c918683e5acc96b1a81263");
    expect(() => vncAuthResponse("ab", Buffer.alloc(8))).toThrow(/16 bytes, not 8/);
  });
});
