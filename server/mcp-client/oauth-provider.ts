// The SDK's OAuthClientProvider for one HTTP MCP server (docs/mcp.md#oauth),
// over the sealed record in oauth-store.ts. Two kinds:
// - "connection": what a live connection uses. It hands the transport the
//   token, lets the SDK refresh it, and never starts an authorization itself
//   (no person is there to log in): when the SDK would send a browser to the
//   authorization server, the record says why an admin must authorize again.
// - "interactive": an admin pressed Authorize. It keeps the PKCE verifier and
//   the state's hash for the callback and hands back where to send the browser.
import { createHash, randomBytes } from "node:crypto";
import {
  UnauthorizedError,
  auth,
  extractWWWAuthenticateParams,
  type AuthProvider,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { oauthFetchFor } from "./oauth-fetch";
import type { OAuthConfig } from "./input";
import { PENDING_TTL_MS, type OAuthRecords } from "./oauth-store";

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** The `state` parameter: the server's id (to find the record) and a random nonce (to prove the callback is the one started). */
export function newState(serverId: string): { state: string; nonceHash: string } {
  const nonce = randomBytes(32).toString("base64url");
  return { state: `${serverId}.${nonce}`, nonceHash: sha256Hex(nonce) };
}

export interface ProviderOptions {
  serverId: string;
  redirectUrl: string;
  config: OAuthConfig;
  /** The admin's client secret, opened from Rein's secrets, when the config names one. */
  clientSecret?: string;
}

abstract class RecordProvider implements OAuthClientProvider {
  constructor(
    protected readonly records: OAuthRecords,
    protected readonly options: ProviderOptions,
  ) {}

  get serverId(): string {
    return this.options.serverId;
  }

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { config, clientSecret } = this.options;
    return {
      client_name: "Rein",
      redirect_uris: [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: clientSecret ? "client_secret_post" : "none",
      ...(config.scope ? { scope: config.scope } : {}),
    };
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { config, clientSecret, serverId } = this.options;
    // A client the admin registered by hand wins over any dynamic registration.
    if (config.clientId) return { client_id: config.clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    return this.records.clientOf(serverId, await this.records.read(serverId));
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    const { serverId } = this.options;
    await this.records.update(serverId, (r) => void (r.client = this.records.seal(serverId, "client", JSON.stringify(info))));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    const { serverId } = this.options;
    return this.records.tokensOf(serverId, await this.records.read(serverId));
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const { serverId } = this.options;
    await this.records.update(serverId, (r) => {
      r.tokens = this.records.seal(serverId, "tokens", JSON.stringify(tokens));
      r.expiresAt = typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null;
      r.scope = tokens.scope ?? null;
      r.problem = null;
    });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.records.read(this.options.serverId)).discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.records.update(this.options.serverId, (r) => void (r.discovery = state));
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    await this.records.update(this.options.serverId, (r) => {
      if (scope === "all" || scope === "client") delete r.client;
      if (scope === "all" || scope === "tokens") delete r.tokens;
      if (scope === "all" || scope === "discovery") delete r.discovery;
      if (scope === "all" || scope === "verifier") delete r.pending;
    });
  }

  abstract redirectToAuthorization(url: URL): Promise<void>;
  abstract saveCodeVerifier(verifier: string): Promise<void>;
  abstract codeVerifier(): Promise<string>;
}

/** What a live connection uses: tokens and refresh, never a new authorization. */
export class ConnectionOAuthProvider extends RecordProvider {
  /** A fresh authorization would be needed: the record says so for the admin, and the call fails with UnauthorizedError. */
  async redirectToAuthorization(): Promise<void> {
    await this.records.update(this.options.serverId, (r) => {
      r.problem = r.authorizedAt
        ? "The authorization server no longer accepts Rein's tokens; an admin authorizes Rein again"
        : "Rein is not authorized at this server yet; an admin presses Authorize on its page";
    });
  }

  /** Only an admin's authorization keeps a verifier; a connection's attempt must not replace it. */
  async saveCodeVerifier(): Promise<void> {}

  async codeVerifier(): Promise<string> {
    throw new Error("no authorization is under way on this connection");
  }

  state(): string {
    return randomBytes(16).toString("base64url");
  }
}

/**
 * What the connection's transport gets: the token before each request and, on
 * a 401, a refresh through the SDK's auth() with Rein's guarded fetch (the
 * transport's own fetch would reach any address the server names).
 */
export function connectionAuth(provider: ConnectionOAuthProvider, serverUrl: string): AuthProvider {
  const fetchFn = oauthFetchFor(serverUrl);
  // The access token is opened once and kept until the server refuses it: reading and opening the sealed record
  // before every request cost a millisecond a call (bench:mcp). A refresh always reads the record afresh, since
  // another process may have rotated the refresh token meanwhile.
  let held: Promise<string | undefined> | null = null;
  return {
    token: () => (held ??= provider.tokens().then((t) => t?.access_token)),
    onUnauthorized: async (ctx) => {
      held = null;
      try {
        await refreshOnce(provider, serverUrl, ctx.response, fetchFn);
      } finally {
        held = null;
      }
    },
  };
}

/** The refresh under way, per server: a rotating refresh token can be spent once. */
const refreshing = new Map<string, Promise<void>>();

/**
 * Calls that got a 401 while a refresh is under way wait for it instead of
 * starting their own: three refreshes with the same rotating token would have
 * the server refuse two, and the refusal would wipe the fresh tokens. A 401
 * after it ends starts a new one, with the newest refresh token.
 */
function refreshOnce(
  provider: ConnectionOAuthProvider,
  serverUrl: string,
  response: Response,
  fetchFn: ReturnType<typeof oauthFetchFor>,
): Promise<void> {
  const key = provider.serverId;
  const current = refreshing.get(key);
  if (current) return current;
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  const done = auth(provider, {
    serverUrl,
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    fetchFn,
  })
    .then((result) => {
      if (result !== "AUTHORIZED") throw new UnauthorizedError();
    })
    .finally(() => refreshing.delete(key));
  refreshing.set(key, done);
  return done;
}

/** An admin's authorization: from Authorize to the callback. */
export class InteractiveOAuthProvider extends RecordProvider {
  /** Where to send the admin's browser, once the SDK has built it. */
  authorizationUrl: URL | null = null;
  private pendingState: { state: string; nonceHash: string } | null = null;

  constructor(
    records: OAuthRecords,
    options: ProviderOptions,
    private readonly userId: string,
    /** The verifier taken from the record at the callback (finish); absent when starting. */
    private readonly takenVerifier?: string,
  ) {
    super(records, options);
  }

  /** One state per authorization, whichever the SDK asks for first: the state or the verifier's saving. */
  state(): string {
    this.pendingState ??= newState(this.options.serverId);
    return this.pendingState.state;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    const { serverId } = this.options;
    this.state();
    const { nonceHash } = this.pendingState!;
    await this.records.update(serverId, (r) => {
      r.pending = {
        nonceHash,
        verifier: this.records.seal(serverId, "verifier", verifier),
        userId: this.userId,
        expiresAt: Date.now() + PENDING_TTL_MS,
      };
      r.lastAttempt = null;
    });
  }

  async codeVerifier(): Promise<string> {
    if (!this.takenVerifier) throw new Error("no authorization is under way");
    return this.takenVerifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
  }
}
