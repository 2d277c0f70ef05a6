import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { ROLES, createUser } from "@/server/identity";
import { adminProcedure, router } from "../trpc";

const CreateUserInput = z.object({
  email: z.email("a valid email is required"),
  name: z.string().trim().min(1).max(100).optional(),
  password: z.string().min(8, "the password needs at least 8 characters").max(200),
  role: z.enum(ROLES),
});

export const usersRouter = router({
  list: adminProcedure.query(({ ctx }) =>
    ctx.db.user.findMany({
      select: { id: true, email: true, name: true, role: true, createdAt: true, disabledAt: true },
      orderBy: { createdAt: "asc" },
    }),
  ),
  create: adminProcedure.input(CreateUserInput).mutation(async ({ ctx, input }) => {
    const exists = await ctx.db.user.findUnique({ where: { email: input.email.toLowerCase() }, select: { id: true } });
    if (exists) throw new TRPCError({ code: "CONFLICT", message: `A user with the email ${input.email} already exists` });
    return { id: await createUser(ctx.db, input) };
  }),
  setRole: adminProcedure.input(z.object({ id: z.string().min(1), role: z.enum(ROLES) })).mutation(async ({ ctx, input }) => {
    if (input.id === ctx.actor.userId && input.role !== "admin") {
      throw new TRPCError({ code: "BAD_REQUEST", message: "You cannot remove your own admin role" });
    }
    const res = await ctx.db.user.updateMany({ where: { id: input.id }, data: { role: input.role } });
    if (res.count === 0) throw new TRPCError({ code: "NOT_FOUND", message: "No such user" });
    return { ok: true as const };
  }),
});
