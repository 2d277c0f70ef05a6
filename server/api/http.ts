import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { Db } from "@/server/db";
import { authenticateRequest } from "@/server/identity";
import type { Kernel } from "@/server/kernel";
import { appRouter } from "./root";

/** tRPC over HTTP at /api/trpc, authenticated by session cookie or API token. */
export function createTrpcHandler(deps: { db: Db; kernel: Kernel; authSecret: string }) {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    maxBodySize: 2_000_000,
    createContext: async ({ req }) => ({
      db: deps.db,
      kernel: deps.kernel,
      actor: await authenticateRequest(deps.db, req, deps.authSecret),
    }),
  });
  return (req: IncomingMessage, res: ServerResponse) => handler(req, res);
}
