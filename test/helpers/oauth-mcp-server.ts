// An OAuth 2.1 authorization server and an MCP server it protects, for tests of an MCP
// client's authorization (the MCP authorization spec, 2025-11-25 and 2026-07-28). Both are
// written by hand from the specifications, not with any SDK's server-side auth helpers, so
// the client under test meets a genuine peer:
//   - RFC 6749 and the OAuth 2.1 draft: the authorization code grant, refresh tokens that
//     rotate, error answers (§4.1.2.1, §5.2);
//   - RFC 7636: PKCE, S256 only, required on every authorization request;
//   - RFC 8414: authorization server metadata; RFC 9728: protected resource metadata;
//   - RFC 7591: dynamic client registration;
//   - RFC 8707: resource indicators (a token works only at the resource it was issued for);
//   - RFC 9207: `iss` in every authorization response.
// Two loopback ports: the resource server (the MCP endpoint, served by the fixture in
// mcp-v2-server.ts once the bearer token checks out, and its metadata) and the authorization
// server, whose issuer is its own origin. Tokens are opaque random strings kept in memory.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { McpHttpHandler } from "@modelcontextprotocol/server";
import { createV2McpHandler, serveV2McpRequest } from "./mcp-v2-server";

export interface OAuthMcpServer {
  /** The protected MCP endpoint, e.g. http://127.0.0.1:<port>/mcp */
  mcpUrl: string;
  /** The authorization server's issuer (its own origin, a second loopback port; no trailing slash) */
  issuer: string;
  /** How /authorize answers: "auto" redirects at once with a code (default); "form" shows an HTML consent page
   *  (title "Authorize <client_name>", buttons <button name="decision" value="allow">Allow</button> and value="deny" Deny, a POST form);
   *  "deny" redirects with error=access_denied. */
  setConsent(mode: "auto" | "form" | "deny"): void;
  /** Every access token issued so far stops working (the MCP endpoint answers 401 invalid_token); refresh tokens still work. */
  expireAccessTokens(): void;
  /** Every access and refresh token stops working (refresh answers 400 invalid_grant). */
  revokeAll(): void;
  /** What happened, for assertions. */
  log: {
    registrations: Array<{ client_id: string; redirect_uris: string[]; client_name?: string }>;
    /** grant_type of every successful /token request, in order */
    grants: string[];
    /** every refused /token request's error code */
    tokenErrors: string[];
    /** 401s the MCP endpoint answered */
    unauthorized: number;
    /** the `resource` parameter received at /authorize and /token */
    resources: string[];
  };
  close(): Promise<void>;
}

type ConsentMode = "auto" | "form" | "deny";
type ClientAuthMethod = "none" | "client_secret_post" | "client_secret_basic";
type GrantType = "authorization_code" | "refresh_token";

const AUTH_METHODS: readonly ClientAuthMethod[] = ["none", "client_secret_post", "client_secret_basic"];
const GRANT_TYPES: readonly GrantType[] = ["authorization_code", "refresh_token"];
const MAX_BODY_BYTES = 64 * 1024;
const CODE_TTL_MS = 60_000;
const CONSENT_TTL_MS = 10 * 60_000;
/** A PKCE code_verifier or code_challenge: 43 to 128 unreserved characters (RFC 7636 §4.1, §4.2). */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The RFC 7591 §2 client metadata fields a registration answer echoes when the client sent them. */
const ECHOED_METADATA = [
  "client_name",
  "client_uri",
  "logo_uri",
  "scope",
  "contacts",
  "tos_uri",
  "policy_uri",
  "software_id",
  "software_version",
  "application_type",
] as const;
/** Token answers carry credentials: no cache may keep them (RFC 6749 §5.1). */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

interface RegisteredClient {
  clientId: string;
  secret?: string;
  redirectUris: string[];
  name?: string;
  authMethod: ClientAuthMethod;
  grantTypes: GrantType[];
}

/** One consent given: the code and every token that came from it share it, so they can be revoked together. */
interface Grant {
  id: string;
  clientId: string;
  /** The resource the tokens are for (RFC 8707), or undefined when the client named none. */
  resource?: string;
  scope: string;
}

/** A checked authorization request, waiting for its code (or, in "form" mode, for the person's decision). */
interface AuthorizationRequest {
  client: RegisteredClient;
  redirectUri: string;
  /** Whether redirect_uri was in the request: if it was, the token request must repeat it (RFC 6749 §4.1.3). */
  redirectUriSent: boolean;
  state?: string;
  codeChallenge: string;
  resource?: string;
  scope: string;
}

interface CodeRecord {
  request: AuthorizationRequest;
  grant: Grant;
  expiresAt: number;
  used: boolean;
}

interface AccessRecord {
  grant: Grant;
  scope: string;
  expiresAt: number;
}

interface State {
  mcpUrl: string;
  issuer: string;
  resourceMetadataUrl: string;
  scopes: string[];
  accessTtlSec: number;
  consent: ConsentMode;
  clients: Map<string, RegisteredClient>;
  codes: Map<string, CodeRecord>;
  pending: Map<string, { request: AuthorizationRequest; expiresAt: number }>;
  access: Map<string, AccessRecord>;
  refresh: Map<string, Grant>;
  log: OAuthMcpServer["log"];
}

/** A refused token request, answered per RFC 6749 §5.2. */
class TokenError extends Error {
  constructor(
    readonly code: string,
    description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** A request body over MAX_BODY_BYTES. */
class BodyTooLarge extends Error {}

// ---------------------------------------------------------------------------------------------
// Small pieces

function randomToken(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** Compares two secrets in constant time (hashing first makes the lengths equal). */
function sameSecret(a: string, b: string): boolean {
  const hash = (s: string) => crypto.createHash("sha256").update(s, "utf8").digest();
  return crypto.timingSafeEqual(hash(a), hash(b));
}

/** The S256 code challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2). */
function s256(verifier: string): string {
  return crypto.createHash("sha256").update(verifier, "ascii").digest("base64url");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function scopeList(scope: string): string[] {
  return scope.split(" ").filter(Boolean);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Reads a request body, refusing one over MAX_BODY_BYTES. */
async function readBody(req: http.IncomingMessage): Promise<Buffer<ArrayBuffer>> {
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Whether the request's body is of this media type (parameters such as charset aside). */
function hasMediaType(req: http.IncomingMessage, type: string): boolean {
  return (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase() === type;
}

/**
 * Parses a query string or form body. `repeated` names a parameter sent more than once, which
 * RFC 6749 §3.1 forbids; `resource` may repeat (RFC 8707 §2).
 */
function parseParams(text: string): { params: URLSearchParams; repeated?: string } {
  const params = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (seen.has(key) && key !== "resource") return { params, repeated: key };
    seen.add(key);
  }
  return { params };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** An HTML page that no other site may frame (a consent page must not be clickjacked, RFC 6819 §4.4.1.9). */
function sendHtml(res: http.ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "frame-ancestors 'none'",
    "x-frame-options": "DENY",
  });
  res.end(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>${body}</body></html>\n`,
  );
}

/** The page for an authorization request that cannot be sent back to the client (RFC 6749 §4.1.2.1). */
function sendErrorPage(res: http.ServerResponse, message: string): void {
  sendHtml(res, 400, "Authorization error", `<h1>Authorization error</h1>\n<p>${escapeHtml(message)}</p>`);
}

function methodNotAllowed(res: http.ServerResponse, allow: string): void {
  sendJson(res, 405, { error: "method_not_allowed" }, { allow });
}

/** Runs a request's handler; an over-long body answers 413, anything unexpected 500. */
function serve(res: http.ServerResponse, work: () => Promise<void>): void {
  work().catch((err: unknown) => {
    if (res.headersSent) return void res.end();
    if (err instanceof BodyTooLarge) {
      return sendJson(res, 413, { error: "invalid_request", error_description: "The body is over 64 KiB" }, { connection: "close" });
    }
    sendJson(res, 500, { error: "server_error", error_description: String(err) });
  });
}

// ---------------------------------------------------------------------------------------------
// The resource server: /mcp and its protected resource metadata (RFC 9728)

function protectedResourceMetadata(state: State) {
  return {
    resource: state.mcpUrl,
    authorization_servers: [state.issuer],
    scopes_supported: state.scopes,
    bearer_methods_supported: ["header"],
  };
}

/** Why a request may not reach the MCP endpoint, or null when its bearer token is good here (RFC 6750 §3.1). */
function bearerProblem(state: State, req: http.IncomingMessage): { error?: "invalid_token"; description: string } | null {
  const header = (req.headers.authorization ?? "").trim();
  if (!/^bearer\s/i.test(header)) return { description: "The request carries no bearer token" };
  const token = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)?.[1];
  if (!token) return { error: "invalid_token", description: "The Authorization header is malformed" };
  const record = state.access.get(token);
  if (!record) return { error: "invalid_token", description: "The access token is unknown or revoked" };
  if (record.expiresAt <= Date.now()) return { error: "invalid_token", description: "The access token has expired" };
  // RFC 8707 and the MCP spec: a server accepts only tokens issued for it.
  if (record.grant.resource !== state.mcpUrl)
    return { error: "invalid_token", description: "The access token was not issued for this resource" };
  return null;
}

/** A 401 that points the client at the protected resource metadata (RFC 9728 §5.1). */
function challenge(state: State, res: http.ServerResponse, problem: { error?: string; description: string }): void {
  state.log.unauthorized++;
  const params = [`resource_metadata="${state.resourceMetadataUrl}"`];
  if (problem.error) params.push(`error="${problem.error}"`);
  sendJson(
    res,
    401,
    { error: problem.error ?? "unauthorized", error_description: problem.description },
    { "www-authenticate": `Bearer ${params.join(", ")}` },
  );
}

async function handleResourceServer(state: State, handler: McpHttpHandler, req: http.IncomingMessage, res: http.ServerResponse) {
  const path = new URL(req.url ?? "/", state.mcpUrl).pathname;
  if (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource") {
    if (req.method !== "GET") return methodNotAllowed(res, "GET");
    return sendJson(res, 200, protectedResourceMetadata(state));
  }
  if (path !== "/mcp") return sendJson(res, 404, { error: "not_found" });
  const problem = bearerProblem(state, req);
  if (problem) return challenge(state, res, problem);
  await serveV2McpRequest(handler, req, res, await readBody(req));
}

// ---------------------------------------------------------------------------------------------
// The authorization server: metadata (RFC 8414)

function authorizationServerMetadata(state: State) {
  return {
    issuer: state.issuer,
    authorization_endpoint: `${state.issuer}/authorize`,
    token_endpoint: `${state.issuer}/token`,
    registration_endpoint: `${state.issuer}/register`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    scopes_supported: state.scopes,
    authorization_response_iss_parameter_supported: true,
  };
}

// ---------------------------------------------------------------------------------------------
// Dynamic client registration (RFC 7591)

type RegistrationOutcome = { client: RegisteredClient; answer: Record<string, unknown> } | { error: string; description: string };

/** What is wrong with a redirect URI, or null: absolute, no fragment, https or a loopback http (MCP spec, OAuth 2.1 §2.3.1). */
function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string") return "a redirect URI must be a string";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (uri.includes("#")) return `${uri} has a fragment`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return null;
  return `${uri} is neither https nor a loopback http URL`;
}

function stringArray(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : null;
}

/** Checks submitted client metadata and builds the client it registers, or says why not. */
function checkRegistration(state: State, submitted: unknown): RegistrationOutcome {
  if (!submitted || typeof submitted !== "object" || Array.isArray(submitted)) {
    return { error: "invalid_client_metadata", description: "The body must be a JSON object" };
  }
  const meta = submitted as Record<string, unknown>;
  const redirectUris = stringArray(meta.redirect_uris);
  if (!redirectUris || redirectUris.length === 0)
    return { error: "invalid_redirect_uri", description: "redirect_uris must be a non-empty array" };
  const uriProblem = redirectUris.map(redirectUriProblem).find((p) => p !== null);
  if (uriProblem) return { error: "invalid_redirect_uri", description: uriProblem };

  // RFC 7591 §2: an omitted token_endpoint_auth_method means client_secret_basic.
  const authMethod = meta.token_endpoint_auth_method ?? "client_secret_basic";
  if (!AUTH_METHODS.includes(authMethod as ClientAuthMethod)) {
    return { error: "invalid_client_metadata", description: `token_endpoint_auth_method ${String(authMethod)} is not supported` };
  }
  // RFC 7591 §2: omitted grant_types mean ["authorization_code"], omitted response_types ["code"].
  const grantTypes = meta.grant_types === undefined ? ["authorization_code"] : stringArray(meta.grant_types);
  if (!grantTypes || !grantTypes.every((g) => GRANT_TYPES.includes(g as GrantType)) || !grantTypes.includes("authorization_code")) {
    return {
      error: "invalid_client_metadata",
      description: `grant_types must include authorization_code and only ${GRANT_TYPES.join(", ")}`,
    };
  }
  const responseTypes = meta.response_types === undefined ? ["code"] : stringArray(meta.response_types);
  if (!responseTypes || responseTypes.length !== 1 || responseTypes[0] !== "code") {
    return { error: "invalid_client_metadata", description: 'response_types must be ["code"]' };
  }
  if (meta.client_name !== undefined && typeof meta.client_name !== "string") {
    return { error: "invalid_client_metadata", description: "client_name must be a string" };
  }
  if (meta.scope !== undefined && (typeof meta.scope !== "string" || scopeList(meta.scope).some((s) => !state.scopes.includes(s)))) {
    return { error: "invalid_client_metadata", description: `scope must be among ${state.scopes.join(" ")}` };
  }

  const client: RegisteredClient = {
    clientId: randomToken(),
    redirectUris,
    name: meta.client_name,
    authMethod: authMethod as ClientAuthMethod,
    grantTypes: grantTypes as GrantType[],
    ...(authMethod === "none" ? {} : { secret: randomToken() }),
  };
  const answer: Record<string, unknown> = {};
  for (const field of ECHOED_METADATA) if (meta[field] !== undefined) answer[field] = meta[field];
  Object.assign(answer, {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    redirect_uris: redirectUris,
    token_endpoint_auth_method: client.authMethod,
    grant_types: client.grantTypes,
    response_types: responseTypes,
    ...(client.secret ? { client_secret: client.secret, client_secret_expires_at: 0 } : {}),
  });
  return { client, answer };
}

function handleRegister(state: State, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  if (!hasMediaType(req, "application/json")) {
    return sendJson(res, 400, { error: "invalid_client_metadata", error_description: "Send the client metadata as application/json" });
  }
  let submitted: unknown;
  try {
    submitted = JSON.parse(body.toString("utf8"));
  } catch {
    return sendJson(res, 400, { error: "invalid_client_metadata", error_description: "The body is not JSON" });
  }
  const outcome = checkRegistration(state, submitted);
  if ("error" in outcome) return sendJson(res, 400, { error: outcome.error, error_description: outcome.description });
  const { client, answer } = outcome;
  state.clients.set(client.clientId, client);
  state.log.registrations.push({
    client_id: client.clientId,
    redirect_uris: client.redirectUris,
    ...(client.name === undefined ? {} : { client_name: client.name }),
  });
  sendJson(res, 201, answer, NO_STORE);
}

// ---------------------------------------------------------------------------------------------
// The authorization endpoint (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2, RFC 9207 §2)

type AuthorizeOutcome =
  | { kind: "page"; message: string }
  | { kind: "redirect"; redirectUri: string; state?: string; error: string; description: string }
  | { kind: "ok"; request: AuthorizationRequest };

/**
 * The client and redirect URI of an authorization request, or why the request cannot be sent back:
 * an unknown client or an unregistered redirect URI gets a page, never a redirect (RFC 6749 §4.1.2.1).
 */
function checkClientAndRedirect(
  state: State,
  params: URLSearchParams,
  repeated: string | undefined,
): { client: RegisteredClient; redirectUri: string; sent: boolean } | string {
  if (repeated === "client_id" || repeated === "redirect_uri") return `${repeated} is sent more than once`;
  const clientId = params.get("client_id");
  if (!clientId) return "The request names no client_id";
  const client = state.clients.get(clientId);
  if (!client) return "The client_id is not registered here";
  const sent = params.get("redirect_uri");
  if (sent === null) {
    // OAuth 2.1 §4.1.1: redirect_uri may be left out only when the client registered exactly one.
    if (client.redirectUris.length !== 1) return "redirect_uri is required: the client registered several";
    return { client, redirectUri: client.redirectUris[0], sent: false };
  }
  if (!client.redirectUris.includes(sent)) return "The redirect_uri is not one the client registered";
  return { client, redirectUri: sent, sent: true };
}

/** Checks an authorization request in full. */
function checkAuthorizationRequest(state: State, params: URLSearchParams, repeated: string | undefined): AuthorizeOutcome {
  const target = checkClientAndRedirect(state, params, repeated);
  if (typeof target === "string") return { kind: "page", message: target };
  const clientState = params.get("state") ?? undefined;
  const refuse = (error: string, description: string): AuthorizeOutcome => ({
    kind: "redirect",
    redirectUri: target.redirectUri,
    state: clientState,
    error,
    description,
  });
  if (repeated) return refuse("invalid_request", `${repeated} is sent more than once`);
  const responseType = params.get("response_type");
  if (!responseType) return refuse("invalid_request", "response_type is required");
  if (responseType !== "code") return refuse("unsupported_response_type", "Only response_type=code is supported");
  const challenge = params.get("code_challenge");
  if (!challenge) return refuse("invalid_request", "code_challenge is required (PKCE)");
  if (params.get("code_challenge_method") !== "S256") return refuse("invalid_request", "code_challenge_method must be S256");
  if (!PKCE_VALUE.test(challenge)) return refuse("invalid_request", "code_challenge is malformed");
  const scope = params.get("scope") ?? state.scopes.join(" ");
  const unknownScope = scopeList(scope).find((s) => !state.scopes.includes(s));
  if (unknownScope !== undefined) return refuse("invalid_scope", `Scope ${unknownScope} is not supported`);
  const resources = params.getAll("resource");
  if (resources.some((r) => r !== state.mcpUrl)) return refuse("invalid_target", `The only resource here is ${state.mcpUrl}`);
  return {
    kind: "ok",
    request: {
      client: target.client,
      redirectUri: target.redirectUri,
      redirectUriSent: target.sent,
      state: clientState,
      codeChallenge: challenge,
      resource: resources[0],
      scope: scopeList(scope).join(" "),
    },
  };
}

/** Sends the user agent back to the client with these parameters, plus state and iss (RFC 9207 §2). */
function redirectBack(
  state: State,
  res: http.ServerResponse,
  status: 302 | 303,
  redirectUri: string,
  clientState: string | undefined,
  params: Record<string, string>,
): void {
  const location = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) location.searchParams.set(name, value);
  if (clientState !== undefined) location.searchParams.set("state", clientState);
  location.searchParams.set("iss", state.issuer);
  res.writeHead(status, { location: location.href, "cache-control": "no-store" });
  res.end();
}

/** Mints a single-use code for a consented request. */
function issueCode(state: State, request: AuthorizationRequest): string {
  const grant: Grant = { id: randomToken(), clientId: request.client.clientId, resource: request.resource, scope: request.scope };
  const code = randomToken();
  state.codes.set(code, { request, grant, expiresAt: Date.now() + CODE_TTL_MS, used: false });
  return code;
}

/** Ends an authorization request the way the person decided. */
function finishAuthorization(
  state: State,
  res: http.ServerResponse,
  status: 302 | 303,
  request: AuthorizationRequest,
  allow: boolean,
): void {
  const params: Record<string, string> = allow
    ? { code: issueCode(state, request) }
    : { error: "access_denied", error_description: "The resource owner denied the request" };
  redirectBack(state, res, status, request.redirectUri, request.state, params);
}

function consentPage(state: State, res: http.ServerResponse, request: AuthorizationRequest): void {
  const id = randomToken();
  state.pending.set(id, { request, expiresAt: Date.now() + CONSENT_TTL_MS });
  const name = request.client.name ?? request.client.clientId;
  const body = [
    `<h1>Authorize ${escapeHtml(name)}</h1>`,
    `<p>${escapeHtml(name)} asks to use ${escapeHtml(request.resource ?? "this server")} with the scope "${escapeHtml(request.scope)}".</p>`,
    `<form method="post" action="${escapeHtml(state.issuer)}/authorize">`,
    `<input type="hidden" name="request_id" value="${escapeHtml(id)}">`,
    `<button name="decision" value="allow">Allow</button>`,
    `<button name="decision" value="deny">Deny</button>`,
    `</form>`,
  ].join("\n");
  sendHtml(res, 200, `Authorize ${name}`, body);
}

function handleAuthorizeGet(state: State, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { params, repeated } = parseParams(new URL(req.url ?? "/", state.issuer).search);
  state.log.resources.push(...params.getAll("resource"));
  const outcome = checkAuthorizationRequest(state, params, repeated);
  if (outcome.kind === "page") return sendErrorPage(res, outcome.message);
  if (outcome.kind === "redirect") {
    return redirectBack(state, res, 302, outcome.redirectUri, outcome.state, {
      error: outcome.error,
      error_description: outcome.description,
    });
  }
  if (state.consent === "form") return consentPage(state, res, outcome.request);
  finishAuthorization(state, res, 302, outcome.request, state.consent === "auto");
}

/** The consent form's answer: the pending request it names, allowed or denied. */
function handleAuthorizePost(state: State, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  if (!hasMediaType(req, "application/x-www-form-urlencoded")) return sendErrorPage(res, "The form must be sent form-urlencoded");
  const { params } = parseParams(body.toString("utf8"));
  const id = params.get("request_id") ?? "";
  const pending = state.pending.get(id);
  state.pending.delete(id);
  if (!pending || pending.expiresAt <= Date.now()) return sendErrorPage(res, "This authorization request is unknown, finished or expired");
  const decision = params.get("decision");
  if (decision !== "allow" && decision !== "deny") return sendErrorPage(res, "The decision must be allow or deny");
  finishAuthorization(state, res, 303, pending.request, decision === "allow");
}

// ---------------------------------------------------------------------------------------------
// The token endpoint (RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.5; RFC 8707 §2.2)

/** The client_id and secret of an HTTP Basic Authorization header (RFC 6749 §2.3.1), or null. */
function basicCredentials(req: http.IncomingMessage): { id: string; secret: string } | null {
  const match = /^basic +([A-Za-z0-9+/]+=*)$/i.exec((req.headers.authorization ?? "").trim());
  if (!match) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  // Both halves are form-urlencoded before encoding (RFC 6749 §2.3.1); a client that skips that sends the same text here.
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

/** The client making a token request, authenticated the way it registered (RFC 6749 §2.3, §3.2.1). */
function authenticateClient(state: State, req: http.IncomingMessage, params: URLSearchParams): RegisteredClient {
  const triedBasic = /^basic\s/i.test((req.headers.authorization ?? "").trim());
  const refuse = (description: string) =>
    new TokenError("invalid_client", description, 401, triedBasic ? { "www-authenticate": `Basic realm="${state.issuer}"` } : {});
  const basic = basicCredentials(req);
  if (triedBasic && !basic) throw refuse("The Basic Authorization header is malformed");
  const bodyId = params.get("client_id");
  const bodySecret = params.get("client_secret");
  if (basic && bodySecret !== null) throw new TokenError("invalid_request", "Use one way of authenticating the client, not two");
  if (basic && bodyId !== null && bodyId !== basic.id)
    throw new TokenError("invalid_request", "client_id differs from the Basic credentials");
  const id = basic?.id ?? bodyId;
  if (!id) throw refuse("The request does not say which client it is");
  const client = state.clients.get(id);
  if (!client) throw refuse("The client is not registered here");
  const used: ClientAuthMethod = basic ? "client_secret_basic" : bodySecret !== null ? "client_secret_post" : "none";
  if (used !== client.authMethod) throw refuse(`The client registered to authenticate with ${client.authMethod}, not ${used}`);
  const secret = basic?.secret ?? bodySecret;
  if (client.secret !== undefined && (secret === null || !sameSecret(secret, client.secret))) throw refuse("The client secret is wrong");
  return client;
}

/** Refuses `resource` values other than the one the grant is for (RFC 8707 §2.2). */
function checkResources(params: URLSearchParams, grant: Grant): void {
  const sent = params.getAll("resource");
  if (sent.some((r) => r !== grant.resource)) {
    throw new TokenError("invalid_target", grant.resource ? `This grant is for ${grant.resource} only` : "This grant names no resource");
  }
}

/** Drops every token that came from one grant. */
function revokeGrant(state: State, grantId: string): void {
  for (const [token, record] of state.access) if (record.grant.id === grantId) state.access.delete(token);
  for (const [token, grant] of state.refresh) if (grant.id === grantId) state.refresh.delete(token);
}

/** A new access token, and a refresh token when the client registered for the refresh_token grant. */
function issueTokens(state: State, client: RegisteredClient, grant: Grant, scope: string): Record<string, string | number> {
  const accessToken = randomToken();
  state.access.set(accessToken, { grant, scope, expiresAt: Date.now() + state.accessTtlSec * 1000 });
  const answer: Record<string, string | number> = {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: state.accessTtlSec,
    scope,
  };
  if (client.grantTypes.includes("refresh_token")) {
    const refreshToken = randomToken();
    state.refresh.set(refreshToken, grant);
    answer.refresh_token = refreshToken;
  }
  return answer;
}

function redeemCode(state: State, client: RegisteredClient, params: URLSearchParams): Record<string, string | number> {
  const code = params.get("code");
  if (!code) throw new TokenError("invalid_request", "code is required");
  const record = state.codes.get(code);
  if (!record || record.request.client.clientId !== client.clientId)
    throw new TokenError("invalid_grant", "The code is unknown or was issued to another client");
  if (record.used) {
    // OAuth 2.1 §4.1.3: a code used twice may have been stolen; what it led to is revoked.
    revokeGrant(state, record.grant.id);
    throw new TokenError("invalid_grant", "The code was already used");
  }
  record.used = true;
  if (record.expiresAt <= Date.now()) throw new TokenError("invalid_grant", "The code has expired");
  const { request } = record;
  const redirectUri = params.get("redirect_uri");
  if (request.redirectUriSent ? redirectUri !== request.redirectUri : redirectUri !== null && redirectUri !== request.redirectUri) {
    throw new TokenError("invalid_grant", "redirect_uri differs from the authorization request's");
  }
  const verifier = params.get("code_verifier");
  if (!verifier) throw new TokenError("invalid_request", "code_verifier is required (PKCE)");
  if (!PKCE_VALUE.test(verifier) || !sameSecret(s256(verifier), request.codeChallenge)) {
    throw new TokenError("invalid_grant", "The code_verifier does not match the code_challenge");
  }
  checkResources(params, record.grant);
  return issueTokens(state, client, record.grant, record.grant.scope);
}

/** Trades a refresh token for new tokens; the old refresh token stops working (OAuth 2.1 §4.3.1). */
function redeemRefreshToken(state: State, client: RegisteredClient, params: URLSearchParams): Record<string, string | number> {
  const refreshToken = params.get("refresh_token");
  if (!refreshToken) throw new TokenError("invalid_request", "refresh_token is required");
  const grant = state.refresh.get(refreshToken);
  if (!grant || grant.clientId !== client.clientId)
    throw new TokenError("invalid_grant", "The refresh token is unknown, revoked or already used");
  const asked = params.get("scope");
  const granted = scopeList(grant.scope);
  if (asked !== null && scopeList(asked).some((s) => !granted.includes(s))) {
    throw new TokenError("invalid_scope", "A refresh cannot widen the scope granted");
  }
  checkResources(params, grant);
  state.refresh.delete(refreshToken);
  return issueTokens(state, client, grant, asked !== null ? scopeList(asked).join(" ") : grant.scope);
}

function handleToken(state: State, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
  const { params, repeated } = parseParams(body.toString("utf8"));
  state.log.resources.push(...params.getAll("resource"));
  try {
    if (!hasMediaType(req, "application/x-www-form-urlencoded")) {
      throw new TokenError("invalid_request", "Send the request as application/x-www-form-urlencoded");
    }
    if (repeated) throw new TokenError("invalid_request", `${repeated} is sent more than once`);
    const client = authenticateClient(state, req, params);
    const grantType = params.get("grant_type");
    if (!grantType) throw new TokenError("invalid_request", "grant_type is required");
    if (!GRANT_TYPES.includes(grantType as GrantType))
      throw new TokenError("unsupported_grant_type", `grant_type ${grantType} is not supported`);
    if (!client.grantTypes.includes(grantType as GrantType)) {
      throw new TokenError("unauthorized_client", `The client did not register for the ${grantType} grant`);
    }
    const answer = grantType === "authorization_code" ? redeemCode(state, client, params) : redeemRefreshToken(state, client, params);
    state.log.grants.push(grantType);
    sendJson(res, 200, answer, NO_STORE);
  } catch (err) {
    if (!(err instanceof TokenError)) throw err;
    state.log.tokenErrors.push(err.code);
    sendJson(res, err.status, { error: err.code, error_description: err.message }, { ...NO_STORE, ...err.headers });
  }
}

async function handleAuthorizationServer(state: State, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", state.issuer).pathname;
  if (path === "/.well-known/oauth-authorization-server") {
    if (req.method !== "GET") return methodNotAllowed(res, "GET");
    return sendJson(res, 200, authorizationServerMetadata(state));
  }
  if (path === "/authorize") {
    if (req.method === "GET") return handleAuthorizeGet(state, req, res);
    if (req.method === "POST") return handleAuthorizePost(state, req, res, await readBody(req));
    return methodNotAllowed(res, "GET, POST");
  }
  if (path === "/token" || path === "/register") {
    if (req.method !== "POST") return methodNotAllowed(res, "POST");
    const body = await readBody(req);
    return path === "/token" ? handleToken(state, req, res, body) : handleRegister(state, req, res, body);
  }
  sendJson(res, 404, { error: "not_found" });
}

// ---------------------------------------------------------------------------------------------

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

async function stop(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function checkOptions(options: { accessTtlSec?: number; scopes?: string[] }): void {
  if (options.accessTtlSec !== undefined && !(options.accessTtlSec > 0)) throw new Error("accessTtlSec must be above 0");
  if (options.scopes && (options.scopes.length === 0 || options.scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)))) {
    throw new Error("scopes must be a non-empty list of scope tokens (RFC 6749 §3.3)");
  }
}

/** Starts the resource server and the authorization server, each on a loopback port of its own. */
export async function startOAuthMcpServer(options: { accessTtlSec?: number; scopes?: string[] } = {}): Promise<OAuthMcpServer> {
  checkOptions(options);
  const handler = createV2McpHandler();
  const state: State = {
    mcpUrl: "",
    issuer: "",
    resourceMetadataUrl: "",
    scopes: options.scopes ?? ["mcp"],
    accessTtlSec: options.accessTtlSec ?? 3600,
    consent: "auto",
    clients: new Map(),
    codes: new Map(),
    pending: new Map(),
    access: new Map(),
    refresh: new Map(),
    log: { registrations: [], grants: [], tokenErrors: [], unauthorized: 0, resources: [] },
  };
  const resourceServer = http.createServer((req, res) => serve(res, () => handleResourceServer(state, handler, req, res)));
  const authorizationServer = http.createServer((req, res) => serve(res, () => handleAuthorizationServer(state, req, res)));
  const [resourcePort, authorizationPort] = await Promise.all([listen(resourceServer), listen(authorizationServer)]);
  state.mcpUrl = `http://127.0.0.1:${resourcePort}/mcp`;
  state.resourceMetadataUrl = `http://127.0.0.1:${resourcePort}/.well-known/oauth-protected-resource/mcp`;
  state.issuer = `http://127.0.0.1:${authorizationPort}`;
  return {
    mcpUrl: state.mcpUrl,
    issuer: state.issuer,
    log: state.log,
    setConsent(mode) {
      state.consent = mode;
    },
    expireAccessTokens() {
      for (const record of state.access.values()) record.expiresAt = 0;
    },
    revokeAll() {
      state.access.clear();
      state.refresh.clear();
    },
    async close() {
      await handler.close();
      await Promise.all([stop(resourceServer), stop(authorizationServer)]);
    },
  };
}
