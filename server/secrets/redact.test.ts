// Masking for display and redaction of secret values from text.
import { describe, expect, it } from "vitest";
import { mask, redact } from "./redact";

const KEY = { name: "OPENAI", value: "sk-proj-Abc123/def+456=ghi?jkl&xyz9" };

describe("mask", () => {
  it("shows a short prefix and at most the last 4 characters", () => {
    expect(mask("sk-proj-0123456789abcdef")).toBe("sk-…cdef");
    expect(mask("0123456789abcdefWXYZ")).toBe("…WXYZ");
    expect(mask("short-key-1")).toBe("••••");
    expect(mask("")).toBe("••••");
    for (const v of ["sk-ant-api03-" + "q".repeat(40) + "TAIL", "abcdefghijklmnop"]) {
      const shown = mask(v)
        .replace(/^[a-z]{2,4}-/, "")
        .replace("…", "");
      expect(shown.length).toBeLessThanOrEqual(4);
      expect(v.endsWith(shown)).toBe(true);
    }
  });
});

describe("redact", () => {
  it("replaces the plain value wherever it appears", () => {
    expect(redact(`key=${KEY.value}; again ${KEY.value}.`, [KEY])).toBe("key=[secret:OPENAI]; again [secret:OPENAI].");
  });

  it("replaces URL-encoded forms (upper- or lower-case escapes, + for spaces)", () => {
    const enc = encodeURIComponent(KEY.value);
    expect(enc).not.toBe(KEY.value);
    expect(redact(`https://x.test/?k=${enc}&q=1`, [KEY])).toBe("https://x.test/?k=[secret:OPENAI]&q=1");
    expect(redact(`k=${enc.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`, [KEY])).toBe("k=[secret:OPENAI]");
    const spaced = { name: "S", value: "pass phrase with spaces" };
    expect(redact("p=pass+phrase+with+spaces&x=1", [spaced])).toBe("p=[secret:S]&x=1");
  });

  it("replaces base64 and base64url forms, also inside a longer encoded payload", () => {
    const b64 = Buffer.from(KEY.value).toString("base64");
    expect(redact(`token ${b64}`, [KEY])).not.toContain(b64.slice(0, 20));
    expect(redact(`token ${b64}`, [KEY])).toContain("[secret:OPENAI]");
    expect(redact(`t=${Buffer.from(KEY.value).toString("base64url")}`, [KEY])).toContain("[secret:OPENAI]");
    // HTTP basic auth: the value is base64-encoded after "user:", at any alignment.
    for (const user of ["u", "us", "use"]) {
      const header = `Authorization: Basic ${Buffer.from(`${user}:${KEY.value}`).toString("base64")}`;
      const out = redact(header, [KEY]);
      expect(out, user).toContain("[secret:OPENAI]");
      // What is left of the encoded value is at most the chars shared with its neighbours.
      expect(out.replace(/^Authorization: Basic /, "").replace("[secret:OPENAI]", "").length).toBeLessThanOrEqual(8);
    }
  });

  it("replaces the JSON-escaped form", () => {
    const quoted = { name: "Q", value: 'pa"ss\\word-123456' };
    const json = JSON.stringify({ env: { PASSWORD: quoted.value } });
    expect(redact(json, [quoted])).toBe('{"env":{"PASSWORD":"[secret:Q]"}}');
  });

  it("names each secret, prefers the longest match, and never re-matches a replacement", () => {
    const a = { name: "A", value: "alpha-secret-value" };
    const b = { name: "B", value: "alpha-secret-value-longer" };
    const c = { name: "secret", value: "secret" };
    expect(redact("x alpha-secret-value-longer y alpha-secret-value z", [a, b])).toBe("x [secret:B] y [secret:A] z");
    expect(redact("a secret here", [c])).toBe("a [secret:secret] here");
  });

  it("leaves text without secrets alone and ignores empty values", () => {
    expect(redact("nothing to see", [KEY, { name: "E", value: "" }])).toBe("nothing to see");
    expect(redact("nothing to see", [])).toBe("nothing to see");
  });
});
