// Redaction of terminal output that may cut a value across chunks, and of
// JSON-like values (tool outputs, event payloads).
import { describe, expect, it } from "vitest";
import { SecretRedactor } from "./redactor";
import { StreamRedactor } from "./stream";

const TOKEN = { name: "DEPLOY_TOKEN", value: "dpl-7Hq2-zX9v-Lm4K" };

/** Feeds `text` in chunks cut at every given offset; returns what came out. */
function through(r: StreamRedactor, text: string, cuts: number[]): string {
  let out = "";
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    out += r.push(text.slice(at, cut));
    at = cut;
  }
  return out + r.flush();
}

describe("StreamRedactor", () => {
  it("redacts a value cut at every possible place between two chunks", () => {
    const text = `token=${TOKEN.value}\r\n$ `;
    for (let cut = 0; cut <= text.length; cut++) {
      const out = through(new StreamRedactor([TOKEN]), text, [cut]);
      expect(out, `cut at ${cut}`).toBe("token=[secret:DEPLOY_TOKEN]\r\n$ ");
    }
  });

  it("redacts a value arriving one character at a time, and its base64 form", () => {
    const text = `a ${TOKEN.value} b ${Buffer.from(TOKEN.value).toString("base64")} c`;
    const out = through(
      new StreamRedactor([TOKEN]),
      text,
      [...text].map((_, i) => i),
    );
    expect(out).not.toContain(TOKEN.value);
    expect(out).not.toContain(Buffer.from(TOKEN.value).toString("base64").slice(0, 12));
    expect(out.match(/\[secret:DEPLOY_TOKEN\]/g)).toHaveLength(2);
  });

  it("holds back only a tail that could begin a value, and flush releases it", () => {
    const r = new StreamRedactor([TOKEN]);
    expect(r.push("building... ")).toBe("building... ");
    expect(r.holding).toBe(false);
    expect(r.push("dpl-7H")).toBe("");
    expect(r.holding).toBe(true);
    expect(r.flush()).toBe("dpl-7H");
    expect(r.push("dpl-7Hxx")).toBe("dpl-7Hxx");
  });

  it("passes text through untouched until it knows a value, and learns new ones", () => {
    const r = new StreamRedactor();
    expect(r.push(TOKEN.value)).toBe(TOKEN.value);
    r.remember([TOKEN]);
    expect(r.push(`x ${TOKEN.value} y`)).toBe("x [secret:DEPLOY_TOKEN] y");
  });
});

describe("SecretRedactor", () => {
  it("redacts every string and key of a JSON-like value, leaving its shape", () => {
    const r = new SecretRedactor();
    const output = { exitCode: 0, output: `token=${TOKEN.value}\n`, lines: [TOKEN.value, 3, null], [TOKEN.value]: true };
    expect(r.value(output)).toBe(output); // knows nothing yet: the same object
    r.remember([TOKEN]);
    expect(r.value(output)).toEqual({
      exitCode: 0,
      output: "token=[secret:DEPLOY_TOKEN]\n",
      lines: ["[secret:DEPLOY_TOKEN]", 3, null],
      "[secret:DEPLOY_TOKEN]": true,
    });
    expect(JSON.stringify(r.value(output))).not.toContain(TOKEN.value);
  });

  it("keeps an old value after a new one is remembered for the same name", () => {
    const r = new SecretRedactor();
    r.remember([TOKEN]);
    r.remember([{ name: TOKEN.name, value: "dpl-rotated-value-0001" }]);
    expect(r.size).toBe(2);
    expect(r.text(`${TOKEN.value} dpl-rotated-value-0001`)).toBe("[secret:DEPLOY_TOKEN] [secret:DEPLOY_TOKEN]");
  });
});
