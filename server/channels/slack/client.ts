// The Slack Web API client, built from the bot token in Rein's secret store,
// and Slack's failures said in words. Neither the token nor the signing
// secret ever goes into a message, a log line or an audit row.
import { WebClient, LogLevel } from "@slack/web-api";
import type { Db } from "@/server/db";
import { SecretDecryptError, SecretNotFoundError, getSecretValue, type SecretKeyring } from "@/server/secrets";
import { ChannelError } from "../errors";
import type { SlackSettings } from "./settings";

export const SLACK_API_URL = "https://slack.com/api/";
/** Slack answers within seconds or not at all; a notice is not worth a stuck dispatcher. */
const CALL_TIMEOUT_MS = 10_000;

export interface SlackDeps {
  db: Db;
  /** Opens the secrets holding the bot token and the signing secret. */
  keyring?: SecretKeyring;
  /** The Web API's base URL; REIN_SLACK_API_URL, else Slack's. */
  apiUrl?: string;
}

export function slackApiUrl(deps: Pick<SlackDeps, "apiUrl">): string {
  return deps.apiUrl ?? process.env.REIN_SLACK_API_URL ?? SLACK_API_URL;
}

/** A secret's value, or an UNAVAILABLE error naming the secret (never its value). */
export async function readSlackSecret(deps: SlackDeps, name: string, what: string): Promise<string> {
  if (!deps.keyring) throw new ChannelError("UNAVAILABLE", "This server has no secret key, so it cannot read Slack's secrets");
  try {
    return await getSecretValue(deps.db, deps.keyring, name, { touch: false });
  } catch (err) {
    if (err instanceof SecretNotFoundError)
      throw new ChannelError("UNAVAILABLE", `The ${what} is missing: add a secret named ${name} in Settings › Secrets`);
    if (err instanceof SecretDecryptError)
      throw new ChannelError("UNAVAILABLE", `The secret ${name} (the ${what}) cannot be opened with this server's key`);
    throw err;
  }
}

/** A Web API client with the bot token; throws ChannelError when the token is missing. */
export async function slackClient(deps: SlackDeps, settings: SlackSettings): Promise<WebClient> {
  const token = await readSlackSecret(deps, settings.botTokenSecret, "Slack bot token");
  return new WebClient(token, {
    slackApiUrl: slackApiUrl(deps),
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    timeout: CALL_TIMEOUT_MS,
    rejectRateLimitedCalls: true,
  });
}

const PLATFORM_ERRORS: Record<string, string> = {
  invalid_auth: "Slack refused the bot token (invalid_auth): copy the Bot User OAuth Token (xoxb-…) into the secret again",
  not_authed: "Slack got no bot token (not_authed)",
  account_inactive: "The Slack app's token belongs to a deleted user or a removed app (account_inactive)",
  token_revoked: "The bot token was revoked (token_revoked): reinstall the Slack app and store its new token",
  missing_scope:
    "The Slack app lacks a permission it needs (missing_scope): add chat:write, users:read, users:read.email and im:write, then reinstall it",
  channel_not_found:
    "Slack does not know that channel, or the app cannot see it (channel_not_found): check the channel id and invite the app",
  not_in_channel: "The Slack app is not in that channel (not_in_channel): invite it with /invite @YourApp",
  user_not_found: "Slack does not know that user (user_not_found)",
  ratelimited: "Slack asked Rein to slow down (ratelimited); it tries again with the next message",
};

/** What went wrong with a Slack call, in words fit to show an admin (never a secret). */
export function describeSlackError(err: unknown): string {
  if (err instanceof ChannelError) return err.message;
  const e = err as { code?: string; data?: { error?: string }; statusCode?: number; original?: { code?: string; message?: string } };
  switch (e?.code) {
    case "slack_webapi_platform_error": {
      const code = e.data?.error ?? "unknown_error";
      return PLATFORM_ERRORS[code] ?? `Slack refused the call (${code})`;
    }
    case "slack_webapi_rate_limited_error":
      return PLATFORM_ERRORS.ratelimited;
    case "slack_webapi_http_error":
      return `Slack answered with HTTP ${e.statusCode ?? "error"}`;
    case "slack_webapi_request_error":
      return `Rein could not reach Slack (${e.original?.code ?? e.original?.message ?? "no network"}): check this server's network and REIN_SLACK_API_URL`;
    default:
      return `The Slack call failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}
