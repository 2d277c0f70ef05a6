// users.*: Settings › People (docs/people-and-teams.md), for admins. Every change is
// audited; the last active admin cannot be demoted or disabled, and nobody
// can disable themselves.
import {
  ById,
  CreateUserInput,
  SetRoleInput,
  addUser,
  createResetLink,
  disableUser,
  enableUser,
  listUsers,
  setUserRole,
} from "@/server/identity";
import { acting } from "../acting";
import { adminProcedure, router } from "../trpc";

const ok = { ok: true as const };

export const usersRouter = router({
  list: adminProcedure.query(({ ctx }) => listUsers(ctx.db)),
  create: adminProcedure.input(CreateUserInput).mutation(({ ctx, input }) => addUser(ctx.db, acting(ctx.actor), input)),
  setRole: adminProcedure.input(SetRoleInput).mutation(async ({ ctx, input }) => {
    await setUserRole(ctx.db, acting(ctx.actor), input.id, input.role);
    return ok;
  }),
  disable: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await disableUser(ctx.db, acting(ctx.actor), input.id);
    return ok;
  }),
  enable: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    await enableUser(ctx.db, acting(ctx.actor), input.id);
    return ok;
  }),
  /** A single-use password-reset link, valid 24 hours; the URL is shown once. */
  resetLink: adminProcedure.input(ById).mutation(async ({ ctx, input }) => {
    const { url, expiresAt } = await createResetLink(ctx.db, acting(ctx.actor), input.id, ctx.linkBase);
    return { url, expiresAt };
  }),
});
