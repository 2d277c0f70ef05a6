// OAuth 2.1 for hosted MCP servers (docs/mcp.md#oauth): an admin presses
// Authorize on the server's page, logs in at the server's authorization
// server, and comes back to Rein's callback; Rein then holds the tokens,
// sealed, and refreshes them as the server asks. Authorization code with
// PKCE (S256), the resource indicator, the issuer check of RFC 9207, and
// dynamic client registration are the SDK's; what Rein adds is who may start
// and finish it, where the secrets live, and what an admin is told.
import { timingSafeEqual } from "node:crypto";
import { auth, type AuthProvider } from "@modelcontextprotocol/client";
import { recordAudit } from "@/server/audit";
import { getSecretValue } from "@/server/secrets";
import type { Actor } from "@/server/identity";
import type { ServerConnections } from "./connections";
import { McpError, requireMcpAdmin } from "./errors";
import type { OAuthConfig } from "./input";
import { oauthFetchFor } from "./oauth-fetch";
import { ConnectionOAuthProvider, InteractiveOAuthProvider, connectionAuth, sha256Hex, type ProviderOptions } from "./oauth-provider";
import { serverNamed, type LiveServer, type McpState } from "./state";

/** Where the authorization server sends the admin's browser back (on Rein's public URL). */
export const OAUTH_CALLBACK_PATH = "/api/mcp/oauth/callback";
const STATE = /^([a-z0-9]{1,64})\.([A-Za-z0-9_-]{43})$/;
const MAX_SHOWN = 300;

export interface McpOAuthView {
  /** not_authorized: nobody has yet; authorized: Rein holds tokens; expired: they stopped working, an admin authorizes again. */
  status: "not_authorized" | "authorized" | "expired";
  authorizedBy: { id: string; name: string } | null;
  authorizedAt: string | null;
  /** When the access token stops working (Rein refreshes it when the server says so). */
  expiresAt: string | null;
  scope: string | null;
  /** The authorization server, once Rein has found it. */
  issuer: string | null;
  /** Why an admin must act, in a person's words. */
  problem: string | null;
  /** An admin's authorization is under way (until the callback or 10 minutes). */
  pending: boolean;
  /** Where the authorization server must send the browser back: what an admin registers for a client of their own. */
  redirectUrl: string;
}

/** The callback's query, as the authorization server sent it. */
export interface OAuthCallback {
  state?: string;
  code?: string;
  iss?: string;
  error?: string;
  error_description?: string;
}

export type OAuthOutcome = { server: string; ok: true } | { server: string; ok: false; message: string };

/** Text a remote server wrote, made safe to show: printable, one line, bounded. */
function shown(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return clean.length > MAX_SHOWN ? `${clean.slice(0, MAX_SHOWN)}…` : clean;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

export class McpOAuth {
  constructor(
    private readonly state: McpState,
    private readonly connections: ServerConnections,
  ) {}

  /** Starts an admin's authorization: where to send their browser. */
  async begin(actor: Actor, name: string, channel = "admin"): Promise<{ authorizationUrl: string }> {
    requireMcpAdmin(actor, "Authorizing Rein at an MCP server");
    const live = serverNamed(this.state, name);
    const options = await providerOptions(this.state, live);
    if (!options || live.config.transport !== "http")
      throw new McpError("CONFLICT", `The MCP server ${name} does not use OAuth; turn OAuth on in its settings first`);
    if (!this.state.deps.keyring)
      throw new McpError("UNAVAILABLE", "Rein has no secret key, so it cannot keep OAuth tokens (docs/secrets.md#the-key-at-rest)");
    const provider = new InteractiveOAuthProvider(this.state.oauth, options, actor.userId);
    let result: string;
    try {
      result = await auth(provider, {
        serverUrl: live.config.http.url,
        ...(options.config.scope ? { scope: options.config.scope } : {}),
        fetchFn: oauthFetchFor(live.config.http.url, options.config.authorizationServer),
        forceReauthorization: true,
      });
    } catch (err) {
      throw new McpError("UNAVAILABLE", `Rein could not start the authorization at ${name}: ${shown(describeAuthError(err))}`);
    }
    const url = provider.authorizationUrl;
    if (result !== "REDIRECT" || !url) throw new McpError("UNAVAILABLE", `The server ${name} sent no authorization address`);
    // The browser goes there: only a web address, never a script or a file.
    if (url.protocol !== "https:" && url.protocol !== "http:")
      throw new McpError("UNAVAILABLE", `The server ${name}'s authorization address is not a web address (${shown(url.protocol)})`);
    // An authorization server the admin named is the only one: the server may not send the admin's browser elsewhere.
    const pinned = options.config.authorizationServer;
    const found = (await this.state.oauth.read(live.id)).discovery?.authorizationServerUrl;
    if (pinned && (url.origin !== new URL(pinned).origin || (found && new URL(found).origin !== new URL(pinned).origin))) {
      await this.state.oauth.update(live.id, (r) => void delete r.pending);
      throw new McpError(
        "UNAVAILABLE",
        `Rein talks only to the authorization server an admin named for ${name} (${new URL(pinned).origin}); the server named ${shown(found ? new URL(found).origin : url.origin)}`,
      );
    }
    await this.audit(actor, channel, "mcp.server.authorization_started", live, { issuer: url.origin });
    return { authorizationUrl: url.toString() };
  }

  /** The authorization server sent the admin back: the code becomes tokens, and the server reconnects. */
  async finish(actor: Actor, query: OAuthCallback): Promise<OAuthOutcome> {
    requireMcpAdmin(actor, "Finishing an MCP server's authorization");
    const match = STATE.exec(query.state ?? "");
    if (!match)
      throw new McpError("INVALID_INPUT", "This address is not an authorization Rein started (its state is missing or malformed)");
    const [, serverId, nonce] = match;
    const live = [...this.state.live.values()].find((l) => l.id === serverId);
    if (!live) throw new McpError("NOT_FOUND", "This authorization is for an MCP server that is no longer attached");
    const taken = await this.state.oauth.update(serverId, (r) => {
      const p = r.pending;
      if (!p || p.expiresAt < Date.now() || !sameHash(sha256Hex(nonce), p.nonceHash)) return "unknown" as const;
      if (p.userId !== actor.userId) return "other" as const;
      // Taken once: the same answer cannot be used again.
      delete r.pending;
      return p;
    });
    if (taken === "other") throw new McpError("FORBIDDEN", "Another admin started this authorization; only they can finish it");
    if (taken === undefined || taken === "unknown")
      throw new McpError(
        "CONFLICT",
        "This authorization is not the one Rein is waiting for, or it is older than 10 minutes; press Authorize again",
      );
    if (query.error) {
      const message = `The authorization server said no: ${shown(query.error)}${query.error_description ? ` (${shown(query.error_description)})` : ""}`;
      return this.failed(actor, live, message);
    }
    if (!query.code) return this.failed(actor, live, "The authorization server sent Rein back without a code");
    const options = await providerOptions(this.state, live);
    if (!options || live.config.transport !== "http") return this.failed(actor, live, "The server no longer uses OAuth");
    try {
      const verifier = this.state.oauth.open(serverId, "verifier", taken.verifier);
      const provider = new InteractiveOAuthProvider(this.state.oauth, options, actor.userId, verifier);
      const result = await auth(provider, {
        serverUrl: live.config.http.url,
        authorizationCode: query.code,
        ...(query.iss !== undefined ? { iss: query.iss } : {}),
        fetchFn: oauthFetchFor(live.config.http.url, options.config.authorizationServer),
      });
      if (result !== "AUTHORIZED") return this.failed(actor, live, "The authorization server did not give Rein a token");
    } catch (err) {
      return this.failed(actor, live, `Rein could not get a token: ${shown(describeAuthError(err))}`);
    }
    await this.state.oauth.update(serverId, (r) => {
      r.authorizedBy = { id: actor.userId, name: actor.name };
      r.authorizedAt = new Date().toISOString();
      r.problem = null;
      r.lastAttempt = null;
    });
    await this.audit(actor, "admin", "mcp.server.authorized", live, {});
    await this.reconnect(live);
    return { server: live.name, ok: true };
  }

  /** Forgets the tokens and the registration: the server needs a new authorization. */
  async forget(actor: Actor, name: string, channel = "admin"): Promise<void> {
    requireMcpAdmin(actor, "Removing an MCP server's authorization");
    const live = serverNamed(this.state, name);
    await this.state.oauth.remove(live.id);
    await this.audit(actor, channel, "mcp.server.authorization_removed", live, {});
    await this.reconnect(live);
  }

  private async failed(actor: Actor, live: LiveServer, message: string): Promise<OAuthOutcome> {
    await this.state.oauth.update(live.id, (r) => void (r.lastAttempt = message));
    await this.audit(actor, "admin", "mcp.server.authorization_failed", live, { message });
    return { server: live.name, ok: false, message };
  }

  private async reconnect(live: LiveServer) {
    await this.connections.disconnect(live);
    if (live.enabled && this.state.live.get(live.name) === live) await this.connections.connect(live).catch(() => {});
  }

  private async audit(actor: Actor, channel: string, kind: string, live: LiveServer, detail: Record<string, unknown>) {
    await recordAudit(this.state.deps.db, {
      kind,
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      subject: live.name,
      fromState: null,
      toState: kind.split(".").pop()!,
      detail,
    });
  }
}

export const oauthRedirectUrl = (state: McpState) =>
  new URL(OAUTH_CALLBACK_PATH, state.deps.publicUrl ?? "http://localhost:3000").toString();

/** What admins read of a server's authorization; null for a server without OAuth. */
export async function oauthView(state: McpState, live: LiveServer): Promise<McpOAuthView | null> {
  if (live.config.transport !== "http" || !live.config.http.oauth) return null;
  const r = await state.oauth.read(live.id);
  const status = r.tokens ? (r.problem ? "expired" : "authorized") : r.authorizedAt ? "expired" : "not_authorized";
  return {
    status,
    authorizedBy: r.authorizedBy ?? null,
    authorizedAt: r.authorizedAt ?? null,
    expiresAt: r.expiresAt ?? null,
    scope: r.scope ?? null,
    issuer: r.discovery?.authorizationServerMetadata?.issuer ?? r.discovery?.authorizationServerUrl ?? null,
    // An admin's own last attempt says more than the connection's general words.
    problem: r.lastAttempt ?? r.problem ?? null,
    pending: !!r.pending && r.pending.expiresAt > Date.now(),
    redirectUrl: oauthRedirectUrl(state),
  };
}

async function providerOptions(state: McpState, live: LiveServer): Promise<ProviderOptions | null> {
  if (live.config.transport !== "http" || !live.config.http.oauth) return null;
  const config: OAuthConfig = live.config.http.oauth;
  let clientSecret: string | undefined;
  if (config.clientSecret) {
    const { db, keyring } = state.deps;
    if (!keyring)
      throw new McpError("UNAVAILABLE", `the secret ${config.clientSecret.secret} cannot be opened: this server has no secret key`);
    clientSecret = await getSecretValue(db, keyring, config.clientSecret.secret).catch(() => {
      throw new McpError("INVALID_INPUT", `the secret ${config.clientSecret!.secret} does not exist; add it in Settings › Secrets`);
    });
    state.deps.secrets?.remember([{ name: config.clientSecret.secret, value: clientSecret }]);
  }
  const redactor = state.deps.secrets;
  return {
    serverId: live.id,
    serverUrl: live.config.http.url,
    redirectUrl: oauthRedirectUrl(state),
    config,
    ...(clientSecret ? { clientSecret } : {}),
    ...(redactor
      ? { remember: (values: string[]) => redactor.remember(values.map((value) => ({ name: `MCP_OAUTH_${live.name}`, value }))) }
      : {}),
  };
}

/** What a live connection authenticates with, or nothing when the server does not use OAuth. */
export async function connectionAuthFor(state: McpState, live: LiveServer): Promise<AuthProvider | undefined> {
  const options = await providerOptions(state, live);
  if (!options || live.config.transport !== "http") return undefined;
  return connectionAuth(new ConnectionOAuthProvider(state.oauth, options), live.config.http.url, options.config.authorizationServer);
}

/** What went wrong in an OAuth exchange, without the SDK's wording around it. */
export function describeAuthError(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; cause?: { message?: unknown } };
  const message = typeof e?.message === "string" ? e.message : String(err);
  const cause = typeof e?.cause?.message === "string" && !message.includes(e.cause.message) ? ` (${e.cause.message})` : "";
  return `${message}${cause}`;
}
