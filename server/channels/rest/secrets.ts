// REST v1 for secrets (docs/secrets.md, docs/api.md), for admins and automation:
// the same service, validation and audit as Settings → Secrets. A value is
// accepted and never returned; provider keys are managed with their provider.
import { SecretNotFoundError, SecretValidationError, listToolSecrets, removeToolSecret, setSecretScope, setToolSecret, type SecretKeyring } from "@/server/secrets";
import { HttpError, readJson } from "./http";
import type { Route, RouteContext } from "./v1";

function keyring(ctx: RouteContext): SecretKeyring {
  if (!ctx.keyring) throw new HttpError(503, "UNAVAILABLE", "Secrets are not available on this server");
  return ctx.keyring;
}

/** Who changed a secret; the CLI says it is the CLI, for the audit log's channel. */
const who = (ctx: RouteContext) => ({
  userId: ctx.actor.userId,
  name: ctx.actor.name || ctx.actor.email,
  channel: ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api",
});

export const SECRET_ROUTES: Route[] = [
  { method: "GET", pattern: /^\/api\/v1\/secrets$/, minRole: "admin", handle: async (ctx) => ({ secrets: await listToolSecrets(ctx.db) }) },
  {
    method: "POST",
    pattern: /^\/api\/v1\/secrets$/,
    minRole: "admin",
    handle: async (ctx) => setToolSecret(ctx.db, keyring(ctx), (await readJson(ctx.req)) as never, who(ctx)),
  },
  {
    // Who may be given it: { agents: [...], teams: [...], callerCommands: bool }.
    method: "PUT",
    pattern: /^\/api\/v1\/secrets\/(.+)\/scope$/,
    minRole: "admin",
    handle: async (ctx) => setSecretScope(ctx.db, { name: ctx.params[0], scope: (await readJson(ctx.req)) as never }, who(ctx)),
  },
  {
    // A name may hold slashes ("deploy/token"), sent as they are or as %2F.
    method: "DELETE",
    pattern: /^\/api\/v1\/secrets\/(.+)$/,
    minRole: "admin",
    async handle(ctx) {
      await removeToolSecret(ctx.db, ctx.params[0], who(ctx));
      return { ok: true };
    },
  },
];

export function translateSecretError(err: unknown): unknown {
  if (err instanceof SecretNotFoundError) return new HttpError(404, "NOT_FOUND", err.message);
  if (err instanceof SecretValidationError) return new HttpError(400, "INVALID_INPUT", err.message);
  return err;
}
