// What an admin gives Rein about an MCP server (docs/mcp.md), checked
// before anything is stored or started. Secret values never pass through
// here: a variable or a header names a Rein secret, and the value is read
// only when the server starts.
import path from "node:path";
import { z } from "zod";

export const MCP_SERVER_NAME = /^[a-z][a-z0-9-]{0,30}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;
/** Variables a stdio server may not set: they would change how the sandbox's own programs load. */
const RESERVED_ENV = new Set(["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "NODE_OPTIONS", "PATH", "HOME"]);
/** Headers the HTTP transport sets itself. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "connection",
  "transfer-encoding",
]);

export const SecretRef = z
  .object({ secret: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, "a secret's name is upper case letters, digits and _") })
  .strict();
export const PlainValue = z.object({ value: z.string().max(4096, "a value is at most 4096 characters") }).strict();
/** A variable's or a header's value: a Rein secret by name (never shown), or plain text (shown to admins). */
export const ConfigValue = z.union([SecretRef, PlainValue], { error: 'a value is { "secret": "NAME" } or { "value": "text" }' });
export type ConfigValue = z.infer<typeof ConfigValue>;

export const StdioConfig = z
  .object({
    /** "node" (the sandbox's Node) or an absolute path of a program under /usr. */
    command: z
      .string()
      .min(1, "the command is required")
      .max(512)
      .refine((c) => c === "node" || (path.posix.isAbsolute(c) && path.posix.normalize(c) === c && c.startsWith("/usr/")), {
        message: 'the command is "node" or an absolute path under /usr (the sandbox sees only the system and Rein\'s packages)',
      }),
    args: z.array(z.string().max(16_384, "an argument is at most 16,384 characters")).max(64, "at most 64 arguments").default([]),
    env: z
      .record(
        z
          .string()
          .regex(ENV_NAME, "a variable's name is letters, digits and _")
          .refine((n) => !RESERVED_ENV.has(n), { message: "Rein sets this variable itself" }),
        ConfigValue,
      )
      .refine((e) => Object.keys(e).length <= 64, { message: "at most 64 variables" })
      .default({}),
    /** The network: none (the default), or the machine's network for a server that needs it. */
    network: z.boolean().default(false),
  })
  .strict();
export type StdioConfig = z.infer<typeof StdioConfig>;

/** An http:// or https:// address with no user name or password in it. */
function webAddress(what: string) {
  return z
    .string()
    .max(2048)
    .refine(
      (u) => {
        try {
          const parsed = new URL(u);
          return (parsed.protocol === "https:" || parsed.protocol === "http:") && !parsed.username && !parsed.password;
        } catch {
          return false;
        }
      },
      { message: `${what} is an http:// or https:// address without a user name or password in it` },
    );
}

/** Scope tokens as RFC 6749 §3.3 allows them, space-separated. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/** OAuth 2.1 for a hosted server (docs/mcp.md#oauth): Rein registers itself, or uses the client an admin registered. */
export const OAuthConfig = z
  .object({
    /** What to ask for; empty: what the server's metadata lists. */
    scope: z.string().max(1024).regex(SCOPE, "scopes are words separated by single spaces").optional(),
    /**
     * The authorization server's address, when the admin knows it: Rein then
     * talks to no other, and may reach it on a private network. Empty: the one
     * the server names, on a public address.
     */
    authorizationServer: webAddress("the authorization server").optional(),
    /** A client an admin registered at the authorization server; empty: Rein registers itself (dynamic registration). */
    clientId: z.string().min(1).max(512).optional(),
    /** That client's secret, as a Rein secret (confidential clients only). */
    clientSecret: SecretRef.optional(),
  })
  .strict()
  .refine((o) => !o.clientSecret || o.clientId, { message: "a client secret goes with the client id it belongs to" });
export type OAuthConfig = z.infer<typeof OAuthConfig>;

export const HttpConfig = z
  .object({
    url: webAddress("the URL"),
    headers: z
      .record(
        z
          .string()
          .regex(HEADER_NAME, "not a header name")
          .refine((h) => !RESERVED_HEADERS.has(h.toLowerCase()), { message: "Rein sets this header itself" }),
        ConfigValue,
      )
      .refine((h) => Object.keys(h).length <= 32, { message: "at most 32 headers" })
      .default({}),
    oauth: OAuthConfig.optional(),
  })
  .strict()
  .refine((h) => !h.oauth || !Object.keys(h.headers).some((name) => name.toLowerCase() === "authorization"), {
    message: "with OAuth Rein sends the Authorization header itself; remove that header",
    path: ["headers"],
  });
export type HttpConfig = z.infer<typeof HttpConfig>;

const common = {
  name: z.string().regex(MCP_SERVER_NAME, "a server's name is 1-31 lower-case letters, digits and -, starting with a letter"),
  enabled: z.boolean().default(true),
  /** The longest one call may take, progress or not (seconds). */
  callTimeoutSec: z.number().int().min(1).max(3600).default(600),
};

export const AddMcpServerInput = z.discriminatedUnion(
  "transport",
  [
    z.object({ ...common, transport: z.literal("stdio"), stdio: StdioConfig }).strict(),
    z.object({ ...common, transport: z.literal("http"), http: HttpConfig }).strict(),
  ],
  { error: 'transport is "stdio" or "http"' },
);
export type AddMcpServerInput = z.infer<typeof AddMcpServerInput>;

export const UpdateMcpServerInput = z
  .object({
    enabled: z.boolean().optional(),
    callTimeoutSec: common.callTimeoutSec.optional(),
    stdio: StdioConfig.optional(),
    http: HttpConfig.optional(),
  })
  .strict();
export type UpdateMcpServerInput = z.infer<typeof UpdateMcpServerInput>;

export const REPLAY_CLASSES = ["pure", "idempotent_with_key", "unsafe_on_replay"] as const;
const scopeList = z
  .array(z.string().min(1).max(64))
  .max(200)
  .refine((l) => new Set(l).size === l.length, { message: "listed twice" });

export const SetMcpToolInput = z
  .object({
    enabled: z.boolean().optional(),
    /** null: from the tool's annotations. */
    replayOverride: z.enum(REPLAY_CLASSES).nullable().optional(),
    /** Agent names, "*" for any. */
    allowedAgents: scopeList.optional(),
    /** Team ids, "*" for any; a team's name is resolved to its id when saved. */
    allowedTeams: scopeList.optional(),
  })
  .strict();
export type SetMcpToolInput = z.infer<typeof SetMcpToolInput>;

/** The stored config of a server: what was given, secrets by name only. */
export type McpServerConfig =
  { transport: "stdio"; stdio: StdioConfig; callTimeoutSec: number } | { transport: "http"; http: HttpConfig; callTimeoutSec: number };

/** Every secret the config names. */
export function secretsNamed(config: McpServerConfig): string[] {
  const values = Object.values(config.transport === "stdio" ? config.stdio.env : config.http.headers);
  if (config.transport === "http" && config.http.oauth?.clientSecret) values.push(config.http.oauth.clientSecret);
  return [...new Set(values.flatMap((v) => ("secret" in v ? [v.secret] : [])))];
}
