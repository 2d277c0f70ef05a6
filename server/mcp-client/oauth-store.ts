// What Rein keeps of an HTTP MCP server's OAuth authorization
// (docs/mcp.md#oauth): one setting per server, by the server's id. The client
// registration, the tokens and the PKCE verifier of an authorization under way
// are sealed with the secrets keyring, bound to the server and to what they
// are, so a sealed value copied to another server or field does not open.
// Nothing here is ever sent to a browser, a model, a trace or a log.
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { Db } from "@/server/db";
import { openValue, sealValue, type SecretKeyring } from "@/server/secrets";

/** An authorization an admin started and has not finished: at most one per server, for 10 minutes. */
export const PENDING_TTL_MS = 10 * 60_000;

export interface PendingAuthorization {
  /** SHA-256 of the random half of the `state` parameter (hex). */
  nonceHash: string;
  /** The PKCE code verifier, sealed. */
  verifier: string;
  /** The admin who started it: only they can finish it. */
  userId: string;
  expiresAt: number;
}

export interface OAuthRecord {
  /** The client registration (dynamic, or the admin's client id), sealed. */
  client?: string;
  /** Access and refresh tokens, sealed. */
  tokens?: string;
  /** Where the protected-resource and authorization-server metadata said to go (nothing secret). */
  discovery?: OAuthDiscoveryState;
  pending?: PendingAuthorization;
  authorizedBy?: { id: string; name: string };
  authorizedAt?: string;
  /** When the access token stops working, as the authorization server said (ISO), or null when it did not say. */
  expiresAt?: string | null;
  scope?: string | null;
  /** Why an admin must authorize Rein again, in a person's words; null once it works. */
  problem?: string | null;
  /** Why an admin's last authorization did not finish (the tokens Rein holds, if any, still work). */
  lastAttempt?: string | null;
  /** A new random value with each authorization: a refresh begun under an older one writes nothing. */
  epoch?: string;
  /** The MCP server's URL the tokens were given for: they are never sent anywhere else. */
  resource?: string;
}

function parsed(value: string | undefined): OAuthRecord {
  if (!value) return {};
  try {
    const record: unknown = JSON.parse(value);
    return record && typeof record === "object" ? (record as OAuthRecord) : {};
  } catch {
    return {};
  }
}

export const oauthSettingKey = (serverId: string) => `mcp.oauth.${serverId}`;
const place = (serverId: string, what: "client" | "tokens" | "verifier") => `mcp.oauth:${serverId}:${what}`;

/** Reads and writes one server's record; writes in one process go one at a time, so two saves never lose each other's part. */
export class OAuthRecords {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly keyring: SecretKeyring | undefined,
  ) {}

  async read(serverId: string): Promise<OAuthRecord> {
    const row = await this.db.setting.findUnique({ where: { key: oauthSettingKey(serverId) } });
    return parsed(row?.value);
  }

  /**
   * Changes the record with `change`, one change at a time per server in this
   * process, and compare-and-set against other processes: a record changed
   * meanwhile is read again and `change` runs again on it. With `guard`, a
   * record it refuses is left as it is (and `change` is not run).
   */
  update<T = void>(
    serverId: string,
    change: (record: OAuthRecord) => T | Promise<T>,
    guard?: (record: OAuthRecord) => boolean,
  ): Promise<T | undefined> {
    return this.queued(serverId, async () => {
      const key = oauthSettingKey(serverId);
      for (let attempt = 0; ; attempt++) {
        const row = await this.db.setting.findUnique({ where: { key } });
        const record = parsed(row?.value);
        if (guard && !guard(record)) return undefined;
        const result = await change(record);
        const value = JSON.stringify(record);
        if (row) {
          const { count } = await this.db.setting.updateMany({ where: { key, value: row.value }, data: { value } });
          if (count === 1) return result;
        } else {
          const created = await this.db.setting.create({ data: { key, value } }).then(
            () => true,
            () => false, // another process created it meanwhile
          );
          if (created) return result;
        }
        if (attempt >= 4) throw new Error("the server's OAuth record kept changing while Rein wrote it; try again");
      }
    });
  }

  /** Deletes the record, after any change under way. */
  remove(serverId: string): Promise<void> {
    return this.queued(serverId, async () => {
      await this.db.setting.deleteMany({ where: { key: oauthSettingKey(serverId) } });
    });
  }

  private queued<T>(serverId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(serverId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    const settled = next.finally(() => {
      if (this.queues.get(serverId) === settled) this.queues.delete(serverId);
    });
    settled.catch(() => {});
    this.queues.set(serverId, settled);
    return next;
  }

  seal(serverId: string, what: "client" | "tokens" | "verifier", value: string): string {
    return sealValue(this.requireKeyring(), place(serverId, what), value);
  }

  open(serverId: string, what: "client" | "tokens" | "verifier", sealed: string): string {
    return openValue(this.requireKeyring(), place(serverId, what), sealed);
  }

  tokensOf(serverId: string, record: OAuthRecord): StoredOAuthTokens | undefined {
    return record.tokens ? (JSON.parse(this.open(serverId, "tokens", record.tokens)) as StoredOAuthTokens) : undefined;
  }

  clientOf(serverId: string, record: OAuthRecord): StoredOAuthClientInformation | undefined {
    return record.client ? (JSON.parse(this.open(serverId, "client", record.client)) as StoredOAuthClientInformation) : undefined;
  }

  private requireKeyring(): SecretKeyring {
    if (!this.keyring) throw new Error("OAuth tokens cannot be kept: this server has no secret key (docs/secrets.md#the-key-at-rest)");
    return this.keyring;
  }
}
