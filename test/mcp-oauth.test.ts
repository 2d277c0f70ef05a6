// OAuth 2.1 for hosted MCP servers (docs/mcp.md#oauth): an admin authorizes
// Rein at a server protected by a real authorization server (written from the
// RFCs in test/helpers/oauth-mcp-server.ts), Rein keeps the tokens sealed,
// calls the server's tools with them, refreshes an access token that stopped
// working, and says so in words when the authorization ends.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { McpServers } from "@/server/mcp-client";
import { openValue } from "@/server/secrets";
import type { ToolContext } from "@/server/tools";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { PUBLIC_URL, browse, startMcpWithOAuth } from "./helpers/oauth-browser";
import { startOAuthMcpServer, type OAuthMcpServer } from "./helpers/oauth-mcp-server";

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

function ctx(): ToolContext {
  return {
    runId: "test-run",
    workspace: null as never,
    agent: { name: "demo-mcp", handoffs: [] },
    actorId: tk.users.admin,
    teamId: null,
    signal: new AbortController().signal,
  };
}

async function call(name: string, args: Record<string, unknown>) {
  const tool = tk.kernel.deps.registry.get(name);
  if (!tool) throw new Error(`${name} is not in the registry`);
  return tool.execute(args, ctx());
}

async function record(name: string) {
  const row = await tk.t.db.mcpServer.findUniqueOrThrow({ where: { name } });
  const setting = await tk.t.db.setting.findUnique({ where: { key: `mcp.oauth.${row.id}` } });
  return { id: row.id, raw: setting?.value ?? "", value: setting ? (JSON.parse(setting.value) as Record<string, any>) : {} };
}

describe("OAuth for a hosted MCP server", () => {
  it("an admin authorizes Rein; the tokens are sealed, used, refreshed, and their end is told in words", async () => {
    const added = await mcp.add(admin(), {
      name: "hosted",
      transport: "http",
      http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } },
    });
    expect(added.health).toBe("failed");
    expect(added.reason).toMatch(/Authorize/);
    expect(added.oauth).toMatchObject({ status: "not_authorized", redirectUrl: `${PUBLIC_URL}/api/mcp/oauth/callback` });
    // Rein found the authorization server and registered itself while trying to connect.
    expect(as.log.registrations).toHaveLength(1);
    expect(as.log.registrations[0]).toMatchObject({ client_name: "Rein", redirect_uris: [`${PUBLIC_URL}/api/mcp/oauth/callback`] });

    const { authorizationUrl } = await mcp.authorize(admin(), "hosted");
    const asked = new URL(authorizationUrl);
    expect(asked.origin).toBe(as.issuer);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("resource")).toBe(as.mcpUrl);
    expect((await mcp.get(admin(), "hosted")).oauth?.pending).toBe(true);

    const back = await browse(authorizationUrl);
    expect(`${back.callback.origin}${back.callback.pathname}`).toBe(`${PUBLIC_URL}/api/mcp/oauth/callback`);
    expect(await mcp.finishAuthorization(admin(), { state: back.state, code: back.code, iss: back.iss })).toEqual({
      server: "hosted",
      ok: true,
    });
    const ready = await mcp.get(admin(), "hosted");
    expect(ready.health).toBe("ready");
    expect(ready.oauth).toMatchObject({ status: "authorized", authorizedBy: { name: admin().name }, problem: null, pending: false });
    expect(ready.oauth?.issuer).toBe(as.issuer);

    // At rest: sealed, bound to this server; nothing readable in the setting, the view or the audit log.
    const { id, raw, value } = await record("hosted");
    const tokens = JSON.parse(openValue(tk.keyring!, `mcp.oauth:${id}:tokens`, value.tokens)) as {
      access_token: string;
      refresh_token: string;
    };
    expect(tokens.access_token.length).toBeGreaterThan(10);
    for (const text of [raw, JSON.stringify(ready), JSON.stringify(await tk.t.db.auditEntry.findMany())]) {
      expect(text).not.toContain(tokens.access_token);
      expect(text).not.toContain(tokens.refresh_token);
    }
    expect(() => openValue(tk.keyring!, `mcp.oauth:another:tokens`, value.tokens)).toThrow();

    await mcp.setTool(admin(), "hosted", "echo", { enabled: true });
    expect(JSON.stringify(await call("hosted__echo", { text: "with a token" }))).toContain("with a token");

    // The access token stops working: the next call refreshes it and goes through.
    as.expireAccessTokens();
    expect(JSON.stringify(await call("hosted__echo", { text: "after a refresh" }))).toContain("after a refresh");
    expect(as.log.grants.at(-1)).toBe("refresh_token");

    // Three calls at once after it stops again share the refresh under way: the server rotates refresh tokens,
    // and a second refresh with the same one would be refused and wipe the fresh tokens.
    as.expireAccessTokens();
    const refreshes = as.log.grants.length;
    const three = await Promise.all(["a", "b", "c"].map((text) => call("hosted__echo", { text: `together ${text}` })));
    expect(three.map((r) => JSON.stringify(r))).toEqual([
      expect.stringContaining("together a"),
      expect.stringContaining("together b"),
      expect.stringContaining("together c"),
    ]);
    // (A 401 that lands after the shared refresh ended starts another, with the newest refresh token.)
    expect(as.log.grants.slice(refreshes).every((g) => g === "refresh_token")).toBe(true);
    expect(as.log.tokenErrors).toEqual([]);

    // The authorization server ends it all: the call fails, and the page says an admin must authorize again.
    as.revokeAll();
    await expect(call("hosted__echo", { text: "no more" })).rejects.toThrow();
    const ended = await mcp.get(admin(), "hosted");
    expect(ended.oauth?.status).toBe("expired");
    expect(ended.oauth?.problem).toMatch(/authorizes Rein again/);
  });

  it("an answer that says no is shown as the authorization server's words, and the server stays unauthorized", async () => {
    await mcp.add(admin(), {
      name: "hosted",
      transport: "http",
      http: { url: as.mcpUrl, oauth: { scope: "mcp", authorizationServer: as.issuer } },
    });
    as.setConsent("deny");
    const { authorizationUrl } = await mcp.authorize(admin(), "hosted");
    expect(new URL(authorizationUrl).searchParams.get("scope")).toBe("mcp");
    const answer = await fetch(authorizationUrl, { redirect: "manual" });
    const callback = new URL(answer.headers.get("location")!);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    const outcome = await mcp.finishAuthorization(admin(), {
      state: callback.searchParams.get("state")!,
      error: callback.searchParams.get("error")!,
      ...(callback.searchParams.get("error_description") ? { error_description: callback.searchParams.get("error_description")! } : {}),
    });
    expect(outcome).toMatchObject({
      server: "hosted",
      ok: false,
      message: expect.stringMatching(/^The authorization server said no: access_denied/),
    });
    const view = await mcp.get(admin(), "hosted");
    expect(view.oauth).toMatchObject({ status: "not_authorized", problem: expect.stringMatching(/access_denied/), pending: false });
  });

  it("forgetting the tokens deletes them; removing the server deletes its record", async () => {
    await mcp.add(admin(), { name: "hosted", transport: "http", http: { url: as.mcpUrl, oauth: { authorizationServer: as.issuer } } });
    const back = await browse((await mcp.authorize(admin(), "hosted")).authorizationUrl);
    await mcp.finishAuthorization(admin(), back);
    expect((await record("hosted")).value.tokens).toBeTruthy();
    // A second authorization that the server refuses leaves the first one working, and says why it did not finish.
    as.setConsent("deny");
    const refused = await fetch((await mcp.authorize(admin(), "hosted")).authorizationUrl, { redirect: "manual" });
    const answer = new URL(refused.headers.get("location")!);
    await mcp.finishAuthorization(admin(), { state: answer.searchParams.get("state")!, error: answer.searchParams.get("error")! });
    expect((await mcp.get(admin(), "hosted")).oauth).toMatchObject({
      status: "authorized",
      problem: expect.stringMatching(/access_denied/),
    });
    await mcp.forgetAuthorization(admin(), "hosted");
    const after = await mcp.get(admin(), "hosted");
    expect(after.oauth?.status).toBe("not_authorized");
    expect(after.health).toBe("failed");
    const { id } = await record("hosted");
    await mcp.remove(admin(), "hosted");
    expect(await tk.t.db.setting.findUnique({ where: { key: `mcp.oauth.${id}` } })).toBeNull();
  });

  it("an admin's input: OAuth and an Authorization header of their own do not go together; a client secret needs its client id", async () => {
    await expect(
      mcp.add(admin(), {
        name: "both",
        transport: "http",
        http: { url: as.mcpUrl, headers: { Authorization: { value: "Bearer x" } }, oauth: {} },
      }),
    ).rejects.toMatchObject({ code: "INVALID_INPUT", message: expect.stringMatching(/Authorization header itself/) });
    await expect(
      mcp.add(admin(), { name: "half", transport: "http", http: { url: as.mcpUrl, oauth: { clientSecret: { secret: "X" } } } }),
    ).rejects.toMatchObject({ code: "INVALID_INPUT", message: expect.stringMatching(/client id/) });
    await expect(mcp.authorize(admin(), "nothing-here")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
