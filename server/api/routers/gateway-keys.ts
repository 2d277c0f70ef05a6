// gatewayKeys.*: Settings › Gateway keys (docs/gateway.md#team-keys). Admins
// manage every team's keys, a team's admins that team's; the service checks
// the caller's role in the key's team, so the gate here is the least role. A
// key is returned once, by create.
import {
  CreateGatewayKeyInput,
  GatewayKeyRef,
  ListGatewayKeysInput,
  createGatewayKey,
  listGatewayKeys,
  revokeGatewayKey,
} from "@/server/gateway";
import { acting } from "../acting";
import { router, viewerProcedure } from "../trpc";

export const gatewayKeysRouter = router({
  list: viewerProcedure.input(ListGatewayKeysInput).query(({ ctx, input }) => listGatewayKeys(ctx.db, ctx.actor, input)),
  create: viewerProcedure.input(CreateGatewayKeyInput).mutation(({ ctx, input }) => createGatewayKey(ctx.db, acting(ctx.actor), input)),
  revoke: viewerProcedure.input(GatewayKeyRef).mutation(({ ctx, input }) => revokeGatewayKey(ctx.db, acting(ctx.actor), input.id)),
});
