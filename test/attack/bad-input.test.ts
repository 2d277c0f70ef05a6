// Attack suite, issue class 11: bad input gets a 4xx with a clear message,
// never a 500 or a crash, and nothing is stored. Sent to a real server.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretRedactor } from "@/server/secrets";
import type { TestDb } from "../helpers/db";
import { serverWithToken, type ServerProcess, type ServerWithToken } from "../helpers/server-process";

let rein: ServerWithToken;
let t: TestDb;
let server: ServerProcess;
let token: string;

beforeAll(async () => {
  rein = await serverWithToken();
  ({ t, server, token } = rein);
}, 60_000);

afterAll(async () => {
  await rein?.stop();
});

function send(path: string, init: { method?: string; body?: string } = {}) {
  return fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.body,
  });
}

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

describe("bad input to a real server", () => {
  it.each([
    ["malformed percent-encoding in a REST path", "/api/v1/runs/%E0%A4%A", {}],
    ["a lone surrogate in a run's goal (REST)", "/api/v1/runs", { method: "POST", body: '{"agent":"demo-coder","goal":"a \\ud800 b"}' }],
    [
      "JSON nested 20,000 deep in a REST body",
      "/api/v1/runs",
      { method: "POST", body: `{"agent":"demo-coder","goal":"g","scenario":${deep(20_000)}}` },
    ],
    [
      "JSON nested 3,000 deep in a scenario's tool arguments",
      "/api/v1/runs",
      {
        method: "POST",
        body: `{"agent":"demo-coder","goal":"g","scenario":[{"toolCalls":[{"tool":"list_files","args":{"a":${deep(3000)}}}]},{"text":"x"}]}`,
      },
    ],
    [
      "a lone surrogate in a run's goal (tRPC)",
      "/api/trpc/runs.create",
      { method: "POST", body: '{"json":{"agent":"demo-coder","goal":"a \\udc00 b"}}' },
    ],
    [
      "JSON nested 20,000 deep in a tRPC body",
      "/api/trpc/runs.create",
      { method: "POST", body: `{"json":{"agent":"demo-coder","goal":"g","scenario":${deep(20_000)}}}` },
    ],
  ])("%s: a 4xx with a clear message, nothing stored", async (_name, path, init) => {
    const before = await t.db.run.count();
    const res = await send(path, init);
    const text = await res.text();
    expect(res.status, text).toBeGreaterThanOrEqual(400);
    expect(res.status, text).toBeLessThan(500);
    expect(text).toMatch(/percent-encoding|Unicode|nested more than|not valid/i);
    expect(await t.db.run.count()).toBe(before);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("a /vnc/ websocket path with malformed percent-encoding is refused, and the server lives on", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, "127.0.0.1", () => {
        socket.write(
          "GET /vnc/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
        );
      });
      let got = "";
      socket.on("data", (d) => (got += d.toString()));
      socket.on("close", () => resolve(got));
      socket.on("error", reject);
      setTimeout(() => socket.destroy(), 5000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});

describe("the secret redactor", () => {
  it("redacts a value nested 3,000 deep without overflowing the stack", () => {
    const r = new SecretRedactor();
    r.remember([{ name: "TOKEN", value: "s3cr3t-value-123" }]);
    let value: unknown = { leaf: "s3cr3t-value-123" };
    for (let i = 0; i < 3000; i++) value = [value];
    const out = JSON.stringify(r.value(value));
    expect(out).not.toContain("s3cr3t-value-123");
    expect(out).toContain("[secret:TOKEN]");
  });
});
