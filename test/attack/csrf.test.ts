// Attack suite, issue class 6: a page on another site (another port of the
// same host included) must not change anything with a person's session
// cookie: not through REST v1, not through tRPC, and not by opening a
// socket.io connection that subscribes to a run or attaches to its terminal.
import { encode } from "next-auth/jwt";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "../helpers/db";
import { freePort, spawnServer, type ServerProcess } from "../helpers/server-process";

const SECRET = "csrf-attack-test-secret-0123456789abcdef";

let t: TestDb;
let server: ServerProcess;
let cookie: string;
let token: string;
let own: string;
let foreign: string;

beforeAll(async () => {
  t = await createTestDb();
  const userId = await createUser(t.db, { email: "operator@rein.test", password: "password-123", role: "operator" });
  token = (await createApiToken(t.db, { userId, name: "program" })).token;
  cookie = `next-auth.session-token=${await encode({ token: { sub: userId }, secret: SECRET })}`;
  const port = await freePort();
  const s = spawnServer({
    REIN_DATA_DIR: t.dir,
    PORT: String(port),
    REIN_UI: "off",
    REIN_POD_POOL_SIZE: "0",
    NEXTAUTH_SECRET: SECRET,
    REIN_PUBLIC_URL: `http://localhost:${port}`,
  });
  await s.ready;
  server = s;
  own = `http://127.0.0.1:${port}`;
  foreign = `http://127.0.0.1:${port + 1}`;
}, 60_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  await t?.cleanup();
});

const runCount = () => t.db.run.count();

async function post(path: string, init: { headers: Record<string, string>; body: string }) {
  const res = await fetch(`${server.url}${path}`, { method: "POST", headers: init.headers, body: init.body });
  return { status: res.status, body: await res.text() };
}

const RUN = JSON.stringify({ agent: "demo-coder", goal: "forged" });
const TRPC_RUN = JSON.stringify({ json: { agent: "demo-coder", goal: "forged" } });

describe("requests with the session cookie from another site are refused, and change nothing", () => {
  it.each([
    ["REST, text/plain (a form can send it)", "/api/v1/runs", { "content-type": "text/plain", origin: "FOREIGN" }, RUN],
    ["REST, form-encoded", "/api/v1/runs", { "content-type": "application/x-www-form-urlencoded", origin: "FOREIGN" }, RUN],
    ["REST, JSON from another port of the same host", "/api/v1/runs", { "content-type": "application/json", origin: "FOREIGN" }, RUN],
    ["REST, JSON from an opaque origin", "/api/v1/runs", { "content-type": "application/json", origin: "null" }, RUN],
    [
      "REST, JSON with no Origin and a foreign Referer",
      "/api/v1/runs",
      { "content-type": "application/json", referer: "FOREIGN/page" },
      RUN,
    ],
    ["REST, JSON with neither Origin nor Referer", "/api/v1/runs", { "content-type": "application/json" }, RUN],
    ["tRPC mutation from another site", "/api/trpc/runs.create", { "content-type": "application/json", origin: "FOREIGN" }, TRPC_RUN],
    ["tRPC mutation as text/plain from its own origin", "/api/trpc/runs.create", { "content-type": "text/plain", origin: "OWN" }, TRPC_RUN],
  ])("%s", async (_name, path, headers, body) => {
    const before = await runCount();
    const h: Record<string, string> = { cookie };
    for (const [k, v] of Object.entries(headers)) h[k] = v.replace("FOREIGN", foreign).replace("OWN", own);
    const res = await post(path, { headers: h, body });
    expect([403, 415]).toContain(res.status);
    expect(JSON.parse(res.body).error.message).toMatch(/another site|no Origin|must be JSON|Referer/);
    expect(await runCount()).toBe(before);
  });

  it("the same request from Rein's own page is taken", async () => {
    const res = await post("/api/v1/runs", { headers: { cookie, origin: own, "content-type": "application/json" }, body: RUN });
    expect(res.status).toBe(201);
  });

  it("a program with a bearer token needs no Origin", async () => {
    const res = await post("/api/v1/runs", {
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: RUN,
    });
    expect(res.status).toBe(201);
  });
});

describe("socket.io", () => {
  function handshake(origin: string): Promise<"connected" | string> {
    return new Promise((resolve) => {
      const socket = connect(`${server.url}/runs`, {
        path: "/socket.io",
        transports: ["websocket"],
        extraHeaders: { cookie, origin },
        reconnection: false,
        forceNew: true,
        timeout: 5000,
      });
      socket.on("connect", () => {
        socket.close();
        resolve("connected");
      });
      socket.on("connect_error", (err) => {
        socket.close();
        resolve(err.message);
      });
    });
  }

  it("refuses a handshake from another site's page, with the viewer's cookie", async () => {
    expect(await handshake(foreign)).not.toBe("connected");
  });

  it("accepts Rein's own page", async () => {
    expect(await handshake(own)).toBe("connected");
  });
});
