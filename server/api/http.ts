import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { LinkThrottle, authenticateRequest, requestOrigin } from "@/server/identity";
import type { Services } from "@/server/app";
import { appRouter } from "./root";
import type { Context } from "./trpc";

/** tRPC over HTTP at /api/trpc, authenticated by session cookie or API token. */
export function createTrpcHandler(services: Services, opts: { authSecret: string; publicUrl?: string }) {
  const linkThrottle = new LinkThrottle();
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    // files.save carries up to 2 MB of text and evals.importJsonl a 5 MB file, which JSON escaping can double.
    maxBodySize: 12_000_000,
    createContext: async ({ req }): Promise<Context> => ({
      ...services,
      linkBase: requestOrigin(req, opts.publicUrl),
      clientAddress: req.socket.remoteAddress ?? null,
      linkThrottle,
      actor: await authenticateRequest(services.db, req, opts.authSecret),
    }),
  });
  return (req: IncomingMessage, res: ServerResponse) => handler(req, res);
}
