// secrets.*: Settings → Secrets (docs/secrets.md), for admins. Names, who
// created each and when it was last used; a value goes in and never comes
// back out. Provider API keys are managed with their provider (models.*).
// Operators see the names alone, to give a run some at launch.
import { z } from "zod";
import {
  SecretName,
  SetScopeInput,
  SetSecretInput,
  listSecretNamesFor,
  listToolSecrets,
  removeToolSecret,
  setSecretScope,
  setToolSecret,
} from "@/server/secrets";
import type { Actor } from "@/server/identity";
import { adminProcedure, operatorProcedure, router } from "../trpc";

const ByName = z.object({ name: SecretName });

const who = (actor: Actor) => ({
  userId: actor.userId,
  name: actor.name || actor.email,
  channel: actor.via === "session" ? "web" : actor.via === "token" ? "api" : "cli",
});

export const secretsRouter = router({
  list: adminProcedure.query(({ ctx }) => listToolSecrets(ctx.db)),
  /**
   * What the New run dialog offers: each secret's name and the variable its
   * tools see, nothing else; to a non-admin only those their teams' runs may be given.
   */
  names: operatorProcedure.query(({ ctx }) => listSecretNamesFor(ctx.db, ctx.actor)),
  set: adminProcedure.input(SetSecretInput).mutation(({ ctx, input }) => setToolSecret(ctx.db, ctx.keyring, input, who(ctx.actor))),
  /** Who may be given it: agents, teams, and runs whose commands come from their launcher. */
  setScope: adminProcedure.input(SetScopeInput).mutation(({ ctx, input }) => setSecretScope(ctx.db, input, who(ctx.actor))),
  delete: adminProcedure.input(ByName).mutation(async ({ ctx, input }) => {
    await removeToolSecret(ctx.db, input.name, who(ctx.actor));
    return { ok: true as const };
  }),
});
