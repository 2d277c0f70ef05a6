// Attack: OAuth for hosted MCP servers (docs/mcp.md#oauth,
// docs/security.md#mcp-oauth). The callback is a cross-site GET, so the state
// is all that ties it to the admin who pressed Authorize: another admin, a
// replayed or forged state, or an old one must not finish it. A hostile MCP
// server names its own authorization server: it must not aim Rein at this
// machine's or a private network's addresses, nor send an admin's browser to
// anything but a web address. Only admins start it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { McpServers } from "@/server/mcp-client";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { PUBLIC_URL, browse, startMcpWithOAuth } from "../helpers/oauth-browser";
import { startOAuthMcpServer, type OAuthMcpServer } from "../helpers/oauth-mcp-server";

let tk: TestKernel;
let mcp: McpServers;
let as: OAuthMcpServer;

beforeEach(async () => {
  tk = await createTestKernel({ secrets: true });
  mcp = await startMcpWithOAuth(tk);
  as = await startOAuthMcpServer();
});
afterEach(async () => {
  await mcp.stop();
  await as.close();
  await tk.cleanup();
});

const admin = () => tk.actors.admin;

async function started() {
  await mcp.add(admin(), { name: "hosted", transport: "http", http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } } });
  const { state, code, iss } = await browse((await mcp.authorize(admin(), "hosted")).authorizationUrl);
  return { state, code, iss };
}

/** A hostile MCP server: every request is 401, and its metadata names `authorizationServer` (or has that authorization endpoint). */
async function hostileServer(metadata: { authorizationServer?: string; authorizationEndpoint?: string }) {
  const server = http.createServer((req, res) => {
    const origin = `http://${req.headers.host}`;
    if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [metadata.authorizationServer ?? origin] }));
    }
    if (req.url?.startsWith("/.well-known/oauth-authorization-server")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          issuer: origin,
          authorization_endpoint: metadata.authorizationEndpoint ?? `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
        }),
      );
    }
    if (req.url === "/register") {
      res.writeHead(201, { "content-type": "application/json" });
      return res.end(JSON.stringify({ client_id: "hostile", redirect_uris: [`${PUBLIC_URL}/api/mcp/oauth/callback`] }));
    }
    res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe("attack: the OAuth callback", () => {
  it("another admin cannot finish an authorization they did not start; the one who did still can", async () => {
    const back = await started();
    const other = { ...admin(), userId: "another-admin", name: "Another Admin" };
    await expect(mcp.finishAuthorization(other, back)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await mcp.finishAuthorization(admin(), back)).toEqual({ server: "hosted", ok: true });
  });

  it("a state is taken once: the same callback again is refused, and so is a forged or malformed one", async () => {
    const back = await started();
    const forged = `${back.state.split(".")[0]}.${"A".repeat(43)}`;
    await expect(mcp.finishAuthorization(admin(), { ...back, state: forged })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await mcp.finishAuthorization(admin(), back)).toMatchObject({ ok: true });
    await expect(mcp.finishAuthorization(admin(), back)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(mcp.finishAuthorization(admin(), { ...back, state: "not a state" })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(mcp.finishAuthorization(admin(), { code: back.code })).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });

  it("an authorization older than 10 minutes is refused", async () => {
    const back = await started();
    const row = await tk.t.db.mcpServer.findUniqueOrThrow({ where: { name: "hosted" } });
    const key = `mcp.oauth.${row.id}`;
    const record = JSON.parse((await tk.t.db.setting.findUniqueOrThrow({ where: { key } })).value);
    record.pending.expiresAt = Date.now() - 1;
    await tk.t.db.setting.update({ where: { key }, data: { value: JSON.stringify(record) } });
    await expect(mcp.finishAuthorization(admin(), back)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/10 minutes/),
    });
  });

  it("a code for the right state but from another authorization does not become tokens", async () => {
    const first = await started();
    // A second Authorize replaces the first: the first state is no longer the one Rein waits for.
    const { authorizationUrl } = await mcp.authorize(admin(), "hosted");
    await expect(mcp.finishAuthorization(admin(), first)).rejects.toMatchObject({ code: "CONFLICT" });
    const second = await browse(authorizationUrl);
    // The second state with the first code: the PKCE verifier does not match it, so no tokens.
    const outcome = await mcp.finishAuthorization(admin(), { state: second.state, code: first.code, iss: first.iss });
    expect(outcome.ok).toBe(false);
    expect((await mcp.get(admin(), "hosted")).oauth?.status).toBe("not_authorized");
  });

  it("only admins start or forget an authorization", async () => {
    await mcp.add(admin(), { name: "hosted", transport: "http", http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } } });
    await expect(mcp.authorize(tk.actors.operator, "hosted")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(mcp.forgetAuthorization(tk.actors.operator, "hosted")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(mcp.finishAuthorization(tk.actors.operator, { state: "x" })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("attack: a hostile MCP server's OAuth metadata", () => {
  it("an authorization server on a private or link-local address is not called", async () => {
    for (const target of ["http://169.254.169.254", "http://10.0.0.1:8080", "http://[::1]:9"]) {
      const hostile = await hostileServer({ authorizationServer: target });
      try {
        const name = `hostile-${Math.random().toString(36).slice(2, 8)}`;
        await mcp.add(admin(), { name, transport: "http", http: { url: hostile.url, oauth: {} } });
        await expect(mcp.authorize(admin(), name)).rejects.toMatchObject({
          code: "UNAVAILABLE",
          message: expect.stringMatching(/does not call .*private network/),
        });
      } finally {
        await hostile.close();
      }
    }
  });

  it("an authorization address that is not a web address never reaches the admin's browser", async () => {
    const hostile = await hostileServer({ authorizationEndpoint: "javascript:alert(document.cookie)//" });
    try {
      await mcp.add(admin(), { name: "scripted-login", transport: "http", http: { url: hostile.url, oauth: {} } });
      await expect(mcp.authorize(admin(), "scripted-login")).rejects.toMatchObject({ code: "UNAVAILABLE" });
    } finally {
      await hostile.close();
    }
  });
});

describe("attack: what Rein holds for one authorization", () => {
  it("moving the server to another URL forgets the tokens: the new address never sees the old bearer", async () => {
    await mcp.add(admin(), { name: "hosted", transport: "http", http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } } });
    await mcp.finishAuthorization(admin(), await browse((await mcp.authorize(admin(), "hosted")).authorizationUrl));
    expect((await mcp.get(admin(), "hosted")).oauth?.status).toBe("authorized");
    const seen: string[] = [];
    const catcher = http.createServer((req, res) => {
      seen.push(req.headers.authorization ?? "");
      res.writeHead(401);
      res.end();
    });
    await new Promise<void>((resolve) => catcher.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(catcher.address() as AddressInfo).port}/mcp`;
      await mcp.update(admin(), "hosted", { http: { url, oauth: { authorizationServer: as.issuer } } });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((h) => h.startsWith("Bearer"))).toEqual([]);
      expect((await mcp.get(admin(), "hosted")).oauth?.status).toBe("not_authorized");
    } finally {
      catcher.closeAllConnections();
      await new Promise<void>((resolve) => catcher.close(() => resolve()));
    }
  });

  it("a code the authorization server refuses does not delete the tokens that still work", async () => {
    await mcp.add(admin(), { name: "hosted", transport: "http", http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } } });
    await mcp.finishAuthorization(admin(), await browse((await mcp.authorize(admin(), "hosted")).authorizationUrl));
    const again = await browse((await mcp.authorize(admin(), "hosted")).authorizationUrl);
    const outcome = await mcp.finishAuthorization(admin(), { ...again, code: "not-a-code-the-server-gave" });
    expect(outcome.ok).toBe(false);
    const view = await mcp.get(admin(), "hosted");
    expect(view.oauth?.status).toBe("authorized");
    await mcp.setTool(admin(), "hosted", "echo", { enabled: true });
    await mcp.test(admin(), "hosted");
    expect((await mcp.get(admin(), "hosted")).health).toBe("ready");
  });

  it("with an authorization server named by the admin, Rein talks to no other the server names", async () => {
    const hostile = await hostileServer({});
    try {
      await mcp.add(admin(), { name: "pinned", transport: "http", http: { url: hostile.url, oauth: { authorizationServer: as.issuer } } });
      await expect(mcp.authorize(admin(), "pinned")).rejects.toMatchObject({
        code: "UNAVAILABLE",
        message: expect.stringMatching(/talks only to the authorization server an admin named/),
      });
    } finally {
      await hostile.close();
    }
  });

  it("an answer with a status no HTTP server sends fails the authorization at once instead of hanging it", async () => {
    const odd = http.createServer((_req, res) => {
      res.writeHead(600);
      res.end("{}");
    });
    await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(odd.address() as AddressInfo).port}/mcp`;
      await mcp.add(admin(), { name: "odd", transport: "http", http: { url, oauth: {} } });
      const started = Date.now();
      await expect(mcp.authorize(admin(), "odd")).rejects.toMatchObject({ code: "UNAVAILABLE" });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      odd.closeAllConnections();
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });

  it("a client the admin registered by hand is used as given and never copied into the record", async () => {
    const registered = await fetch(`${as.issuer}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Rein by hand",
        redirect_uris: [`${PUBLIC_URL}/api/mcp/oauth/callback`],
        grant_types: ["authorization_code", "refresh_token"],
        token_endpoint_auth_method: "none",
      }),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    const before = as.log.registrations.length;
    await mcp.add(admin(), {
      name: "byhand",
      transport: "http",
      http: { url: as.mcpUrl, oauth: { clientId, authorizationServer: as.issuer } },
    });
    const { authorizationUrl } = await mcp.authorize(admin(), "byhand");
    expect(new URL(authorizationUrl).searchParams.get("client_id")).toBe(clientId);
    expect(await mcp.finishAuthorization(admin(), await browse(authorizationUrl))).toMatchObject({ ok: true });
    expect(as.log.registrations.length).toBe(before);
    const row = await tk.t.db.mcpServer.findUniqueOrThrow({ where: { name: "byhand" } });
    const record = JSON.parse((await tk.t.db.setting.findUniqueOrThrow({ where: { key: `mcp.oauth.${row.id}` } })).value);
    expect(record.client).toBeUndefined();
  });
});
