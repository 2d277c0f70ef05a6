// REST v1 for secrets (docs/secrets.md, docs/api.md), for admins and automation:
// the same service, validation and audit as Settings → Secrets. A value is
// accepted and never returned; provider keys are managed with their provider.
import { z } from "zod";
import { SecretScopeInput, SetSecretInput, listToolSecrets, removeToolSecret, setSecretScope, setToolSecret } from "@/server/secrets";
import { defineRoute, type HandlerContext, type Route } from "./contract";
import { Instant, Ok, TeamRef } from "./schemas";

type Ctx = Pick<HandlerContext<unknown, unknown, unknown>, "keyring" | "actor" | "channel">;

/** Who changed a secret, with the channel for the audit log. */
const who = (ctx: Ctx) => ({ userId: ctx.actor.userId, name: ctx.actor.name || ctx.actor.email, channel: ctx.channel });

// The service's own inputs, with what each field is in words.
const ScopeInput = SecretScopeInput.extend({
  agents: SecretScopeInput.shape.agents.describe("Agent names that may be given the secret; * for any"),
  teams: SecretScopeInput.shape.teams.describe(
    "Team ids whose runs may be given it, * for any; a team's name is accepted and stored as its id",
  ),
  callerCommands: SecretScopeInput.shape.callerCommands.describe(
    "Runs that play a scenario (commands chosen by their caller) may be given it too",
  ),
});
const SetInput = SetSecretInput.extend({
  name: SetSecretInput.shape.name.describe("Starts with a letter or _; letters, digits and _ . : / - (at most 128); not provider/…"),
  value: SetSecretInput.shape.value.describe("At most 64 KiB"),
  scope: ScopeInput.optional().describe("Who may be given it; nobody until set"),
});

const SecretScope = z.object({
  agents: z.array(z.string()).describe("Agent names that may be given the secret; * for any"),
  teams: z.array(z.string()).describe("Team ids whose runs may be given it, * for any"),
  callerCommands: z.boolean().describe("Runs that play a scenario (commands chosen by their caller) may be given it too"),
});

const Secret = z
  .object({
    name: z.string(),
    env: z.string().describe("The environment variable a tool's process sees it as"),
    createdBy: z.object({ id: z.string(), name: z.string(), email: z.string() }).nullable(),
    createdAt: Instant,
    updatedAt: Instant,
    lastUsedAt: Instant.nullable(),
    scope: SecretScope.describe("Who may be given it (teams by id)"),
    teams: z.array(TeamRef).describe("The scope's teams with their current names"),
  })
  .describe("A secret, never its value");

export const SECRET_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/secrets",
    minRole: "admin",
    summary: "Secrets, never a value",
    description:
      "Names, the variable each reaches tools as, who created it, created/updated/last used, who may be given it. Provider keys are not listed.",
    response: z.object({ secrets: z.array(Secret) }),
    handle: async ({ db }) => ({ secrets: await listToolSecrets(db) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/secrets",
    minRole: "admin",
    summary: "Add a secret or replace its value",
    description: "Stored encrypted, never returned.",
    body: SetInput,
    response: Secret,
    responseDescription: "The secret, without its value",
    handle: (ctx) => setToolSecret(ctx.db, ctx.keyring, ctx.body, who(ctx)),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/secrets/{name}/scope",
    // A name may hold slashes ("deploy/token"), sent as they are or as %2F.
    slashed: "name",
    minRole: "admin",
    summary: "Say who may be given a secret: agents and teams",
    body: ScopeInput,
    response: Secret,
    responseDescription: "The secret, without its value",
    handle: (ctx) => setSecretScope(ctx.db, { name: ctx.params.name, scope: ctx.body }, who(ctx)),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/secrets/{name}",
    // A name may hold slashes ("deploy/token"), sent as they are or as %2F.
    slashed: "name",
    minRole: "admin",
    summary: "Delete a secret (a name with slashes may be sent as is)",
    response: Ok,
    async handle(ctx) {
      await removeToolSecret(ctx.db, ctx.params.name, who(ctx));
      return { ok: true };
    },
  }),
];
