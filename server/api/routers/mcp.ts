// mcp.*: Settings › MCP servers (docs/mcp.md), for admins. Attach a
// server (or the bundled demo), test it, turn its tools on for agents and
// teams, review a tool whose definition changed, and set the token budget of
// the MCP tools one agent gets. The service checks the role, validates and
// audits; secrets appear by name only.
import { z } from "zod";
import { MCP_SERVER_NAME } from "@/server/mcp-client";
import { adminProcedure, router } from "../trpc";

const ServerName = z.string().regex(MCP_SERVER_NAME, "a server's name is 1-31 lower-case letters, digits and -, starting with a letter");
const ToolName = z.string().min(1, "Name the tool").max(128);
const ByName = z.object({ name: ServerName }).strict();
const ByTool = z.object({ server: ServerName, tool: ToolName });
const Config = z.record(z.string(), z.unknown());

const channelOf = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "admin" : "api");

export const mcpRouter = router({
  list: adminProcedure.query(({ ctx }) => ctx.mcp.list(ctx.actor)),
  get: adminProcedure.input(ByName).query(({ ctx, input }) => ctx.mcp.get(ctx.actor, input.name)),
  /** How many tools wait for an admin's review (the Settings badge). */
  pendingReviews: adminProcedure.query(({ ctx }) => ctx.mcp.pendingReviews()),
  add: adminProcedure.input(Config).mutation(({ ctx, input }) => ctx.mcp.add(ctx.actor, input, channelOf(ctx))),
  addDemo: adminProcedure.mutation(({ ctx }) => ctx.mcp.addDemo(ctx.actor, channelOf(ctx))),
  update: adminProcedure
    .input(z.object({ name: ServerName, patch: Config }).strict())
    .mutation(({ ctx, input }) => ctx.mcp.update(ctx.actor, input.name, input.patch, channelOf(ctx))),
  remove: adminProcedure.input(ByName).mutation(async ({ ctx, input }) => {
    await ctx.mcp.remove(ctx.actor, input.name, channelOf(ctx));
    return { ok: true as const };
  }),
  /** Starts an OAuth authorization at a hosted server: where to send this admin's browser (docs/mcp.md#oauth). */
  authorize: adminProcedure.input(ByName).mutation(({ ctx, input }) => ctx.mcp.authorize(ctx.actor, input.name, channelOf(ctx))),
  forgetAuthorization: adminProcedure.input(ByName).mutation(async ({ ctx, input }) => {
    await ctx.mcp.forgetAuthorization(ctx.actor, input.name, channelOf(ctx));
    return { ok: true as const };
  }),
  /** Restarts the server now and reports how it went. */
  test: adminProcedure.input(ByName).mutation(({ ctx, input }) => ctx.mcp.test(ctx.actor, input.name)),
  setTool: adminProcedure
    .input(ByTool.extend({ patch: Config }).strict())
    .mutation(({ ctx, input }) => ctx.mcp.setTool(ctx.actor, input.server, input.tool, input.patch, channelOf(ctx))),
  review: adminProcedure
    .input(ByTool.extend({ accept: z.boolean({ error: "accept is true or false" }) }).strict())
    .mutation(({ ctx, input }) => ctx.mcp.review(ctx.actor, input.server, input.tool, input.accept, channelOf(ctx))),
  setTokenBudget: adminProcedure
    .input(z.object({ tokens: z.number().int() }).strict())
    .mutation(async ({ ctx, input }) => ({ tokens: await ctx.mcp.setTokenBudget(ctx.actor, input.tokens, channelOf(ctx)) })),
});
