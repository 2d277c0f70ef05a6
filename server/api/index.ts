// tRPC: one router per domain, thin procedures over the folders' services.
export { appRouter, createCaller, type AppRouter } from "./root";
export type { Context, Meta } from "./trpc";
export { createTrpcHandler } from "./http";
