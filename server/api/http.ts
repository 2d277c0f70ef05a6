import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { Db } from "@/server/db";
import { LinkThrottle, authenticateRequest, requestOrigin } from "@/server/identity";
import type { Kernel } from "@/server/kernel";
import { appRouter } from "./root";
import type { Context, ImproveRuntime, SystemInfo } from "./trpc";
import type { PodPool, SandboxStatus } from "@/server/compute";
import type { Hitl } from "@/server/hitl";
import type { ModelAdmin } from "@/server/models";
import type { SecretKeyring } from "@/server/secrets";
import type { TierRuntime } from "@/server/tiers";
import type { McpServers } from "@/server/mcp";

/** tRPC over HTTP at /api/trpc, authenticated by session cookie or API token. */
export function createTrpcHandler(deps: {
  db: Db;
  kernel: Kernel;
  authSecret: string;
  terminals?: PodPool;
  sandbox?: SandboxStatus;
  hitl?: Hitl;
  policy?: { invalidate(): void };
  telemetry?: { loadPrices(): Promise<void> };
  telemetryControl?: { applyOtlp(): Promise<void> };
  models?: ModelAdmin;
  tiers?: TierRuntime;
  keyring?: SecretKeyring;
  publicUrl?: string;
  experiments?: { wake(experimentId: string): void };
  improve?: ImproveRuntime;
  mcp?: McpServers;
  channels?: Context["channels"];
  system?: SystemInfo;
}) {
  const linkThrottle = new LinkThrottle();
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: "/api/trpc/",
    // files.save carries up to 2 MB of text and evals.importJsonl a 5 MB file, which JSON escaping can double.
    maxBodySize: 12_000_000,
    createContext: async ({ req }) => ({
      db: deps.db,
      kernel: deps.kernel,
      compute: deps.terminals && deps.sandbox ? { terminals: deps.terminals, sandbox: deps.sandbox } : undefined,
      hitl: deps.hitl,
      policy: deps.policy,
      telemetry: deps.telemetry,
      telemetryControl: deps.telemetryControl,
      models: deps.models,
      tiers: deps.tiers,
      keyring: deps.keyring,
      linkBase: requestOrigin(req, deps.publicUrl),
      clientAddress: req.socket.remoteAddress ?? null,
      linkThrottle,
      experiments: deps.experiments,
      improve: deps.improve,
      mcp: deps.mcp,
      channels: deps.channels,
      system: deps.system,
      actor: await authenticateRequest(deps.db, req, deps.authSecret),
    }),
  });
  return (req: IncomingMessage, res: ServerResponse) => handler(req, res);
}
