// The OAuth-protected MCP fixture (test/helpers/oauth-mcp-server.ts) against the official v2
// client: the SDK's auth() registers, authorizes with PKCE and trades the code; its transport
// sends the bearer token, refreshes an expired one and gives up on revoked ones. Then the
// fixture's own refusals, driven by hand: a wrong PKCE verifier, a code used twice, an
// unregistered redirect URI, a token for another resource, the consent page, client secrets.
import crypto from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { startOAuthMcpServer, type OAuthMcpServer } from "./helpers/oauth-mcp-server";

const REDIRECT = "http://127.0.0.1:9/callback";

/** An OAuthClientProvider that keeps everything in memory and stores the authorization URL instead of opening it. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  invalidated: string[] = [];
  private info?: StoredOAuthClientInformation;
  private saved?: StoredOAuthTokens;
  private verifier?: string;
  private discovery?: OAuthDiscoveryState;

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "Rein test", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error("no code verifier was saved");
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    this.invalidated.push(scope);
    if (scope === "all" || scope === "client") this.info = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = undefined;
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
}

/** A PKCE pair (RFC 7636 §4.1, §4.2). */
function pkce(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString("base64url");
  return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") };
}

async function register(
  server: OAuthMcpServer,
  metadata: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${server.issuer}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Sends an authorization request and does not follow the answer. */
async function authorize(server: OAuthMcpServer, params: Record<string, string>): Promise<Response> {
  return fetch(`${server.issuer}/authorize?${new URLSearchParams(params)}`, { redirect: "manual" });
}

/** Gets a code by hand for a public client; `resource` is left out when undefined. */
async function codeFor(server: OAuthMcpServer, clientId: string, challenge: string, resource: string | undefined): Promise<string> {
  const res = await authorize(server, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...(resource ? { resource } : {}),
  });
  expect(res.status).toBe(302);
  const code = new URL(res.headers.get("location")!).searchParams.get("code");
  expect(code).toBeTruthy();
  return code!;
}

async function token(
  server: OAuthMcpServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, string> }> {
  const res = await fetch(`${server.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, string> };
}

/** A bare MCP request with this bearer token. */
async function callMcp(server: OAuthMcpServer, bearer?: string): Promise<Response> {
  return fetch(server.mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
  });
}

let server: OAuthMcpServer;
beforeEach(async () => {
  server = await startOAuthMcpServer();
});
afterEach(async () => {
  await server.close();
});

describe("the official client against the OAuth-protected fixture", () => {
  it("registers, authorizes with PKCE and calls a tool; an expired token is refreshed; revoked tokens end in an authorization error", async () => {
    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl: server.mcpUrl })).toBe("REDIRECT");
    expect(server.log.registrations).toEqual([{ client_id: expect.any(String), redirect_uris: [REDIRECT], client_name: "Rein test" }]);
    const asked = provider.authorizationUrl!;
    expect(asked.origin).toBe(server.issuer);
    expect(asked.searchParams.get("code_challenge_method")).toBe("S256");
    expect(asked.searchParams.get("resource")).toBe(server.mcpUrl);

    const answer = await fetch(asked, { redirect: "manual" });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get("location")!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    const code = back.searchParams.get("code")!;
    const iss = back.searchParams.get("iss")!;
    expect(iss).toBe(server.issuer);
    expect(await auth(provider, { serverUrl: server.mcpUrl, authorizationCode: code, iss })).toBe("AUTHORIZED");
    expect(server.log.grants).toEqual(["authorization_code"]);
    expect(provider.tokens()).toMatchObject({ token_type: "Bearer", refresh_token: expect.any(String), issuer: server.issuer });
    expect(server.log.resources).toEqual([server.mcpUrl, server.mcpUrl]);

    const client = new Client({ name: "rein-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
    try {
      const echo = async (text: string) => JSON.stringify((await client.callTool({ name: "echo", arguments: { text } })).content);
      expect(await echo("hello")).toContain("hello");
      expect(server.log.unauthorized).toBe(0);

      server.expireAccessTokens();
      expect(await echo("after expiry")).toContain("after expiry");
      expect(server.log.unauthorized).toBe(1);
      expect(server.log.grants).toEqual(["authorization_code", "refresh_token"]);

      server.revokeAll();
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      try {
        const failed = await echo("after revocation").then(
          () => null,
          (err: unknown) => err,
        );
        expect(failed).toBeInstanceOf(UnauthorizedError);
        // The SDK says why it dropped the tokens.
        expect(warn.mock.calls.flat().join(" ")).toContain("invalid_grant");
      } finally {
        warn.mockRestore();
      }
      expect(server.log.tokenErrors).toEqual(["invalid_grant"]);
      expect(provider.invalidated).toEqual(["tokens"]);
      // It started a fresh authorization: a new URL waits for a person.
      expect(provider.authorizationUrl).not.toBe(asked);
      expect(provider.tokens()).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe("the fixture's refusals", () => {
  it("publishes both metadata documents, and answers 401 with the resource metadata URL", async () => {
    const as = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/authorize`,
      token_endpoint: `${server.issuer}/token`,
      registration_endpoint: `${server.issuer}/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    const base = new URL(server.mcpUrl).origin;
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      expect(await (await fetch(base + path)).json()).toEqual({
        resource: server.mcpUrl,
        authorization_servers: [server.issuer],
        scopes_supported: ["mcp"],
        bearer_methods_supported: ["header"],
      });
    }
    const bare = await callMcp(server);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    const bad = await callMcp(server, "not-a-token");
    expect(bad.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(server.log.unauthorized).toBe(2);
  });

  it("refuses a wrong PKCE verifier, and a code works once: its second use revokes what the first got", async () => {
    const { body: client } = await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    expect(client.client_secret).toBeUndefined();
    const pair = pkce();
    const wrong = await token(server, {
      grant_type: "authorization_code",
      code: await codeFor(server, client.client_id, pair.challenge, server.mcpUrl),
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: pkce().verifier,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    const code = await codeFor(server, client.client_id, pair.challenge, server.mcpUrl);
    const exchange = {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: pair.verifier,
    };
    const first = await token(server, exchange);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "mcp" });
    expect((await callMcp(server, first.body.access_token)).status).toBe(200);

    expect(await token(server, exchange)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await callMcp(server, first.body.access_token)).status).toBe(401);
    expect(server.log.tokenErrors).toEqual(["invalid_grant", "invalid_grant"]);
  });

  it("an unregistered redirect_uri gets a 400 page, never a redirect", async () => {
    const { body: client } = await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
    const res = await authorize(server, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:9/elsewhere",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("not one the client registered");
  });

  it("a token is good only at the resource it was issued for", async () => {
    const { body: client } = await register(server, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    });
    const pair = pkce();
    const elsewhere = await authorize(server, {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pair.challenge,
      code_challenge_method: "S256",
      state: "s1",
      resource: "http://127.0.0.1:9/other",
    });
    const refused = new URL(elsewhere.headers.get("location")!).searchParams;
    expect(Object.fromEntries(refused)).toMatchObject({ error: "invalid_target", state: "s1", iss: server.issuer });

    // A token obtained without naming a resource is for no resource in particular: /mcp refuses it.
    const code = await codeFor(server, client.client_id, pair.challenge, undefined);
    const issued = await token(server, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      code_verifier: pair.verifier,
    });
    expect(issued.status).toBe(200);
    const res = await callMcp(server, issued.body.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({ error_description: "The access token was not issued for this resource" });
    // Nor can its refresh token be turned into one for /mcp.
    const widened = await token(server, {
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: client.client_id,
      resource: server.mcpUrl,
    });
    expect(widened).toMatchObject({ status: 400, body: { error: "invalid_target" } });
  });

  it("shows a consent page in form mode, and denies in deny mode", async () => {
    const { body: client } = await register(server, {
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      client_name: "Rein <test>",
    });
    const request = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      state: "s2",
    };
    server.setConsent("form");
    const page = await authorize(server, request);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Authorize Rein &#60;test&#62;</title>");
    expect(html).toContain('<button name="decision" value="allow">Allow</button>');
    const id = /name="request_id" value="([^"]+)"/.exec(html)![1];
    const decide = (decision: string) =>
      fetch(`${server.issuer}/authorize`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ request_id: id, decision }),
        redirect: "manual",
      });
    const allowed = await decide("allow");
    expect(allowed.status).toBe(303);
    expect(Object.fromEntries(new URL(allowed.headers.get("location")!).searchParams)).toMatchObject({
      code: expect.any(String),
      state: "s2",
    });
    expect((await decide("allow")).status).toBe(400);

    server.setConsent("deny");
    const denied = await authorize(server, request);
    expect(Object.fromEntries(new URL(denied.headers.get("location")!).searchParams)).toMatchObject({
      error: "access_denied",
      state: "s2",
      iss: server.issuer,
    });
  });

  it("authenticates confidential clients the way they registered, and checks what they register", async () => {
    const pair = pkce();
    for (const method of ["client_secret_basic", "client_secret_post"]) {
      const { status, body: client } = await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: method });
      expect(status).toBe(201);
      expect(client).toMatchObject({ token_endpoint_auth_method: method, client_secret: expect.any(String), client_secret_expires_at: 0 });
      const exchange = (secret: string) => {
        const base = { grant_type: "authorization_code", redirect_uri: REDIRECT, code_verifier: pair.verifier };
        return codeFor(server, client.client_id, pair.challenge, server.mcpUrl).then((code) =>
          method === "client_secret_basic"
            ? token(server, { ...base, code }, { authorization: `Basic ${btoa(`${client.client_id}:${secret}`)}` })
            : token(server, { ...base, code, client_id: client.client_id, client_secret: secret }),
        );
      };
      const wrong = await exchange("wrong");
      expect(wrong).toMatchObject({ status: 401, body: { error: "invalid_client" } });
      expect(wrong.headers.get("www-authenticate")).toBe(method === "client_secret_basic" ? `Basic realm="${server.issuer}"` : null);
      expect((await exchange(client.client_secret)).status).toBe(200);
    }
    expect(await register(server, { redirect_uris: ["http://example.com/cb"] })).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri" },
    });
    expect(await register(server, { redirect_uris: [`${REDIRECT}#x`] })).toMatchObject({
      status: 400,
      body: { error: "invalid_redirect_uri" },
    });
    expect(await register(server, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" })).toMatchObject({
      status: 400,
      body: { error: "invalid_client_metadata" },
    });
  });
});
