// REST v1 for MCP servers (docs/mcp.md, docs/mcp-server.md), for admins and the CLI:
// the same service, checks and audit as Settings › MCP servers. Secrets are
// named in a server's config and never returned.
import { z } from "zod";
import { type McpServers } from "@/server/mcp";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const serverPath = (rest = "") => new RegExp(`^/api/v1/mcp-servers/([^/]+)${rest}$`);
const toolPath = (rest = "") => serverPath(`/tools/([^/]+)${rest}`);

const ReviewBody = z
  .object({ accept: z.boolean({ error: "accept is true (pin the new definition) or false (keep the tool off)" }) })
  .strict();
const BudgetBody = z.object({ tokens: z.number({ error: "tokens is a whole number" }).int("tokens is a whole number") }).strict();

function mcpOf(ctx: RouteContext): McpServers {
  if (!ctx.mcp) throw new DomainError("UNAVAILABLE", "MCP servers are not available on this server");
  return ctx.mcp;
}

const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");

export const MCP_SERVER_ROUTES: Route[] = [
  { method: "GET", pattern: /^\/api\/v1\/mcp-servers$/, minRole: "admin", handle: (ctx) => mcpOf(ctx).list(ctx.actor) },
  {
    method: "POST",
    pattern: /^\/api\/v1\/mcp-servers$/,
    minRole: "admin",
    status: 201,
    handle: async (ctx) => mcpOf(ctx).add(ctx.actor, await readJson(ctx.req), channelOf(ctx)),
  },
  // Before the routes of one server: "demo" would otherwise read as a server's name.
  {
    method: "POST",
    pattern: /^\/api\/v1\/mcp-servers\/demo$/,
    minRole: "admin",
    status: 201,
    handle: (ctx) => mcpOf(ctx).addDemo(ctx.actor, channelOf(ctx)),
  },
  {
    method: "PUT",
    pattern: /^\/api\/v1\/mcp-servers\/token-budget$/,
    minRole: "admin",
    async handle(ctx) {
      const { tokens } = BudgetBody.parse(await readJson(ctx.req));
      return { tokens: await mcpOf(ctx).setTokenBudget(ctx.actor, tokens, channelOf(ctx)) };
    },
  },
  { method: "GET", pattern: serverPath(), minRole: "admin", handle: (ctx) => mcpOf(ctx).get(ctx.actor, ctx.params[0]) },
  {
    method: "PATCH",
    pattern: serverPath(),
    minRole: "admin",
    handle: async (ctx) => mcpOf(ctx).update(ctx.actor, ctx.params[0], await readJson(ctx.req), channelOf(ctx)),
  },
  {
    method: "DELETE",
    pattern: serverPath(),
    minRole: "admin",
    async handle(ctx) {
      await mcpOf(ctx).remove(ctx.actor, ctx.params[0], channelOf(ctx));
      return { ok: true };
    },
  },
  { method: "POST", pattern: serverPath("/test"), minRole: "admin", handle: (ctx) => mcpOf(ctx).test(ctx.actor, ctx.params[0]) },
  {
    method: "GET",
    pattern: serverPath("/tools"),
    minRole: "admin",
    handle: async (ctx) => ({ tools: await mcpOf(ctx).tools(ctx.actor, ctx.params[0]) }),
  },
  {
    method: "PATCH",
    pattern: toolPath(),
    minRole: "admin",
    handle: async (ctx) => mcpOf(ctx).setTool(ctx.actor, ctx.params[0], ctx.params[1], await readJson(ctx.req), channelOf(ctx)),
  },
  {
    method: "POST",
    pattern: toolPath("/review"),
    minRole: "admin",
    async handle(ctx) {
      const { accept } = ReviewBody.parse(await readJson(ctx.req));
      return mcpOf(ctx).review(ctx.actor, ctx.params[0], ctx.params[1], accept, channelOf(ctx));
    },
  },
];
