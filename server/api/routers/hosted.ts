// hosted.*: Settings › Hosted agents (docs/hosted-agents.md#the-programs).
// Everyone signed in sees the programs and which of their agents use them;
// admins install a program's pinned package (in the background) and test
// that it starts and answers. The service checks the role and audits.
import { z } from "zod";
import { adminProcedure, router, viewerProcedure } from "../trpc";

const ById = z.object({ id: z.string().min(1, "Name the program, e.g. claude-code").max(100) }).strict();

const channelOf = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "admin" : "api");

export const hostedRouter = router({
  list: viewerProcedure.query(({ ctx }) => ctx.hosted.list(ctx.actor)),
  /** Starts the install and returns at once; list shows how it goes. */
  install: adminProcedure.input(ById).mutation(({ ctx, input }) => ctx.hosted.install(ctx.actor, input.id, channelOf(ctx))),
  /** Starts the program in a throwaway sandbox and says what it answered to initialize. */
  test: adminProcedure.input(ById).mutation(({ ctx, input }) => ctx.hosted.test(ctx.actor, input.id)),
});
