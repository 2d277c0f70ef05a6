import crypto from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryKeyRing, newKeyRecord, type LinkKeysFile } from "./keys";
import { hashResumeToken, signToken, verifyToken, type LinkPayloadFields } from "./tokens";

const T0 = new Date("2030-03-01T12:00:00Z");
const DAY = 86_400_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

function keysAt(created: Date): LinkKeysFile {
  return { version: 1, current: newKeyRecord(created), previous: null };
}

const FIELDS: LinkPayloadFields = {
  run_id: "run_1",
  node_id: "node_7",
  checkpoint_id: "cp_3",
  decision_slot: "policy",
  request_id: "req_42",
  actor_role: "approver",
  expires_at: Math.floor(at(DAY).getTime() / 1000),
};

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const decodePayload = (token: string) => JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString("utf8"));
/** A token over any object, signed with any secret. */
function signRaw(secret: Buffer, payload: unknown): string {
  const part = b64(JSON.stringify(payload));
  return `${part}.${crypto.createHmac("sha256", secret).update(part).digest("base64url")}`;
}

describe("signToken / verifyToken", () => {
  const state = keysAt(T0);
  const ring = memoryKeyRing(state, { now: () => T0 });
  const secret = Buffer.from(state.current.secret, "base64url");

  it("round trip: the payload comes back, with a version, the key id and a 128-bit nonce", () => {
    const { token, payload } = signToken(ring, FIELDS);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const res = verifyToken(ring, token, T0);
    expect(res).toEqual({ ok: true, payload });
    expect(payload).toMatchObject({ ...FIELDS, v: 1, kid: state.current.kid });
    expect(Buffer.from(payload.nonce, "base64url").length).toBeGreaterThanOrEqual(16);
    expect(signToken(ring, FIELDS).payload.nonce).not.toBe(payload.nonce);
  });

  it("a token signed with another secret under the same key id is FORGED", () => {
    const { payload } = signToken(ring, FIELDS);
    const res = verifyToken(ring, signRaw(crypto.randomBytes(32), payload), T0);
    expect(res).toEqual({ ok: false, code: "FORGED", message: "This link's signature is not valid" });
  });

  it("changing any payload field without re-signing is FORGED", () => {
    const { token, payload } = signToken(ring, FIELDS);
    const mac = token.split(".")[1];
    const edits: Record<string, unknown> = {
      v: 2,
      kid: "other",
      run_id: "run_2",
      node_id: "node_8",
      checkpoint_id: "cp_4",
      decision_slot: "ask_human",
      request_id: "req_43",
      actor_role: "viewer",
      expires_at: payload.expires_at + 86_400,
      nonce: crypto.randomBytes(16).toString("base64url"),
    };
    for (const [field, value] of Object.entries(edits)) {
      const edited = { ...payload, [field]: value };
      const res = verifyToken(ring, `${b64(JSON.stringify(edited))}.${mac}`, T0);
      expect(res, field).toMatchObject({ ok: false, code: "FORGED" });
    }
    const { nonce: _dropped, ...missing } = payload;
    expect(verifyToken(ring, `${b64(JSON.stringify(missing))}.${mac}`, T0)).toMatchObject({ code: "FORGED" });
    const extra = { ...payload, admin: true };
    expect(verifyToken(ring, `${b64(JSON.stringify(extra))}.${mac}`, T0)).toMatchObject({ code: "FORGED" });
  });

  it("a payload with a missing, extra or mistyped field is MALFORMED even when correctly signed", () => {
    const { payload } = signToken(ring, FIELDS);
    const { nonce: _n, ...missing } = payload;
    for (const bad of [
      missing,
      { ...payload, admin: true },
      { ...payload, expires_at: String(payload.expires_at) },
      { ...payload, expires_at: payload.expires_at + 0.5 },
      { ...payload, actor_role: "root" },
      { ...payload, nonce: "short" },
      { ...payload, v: 2 },
      { ...payload, run_id: "" },
    ]) {
      expect(verifyToken(ring, signRaw(secret, bad), T0), JSON.stringify(bad)).toEqual({
        ok: false,
        code: "MALFORMED",
        message: "This link is damaged or incomplete",
      });
    }
  });

  it("an expired token is refused with the time it expired", () => {
    const { token } = signToken(ring, { ...FIELDS, expires_at: Math.floor(Date.parse("2030-03-02T08:30:00Z") / 1000) });
    expect(verifyToken(ring, token, new Date("2030-03-02T08:29:59Z")).ok).toBe(true);
    expect(verifyToken(ring, token, new Date("2030-03-02T08:30:00Z"))).toEqual({
      ok: false,
      code: "EXPIRED",
      message: "This link expired at 2030-03-02 08:30 UTC",
    });
  });

  it("an unknown key id is FORGED", () => {
    const other = memoryKeyRing(keysAt(T0), { now: () => T0 });
    const { token } = signToken(other, FIELDS);
    expect(verifyToken(ring, token, T0)).toMatchObject({ ok: false, code: "FORGED" });
  });

  it("the previous key verifies inside the grace window, is RETIRED_KEY after it, and a bad signature stays FORGED", () => {
    let now = T0;
    const rotating = memoryKeyRing(keysAt(T0), { now: () => now, rotateAfterMs: 30 * DAY, graceMs: 30 * DAY });
    const far = { ...FIELDS, expires_at: Math.floor(at(365 * DAY).getTime() / 1000) };
    const old = signToken(rotating, far);
    now = at(31 * DAY);
    const fresh = signToken(rotating, far); // rotates: the first key retires now
    expect(fresh.payload.kid).not.toBe(old.payload.kid);
    expect(verifyToken(rotating, old.token, at(60 * DAY)).ok).toBe(true);
    expect(verifyToken(rotating, old.token, at(61 * DAY))).toEqual({
      ok: false,
      code: "RETIRED_KEY",
      message: "This link was signed with a key that has been retired; ask for a new link",
    });
    const forgedOld = signRaw(crypto.randomBytes(32), old.payload);
    expect(verifyToken(rotating, forgedOld, at(61 * DAY))).toMatchObject({ code: "FORGED" });
    expect(verifyToken(rotating, fresh.token, at(61 * DAY)).ok).toBe(true);
    // A second rotation drops the first key from the ring altogether.
    now = at(62 * DAY);
    signToken(rotating, far);
    expect(verifyToken(rotating, old.token, at(62 * DAY))).toMatchObject({ code: "FORGED" });
    expect(verifyToken(rotating, fresh.token, at(62 * DAY)).ok).toBe(true);
  });

  it("non-canonical and non-url base64 spellings of the same bytes are MALFORMED", () => {
    const { token } = signToken(ring, FIELDS);
    const [p, m] = token.split(".");
    // 32 bytes in base64 leave 2 unused bits in the last character.
    const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(m[42]);
    const sibling = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last ^ 1];
    const sameBytes = `${m.slice(0, 42)}${sibling}`;
    expect(Buffer.from(sameBytes, "base64url").equals(Buffer.from(m, "base64url"))).toBe(true);
    expect(verifyToken(ring, `${p}.${sameBytes}`, T0)).toMatchObject({ code: "MALFORMED" });
    const std = (s: string) => Buffer.from(s, "base64url").toString("base64");
    expect(verifyToken(ring, `${p}.${std(m)}`, T0)).toMatchObject({ ok: false });
    expect(verifyToken(ring, `${p}.${m}=`, T0)).toMatchObject({ code: "MALFORMED" });
  });

  it("junk is MALFORMED", () => {
    for (const junk of ["", ".", "a.b", "abc", `${"A".repeat(5000)}.x`, 42, null, undefined, {}]) {
      expect(verifyToken(ring, junk, T0), String(junk)).toMatchObject({ ok: false, code: "MALFORMED" });
    }
    const notJson = `${b64("not json")}.${crypto.randomBytes(32).toString("base64url")}`;
    expect(verifyToken(ring, notJson, T0)).toMatchObject({ code: "MALFORMED" });
    const noKid = signRaw(secret, { v: 1 });
    expect(verifyToken(ring, noKid, T0)).toMatchObject({ code: "MALFORMED" });
  });

  it("the stored hash is the SHA-256 of the whole token", () => {
    const { token } = signToken(ring, FIELDS);
    expect(hashResumeToken(token)).toBe(crypto.createHash("sha256").update(token).digest("hex"));
    expect(hashResumeToken(token)).not.toContain(token.split(".")[1]);
  });
});

describe("verifyToken against mutated tokens (property)", () => {
  const state = keysAt(T0);
  const ring = memoryKeyRing(state, { now: () => T0 });
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.";

  const fieldsArb = fc.record({
    run_id: fc.string({ minLength: 1, maxLength: 40 }),
    node_id: fc.string({ minLength: 1, maxLength: 40 }),
    checkpoint_id: fc.string({ minLength: 1, maxLength: 40 }),
    decision_slot: fc.constantFrom("policy", "ask_human", "replay"),
    request_id: fc.string({ minLength: 1, maxLength: 40 }),
    actor_role: fc.constantFrom("viewer" as const, "operator" as const, "approver" as const, "admin" as const),
    expires_at: fc.integer({ min: Math.floor(T0.getTime() / 1000) + 1, max: 2 ** 40 }),
  });

  type Mutate = (token: string) => string;
  const pos = fc.nat({ max: 10_000 });
  const std = (s: string) => Buffer.from(s, "base64url").toString("base64");
  const mutationArb: fc.Arbitrary<[string, Mutate]> = fc.oneof(
    fc.tuple(pos, fc.integer({ min: 0, max: 7 })).map(([i, bit]): [string, Mutate] => [
      "bit flip",
      (t) => {
        const k = i % t.length;
        return t.slice(0, k) + String.fromCharCode(t.charCodeAt(k) ^ (1 << bit)) + t.slice(k + 1);
      },
    ]),
    fc
      .tuple(pos, fc.oneof(fc.constantFrom(...ALPHABET), fc.string({ minLength: 1, maxLength: 4 })))
      .map(([i, s]): [string, Mutate] => ["insertion", (t) => t.slice(0, i % (t.length + 1)) + s + t.slice(i % (t.length + 1))]),
    fc
      .tuple(pos, fc.integer({ min: 1, max: 8 }))
      .map(([i, n]): [string, Mutate] => ["deletion", (t) => t.slice(0, i % t.length) + t.slice((i % t.length) + n)]),
    pos.map((i): [string, Mutate] => ["truncation", (t) => t.slice(0, i % t.length)]),
    fc.constantFrom<[string, Mutate]>(
      ["segment swap", (t) => t.split(".").reverse().join(".")],
      ["payload twice", (t) => `${t.split(".")[0]}.${t.split(".")[0]}`],
      ["mac twice", (t) => `${t.split(".")[1]}.${t.split(".")[1]}`],
      ["third segment", (t) => `${t}.${t.split(".")[1]}`],
      ["no separator", (t) => t.replace(".", "")],
      ["leading separator", (t) => `.${t}`],
      ["standard base64", (t) => t.split(".").map(std).join(".")],
      [
        "standard base64 unpadded",
        (t) =>
          t
            .split(".")
            .map((s) => std(s).replace(/=+$/, ""))
            .join("."),
      ],
      [
        "padded base64url",
        (t) =>
          t
            .split(".")
            .map((s) => s + "=".repeat((4 - (s.length % 4)) % 4))
            .join("."),
      ],
      ["mac in hex", (t) => `${t.split(".")[0]}.${Buffer.from(t.split(".")[1], "base64url").toString("hex")}`],
      ["whole token re-encoded", (t) => Buffer.from(t).toString("base64url")],
      ["upper case", (t) => t.toUpperCase()],
      ["url-encoded", (t) => encodeURIComponent(t).replace(/-/g, "%2D")],
      ["trailing newline", (t) => `${t}\n`],
    ),
    pos.map((i): [string, Mutate] => [
      "unused bits of the last character",
      (t) => {
        const [p, m] = t.split(".");
        const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        const c = a[a.indexOf(m[m.length - 1]) ^ ((i % 3) + 1)];
        return `${p}.${m.slice(0, -1)}${c}`;
      },
    ]),
    fc
      .tuple(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.boolean(),
        fc.constantFrom(
          "v",
          "kid",
          "run_id",
          "node_id",
          "checkpoint_id",
          "decision_slot",
          "request_id",
          "actor_role",
          "expires_at",
          "nonce",
          "extra",
        ),
        fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constantFrom("admin", "viewer")),
        fc.boolean(),
      )
      .map(([key, keepKid, field, value, drop]): [string, Mutate] => [
        "payload edit re-signed with a random key",
        (t) => {
          const payload = decodePayload(t);
          if (drop) delete payload[field];
          else payload[field] = value;
          if (!keepKid && field !== "kid") payload.kid = crypto.randomBytes(4).toString("base64url");
          return signRaw(Buffer.from(key), payload);
        },
      ]),
  );

  it("accepts none of 10,000 random mutations of a valid token", () => {
    let checked = 0;
    fc.assert(
      fc.property(fieldsArb, mutationArb, (fields, [name, mutate]) => {
        const { token } = signToken(ring, fields);
        expect(verifyToken(ring, token, T0).ok).toBe(true);
        const mutated = mutate(token);
        if (mutated === token) return; // a few re-encodings are the identity; nothing to test
        checked++;
        const res = verifyToken(ring, mutated, T0);
        expect(res.ok, `${name}: ${JSON.stringify(mutated)}`).toBe(false);
      }),
      { numRuns: 10_000 },
    );
    expect(checked).toBeGreaterThan(9_000);
  });
});
