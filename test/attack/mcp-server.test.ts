// Attack suite, issue class 24: Rein's MCP server at /mcp. No token, a
// revoked or expired one, or a session cookie gets 401; a page of another
// site gets 403 even with a valid token (DNS rebinding included); an
// oversized or malformed body gets a 4xx and starts nothing; and a token of
// one team learns nothing of another team's run and cannot cancel it or
// answer its requests.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "next-auth/jwt";
import { createMcpHandler } from "@/server/mcp-server";
import { authenticateRequest, createApiToken, createUser, revokeApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { serverWithToken, type ServerProcess, type ServerWithToken } from "../helpers/server-process";
import { waitFor } from "../helpers/wait";
import { testServices } from "@/test/helpers/services";

const PUBLIC_URL = "http://rein.test";
const AUTH_SECRET = "a-test-auth-secret-of-more-than-32-characters";
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "attacker", version: "1" } },
};

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** A raw POST, with any Host header (fetch would not send a forged one). */
function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON: the test says so */
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      },
    );
    // A refused oversized body is not read: the server may close before it is all sent.
    req.on("error", (err: NodeJS.ErrnoException) => (err.code === "EPIPE" || err.code === "ECONNRESET" ? undefined : reject(err)));
    req.end(body);
  });
}

describe("the /mcp handler", () => {
  let tk: TestKernel;
  let server: http.Server;
  let url: string;
  const tokens = {} as Record<"operator" | "revoked" | "expired" | "outsider", string>;
  /** A valid session of the operator, as the web UI's pages carry it. */
  let sessionCookie: string;
  let runId: string;
  let requestId: string;
  const clients: Client[] = [];

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function connect(token: string) {
    const client = new Client({ name: "attacker", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(token) } }));
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const res = await client.callTool({ name, arguments: args });
    return { isError: res.isError === true, text: (res.content as Array<{ text: string }>).map((c) => c.text).join("\n") };
  }

  beforeAll(async () => {
    tk = await createTestKernel({ hitl: true });
    const db = tk.t.db;
    tokens.operator = (await createApiToken(db, { userId: tk.users.operator, name: "operator" })).token;
    const revoked = await createApiToken(db, { userId: tk.users.operator, name: "revoked" });
    await revokeApiToken(db, tk.users.operator, revoked.id);
    tokens.revoked = revoked.token;
    const expired = await createApiToken(db, { userId: tk.users.operator, name: "expired", expiresInDays: 1 });
    await db.apiToken.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    tokens.expired = expired.token;
    sessionCookie = `next-auth.session-token=${await encode({ token: { sub: tk.users.operator }, secret: AUTH_SECRET })}`;
    // An approver and operator of another team.
    const outsider = await createUser(db, {
      email: "approver@other.team",
      password: "password-123",
      role: "approver",
      teams: ["other-team"],
    });
    tokens.outsider = (await createApiToken(db, { userId: outsider, name: "outsider" })).token;

    const handler = createMcpHandler(testServices(tk), { publicUrl: PUBLIC_URL, log: { error() {} } });
    server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;

    const run = await createRun(tk.kernel, { goal: "Deploy the secret project", agent: "demo-deploy" }, tk.actors.operator);
    runId = run.id;
    requestId = (await waitFor(() => db.humanRequest.findFirst({ where: { runId, state: "PENDING" } }), "the approval request")).id;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
    await tk?.cleanup();
  });

  it.each<[string, Record<string, string> | "revoked" | "expired" | "cookie"]>([
    ["no token", {}],
    ["a forged token", { authorization: "Bearer rein_forged" }],
    ["a revoked token", "revoked"],
    ["an expired token", "expired"],
    ["a valid session cookie instead of a token", "cookie"],
  ])("%s is 401 with WWW-Authenticate: Bearer and a JSON error", async (_what, sent) => {
    const headers = sent === "cookie" ? { cookie: sessionCookie } : typeof sent === "string" ? bearer(tokens[sent]) : sent;
    // The cookie is one Rein's pages would be let in with.
    if (sent === "cookie")
      expect(await authenticateRequest(tk.t.db, { headers }, AUTH_SECRET)).toMatchObject({ userId: tk.users.operator });
    const res = await post(url, headers, JSON.stringify(INITIALIZE));
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    expect(res.json.error.message).toMatch(/API token/);
  });

  it.each([
    ["another site", { origin: "https://evil.example" }],
    ["another port of Rein's host", { origin: "http://127.0.0.1:1" }],
    ["an opaque origin", { origin: "null" }],
    [
      "DNS rebinding: the attacker's name for this machine as Host and Origin",
      { host: "evil.example:3000", origin: "http://evil.example:3000" },
    ],
  ])("a page of %s is 403 even with a valid token", async (_what, headers) => {
    const res = await post(url, { ...bearer(tokens.operator), ...headers }, JSON.stringify(INITIALIZE));
    expect(res.status, res.text).toBe(403);
    expect(res.json.error.message).toMatch(/came from a page at/);
  });

  it("Rein's own origin, a loopback one, or none is let in", async () => {
    const host = new URL(url).host;
    for (const headers of [{ origin: PUBLIC_URL }, { origin: `http://${host}` }, {}] as Array<Record<string, string>>) {
      const res = await post(url, { ...bearer(tokens.operator), ...headers }, JSON.stringify(INITIALIZE));
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.json.result.serverInfo.name).toBe("rein");
    }
  });

  it("a body over 1 MiB is 413 and starts nothing", async () => {
    const before = await tk.t.db.run.count();
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "start_run", arguments: { agent: "demo-coder", goal: "x".repeat(1_100_000) } },
    };
    const res = await post(url, bearer(tokens.operator), JSON.stringify(call));
    expect(res.status).toBe(413);
    expect(res.json.error.message).toMatch(/larger than 1048576 bytes/);
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it.each([
    ["malformed JSON", '{"jsonrpc": "2.0", "id": 1, method: }', /not valid JSON/],
    [
      "JSON nested 100 levels deep",
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${"[".repeat(100)}${"]".repeat(100)}}}`,
      /nested more than 64 levels/,
    ],
    ["a lone surrogate", '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\\ud800"}}', /lone surrogate/],
    ["JSON that is no JSON-RPC message", '{"hello": "world"}', /not a valid JSON-RPC message/],
  ])("%s is 400 with a clear message", async (_what, body, message) => {
    const res = await post(url, bearer(tokens.operator), body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error.message).toMatch(message);
  });

  it("another team's run is not found by get_run, wait_for_run, cancel_run or its events, and nothing of it leaks", async () => {
    const client = await connect(tokens.outsider);
    for (const [tool, args] of [
      ["get_run", { runId }],
      ["wait_for_run", { runId, timeoutSec: 1 }],
      ["cancel_run", { runId }],
    ] as const) {
      const res = await call(client, tool, args);
      expect(res, tool).toEqual({ isError: true, text: `NOT_FOUND: Run ${runId} was not found` });
    }
    await expect(client.readResource({ uri: `rein://runs/${runId}/events` })).rejects.toThrow(`Run ${runId} was not found`);
    const listed = await call(client, "list_human_requests", { state: "all" });
    expect(listed.text).not.toContain(runId);
    expect(listed.text).not.toMatch(/secret project|deploy\.sh/);
    const resources = await client.listResources();
    expect(JSON.stringify(resources)).not.toContain(runId);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("waiting_human");
  });

  it("another team's approver cannot answer its request, and learns nothing of it", async () => {
    const client = await connect(tokens.outsider);
    const res = await call(client, "answer_human_request", { requestId, decision: "approve" });
    expect(res).toEqual({ isError: true, text: `NOT_FOUND: There is no human request ${requestId}` });
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId } })).state).toBe("PENDING");
  });
});

// The handler as server.ts mounts it: /mcp is routed before the checks for
// cookies (forgery) and REST bodies, and keeps its own.
describe("/mcp on a real server", () => {
  let started: ServerWithToken;
  let rein: ServerProcess;
  let token: string;

  beforeAll(async () => {
    started = await serverWithToken();
    ({ server: rein, token } = started);
  }, 60_000);

  afterAll(async () => {
    await started?.stop();
  });

  it("answers 401 without a token, 403 to another site with one, and 200 to a program with one", async () => {
    const body = JSON.stringify(INITIALIZE);
    expect((await post(`${rein.url}/mcp`, {}, body)).status).toBe(401);
    expect((await post(`${rein.url}/mcp`, { authorization: `Bearer ${token}`, origin: "https://evil.example" }, body)).status).toBe(403);
    const ok = await post(`${rein.url}/mcp`, { authorization: `Bearer ${token}` }, body);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect((await post(`${rein.url}/mcp?x=1`, { authorization: `Bearer ${token}` }, "{oops")).status).toBe(400);
  });
});
