// The SDK's OAuthClientProvider for one HTTP MCP server (docs/mcp.md#oauth),
// over the sealed record in oauth-store.ts. Two kinds:
// - "connection": what a live connection uses. It hands the transport the
//   token, lets the SDK refresh it, and never starts an authorization itself
//   (no person is there to log in): when the SDK would send a browser to the
//   authorization server, the record says why an admin must authorize again.
//   What it writes belongs to the authorization it began under (the record's
//   epoch): a refresh still under way when an admin forgets the tokens or
//   authorizes again writes nothing.
// - "interactive": an admin pressed Authorize. It keeps the PKCE verifier and
//   the state's hash for the callback and hands back where to send the browser;
//   the tokens it gets start a new epoch.
// Tokens are only ever sent to the server URL they were given for.
import { createHash, randomBytes, randomUUID } from "node:crypto";
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
import type { OAuthConfig } from "./input";
import { oauthFetchFor } from "./oauth-fetch";
import { PENDING_TTL_MS, type OAuthRecord, type OAuthRecords } from "./oauth-store";

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** The `state` parameter: the server's id (to find the record) and a random nonce (to prove the callback is the one started). */
export function newState(serverId: string): { state: string; nonceHash: string } {
  const nonce = randomBytes(32).toString("base64url");
  return { state: `${serverId}.${nonce}`, nonceHash: sha256Hex(nonce) };
}

export interface ProviderOptions {
  serverId: string;
  /** The MCP server's URL: the resource the tokens are for. */
  serverUrl: string;
  redirectUrl: string;
  config: OAuthConfig;
  /** The admin's client secret, opened from Rein's secrets, when the config names one. */
  clientSecret?: string;
  /** Tells the redactor a token's value, so a server echoing it back never puts it in a run, a trace or a log. */
  remember?: (values: string[]) => void;
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

  /** Writes to the record only while `mayWrite` holds for it (the connection's epoch); an admin's writes always go. */
  protected mayWrite(_record: OAuthRecord): boolean {
    return true;
  }

  protected write(change: (r: OAuthRecord) => void): Promise<void> {
    return this.records.update(this.serverId, change, (r) => this.mayWrite(r)).then(() => undefined);
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { config, clientSecret, serverId } = this.options;
    const record = await this.records.read(serverId);
    // A client the admin registered by hand wins over any dynamic registration; it is never copied into the record.
    if (config.clientId) {
      const issuer = record.discovery?.authorizationServerMetadata?.issuer;
      return { client_id: config.clientId, ...(clientSecret ? { client_secret: clientSecret } : {}), ...(issuer ? { issuer } : {}) };
    }
    return this.records.clientOf(serverId, record);
  }

  async saveClientInformation(info: StoredOAuthClientInformation): Promise<void> {
    if (this.options.config.clientId) return;
    await this.write((r) => void (r.client = this.records.seal(this.serverId, "client", JSON.stringify(info))));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    const record = await this.records.read(this.serverId);
    // Tokens given for another URL (the server was moved) are not this server's.
    if (record.resource && record.resource !== this.options.serverUrl) return undefined;
    const tokens = this.records.tokensOf(this.serverId, record);
    if (tokens) this.options.remember?.([tokens.access_token, tokens.refresh_token ?? ""].filter(Boolean));
    return tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    this.options.remember?.([tokens.access_token, tokens.refresh_token ?? ""].filter(Boolean));
    await this.write((r) => {
      r.tokens = this.records.seal(this.serverId, "tokens", JSON.stringify(tokens));
      r.resource = this.options.serverUrl;
      r.expiresAt = typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000).toISOString() : null;
      r.scope = tokens.scope ?? null;
      r.problem = null;
      this.stamp(r);
    });
  }

  /** What else a save of tokens writes (an admin's starts a new epoch). */
  protected stamp(_record: OAuthRecord): void {}

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.records.read(this.serverId)).discovery;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.write((r) => void (r.discovery = state));
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    await this.write((r) => {
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
  /** The authorization a refresh began under (the record's epoch then; null before any). */
  private epoch: string | null = null;

  /** Reads the epoch a refresh about to start belongs to. */
  async beginRefresh(): Promise<void> {
    this.epoch = (await this.records.read(this.serverId)).epoch ?? null;
  }

  protected override mayWrite(record: OAuthRecord): boolean {
    return (record.epoch ?? null) === this.epoch;
  }

  /** A fresh authorization would be needed: the record says so for the admin, and the call fails with UnauthorizedError. */
  async redirectToAuthorization(): Promise<void> {
    await this.write((r) => {
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

/** How long a connection keeps the opened access token before it reads the record again (another process may have changed it). */
const HOLD_TOKEN_MS = 30_000;

/**
 * What the connection's transport gets: the token before each request and, on
 * a 401, a refresh through the SDK's auth() with Rein's guarded fetch (the
 * transport's own fetch would reach any address the server names).
 */
export function connectionAuth(provider: ConnectionOAuthProvider, serverUrl: string, authorizationServer?: string): AuthProvider {
  const fetchFn = oauthFetchFor(serverUrl, authorizationServer);
  // The access token is opened once and kept for 30 s, or until the server refuses it: reading and opening the
  // sealed record before every request cost a millisecond a call (docs/performance.md#mcp-oauth-and-tasks-on-the-call-path).
  // Forgetting the tokens or authorizing again elsewhere reaches this connection within those 30 s.
  let held: { token: Promise<string | undefined>; at: number } | null = null;
  const read = () => {
    const token = provider.tokens().then(
      (t) => t?.access_token,
      (err: unknown) => {
        held = null;
        throw err;
      },
    );
    held = { token, at: Date.now() };
    return token;
  };
  return {
    token: () => (held && Date.now() - held.at < HOLD_TOKEN_MS ? held.token : read()),
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

/** The refresh under way, per connection: a rotating refresh token can be spent once. */
const refreshing = new WeakMap<ConnectionOAuthProvider, Promise<void>>();

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
  const current = refreshing.get(provider);
  if (current) return current;
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  const done = provider
    .beginRefresh()
    .then(() =>
      auth(provider, {
        serverUrl,
        ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
        ...(scope ? { scope } : {}),
        fetchFn,
      }),
    )
    .then((result) => {
      if (result !== "AUTHORIZED") throw new UnauthorizedError();
    })
    .finally(() => refreshing.delete(provider));
  refreshing.set(provider, done);
  return done;
}

/** An admin's authorization: from Authorize to the callback. */
export class InteractiveOAuthProvider extends RecordProvider {
  /** Where to send the admin's browser, once the SDK has built it. */
  authorizationUrl: URL | null = null;
  private pendingState: { state: string; nonceHash: string } | null = null;
  /** The epoch the tokens of this authorization start. */
  readonly epoch = randomUUID();

  constructor(
    records: OAuthRecords,
    options: ProviderOptions,
    private readonly userId: string,
    /** The verifier taken from the record at the callback (finish); absent when starting. */
    private readonly takenVerifier?: string,
  ) {
    super(records, options);
  }

  protected override stamp(record: OAuthRecord): void {
    record.epoch = this.epoch;
  }

  /**
   * An exchange the authorization server refuses deletes nothing: the tokens
   * Rein holds from before still work (the SDK would delete them and retry).
   */
  override async invalidateCredentials(): Promise<void> {}

  /** One state per authorization, whichever the SDK asks for first: the state or the verifier's saving. */
  state(): string {
    this.pendingState ??= newState(this.options.serverId);
    return this.pendingState.state;
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    this.state();
    const { nonceHash } = this.pendingState!;
    await this.write((r) => {
      r.pending = {
        nonceHash,
        verifier: this.records.seal(this.serverId, "verifier", verifier),
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
