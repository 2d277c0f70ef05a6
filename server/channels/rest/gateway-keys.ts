// REST v1 for team gateway keys (docs/gateway.md#team-keys, docs/api.md): the
// same service, checks and audit as Settings › Gateway keys. A login is enough
// here; the service checks that the caller is an admin of the key's team. The
// key itself is in the answer to POST alone.
import { z } from "zod";
import { CreateGatewayKeyInput, ListGatewayKeysInput, createGatewayKey, listGatewayKeys, revokeGatewayKey } from "@/server/gateway";
import { defineRoute, type Route } from "./contract";
import { Instant, TeamRef } from "./schemas";

const GatewayKey = z
  .object({
    id: z.string(),
    team: TeamRef,
    name: z.string(),
    prefix: z.string().describe("Its first characters, to tell keys apart"),
    budgetUsd: z.number().nullable().describe("The key's own cap per calendar month (UTC); null: only the team's budget"),
    model: z.string().nullable().describe('What the router resolves when a request names no model Rein knows; null: "auto"'),
    spentThisMonthUsd: z.number().describe("What its calls cost this calendar month (UTC)"),
    createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
    createdAt: Instant,
    lastUsedAt: Instant.nullable(),
    expiresAt: Instant.nullable(),
    revokedAt: Instant.nullable(),
    state: z.enum(["active", "revoked", "expired"]),
  })
  .meta({ id: "GatewayKey" });

const by = (ctx: { actor: Parameters<typeof listGatewayKeys>[1]; channel: "cli" | "api" }) => ({ actor: ctx.actor, channel: ctx.channel });

export const GATEWAY_KEY_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/gateway-keys",
    minRole: "viewer",
    summary: "The gateway keys of the teams you are an admin of (admins: every team), never a key itself",
    query: ListGatewayKeysInput,
    response: z.object({ keys: z.array(GatewayKey) }),
    errors: { 403: "You are an admin of no team", 404: "No such team, or not one you are in" },
    handle: async (ctx) => ({ keys: await listGatewayKeys(ctx.db, ctx.actor, ctx.query) }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/gateway-keys",
    minRole: "viewer",
    status: 201,
    summary: "Issue a gateway key for a team; the key is in this answer only",
    description:
      "Programs call the model gateway at /api/gateway/v1 with it (docs/gateway.md#team-keys). Only its SHA-256 is stored: keep the key now.",
    body: CreateGatewayKeyInput,
    response: z.object({ key: z.string().describe("rein_gk_…: shown once, never again"), gatewayKey: GatewayKey }),
    errors: { 403: "You are not an admin of the team", 404: "No such team, or not one you are in", 409: "The team is archived" },
    handle: (ctx) => createGatewayKey(ctx.db, by(ctx), ctx.body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/gateway-keys/{id}",
    minRole: "viewer",
    summary: "Revoke a gateway key: its next request is refused with 401, in every process",
    params: z.object({ id: z.string().min(1).max(128) }),
    response: GatewayKey,
    errors: { 403: "You are not an admin of the key's team", 404: "No such active key, or one of a team you are not in" },
    handle: (ctx) => revokeGatewayKey(ctx.db, by(ctx), ctx.params.id),
  }),
];
