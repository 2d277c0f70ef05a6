import { describe, expect, it } from "vitest";
import { originRefusal } from "./origin";

const PUBLIC = "https://rein.example.com";

describe("originRefusal", () => {
  it.each([
    ["no Origin (a program)", { host: "rein.example.com" }, PUBLIC, true],
    ["Rein's public URL", { host: "10.0.0.5:3000", origin: PUBLIC }, PUBLIC, true],
    ["loopback, same host and port", { host: "localhost:3000", origin: "http://localhost:3000" }, undefined, true],
    ["IPv4 loopback", { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }, PUBLIC, true],
    ["IPv6 loopback", { host: "[::1]:3000", origin: "http://[::1]:3000" }, undefined, true],
    ["another site", { host: "localhost:3000", origin: "https://evil.example" }, PUBLIC, false],
    ["another port of the loopback host", { host: "localhost:3000", origin: "http://localhost:3001" }, undefined, false],
    [
      "DNS rebinding: the attacker's name as Host and Origin",
      { host: "evil.example:3000", origin: "http://evil.example:3000" },
      PUBLIC,
      false,
    ],
    ["DNS rebinding without a public URL", { host: "evil.example", origin: "http://evil.example" }, undefined, false],
    ["the public URL's host over another scheme", { host: "rein.example.com", origin: "http://rein.example.com" }, PUBLIC, false],
    ["an opaque origin", { host: "localhost:3000", origin: "null" }, undefined, false],
    ["not a URL", { host: "localhost:3000", origin: "localhost:3000" }, undefined, false],
    ["a file page", { host: "localhost:3000", origin: "file://" }, undefined, false],
  ] as const)("%s", (_what, headers, publicUrl, allowed) => {
    const refusal = originRefusal({ headers: { ...headers } }, publicUrl);
    if (allowed) expect(refusal).toBeNull();
    else expect(refusal).toMatch(/came from a page at/);
  });
});
