// The browser's tRPC client (React Query bindings). Only types come from the server.
import { createTRPCReact, httpBatchLink } from "@trpc/react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import superjson from "superjson";
import type { AppRouter } from "@/server/api";

export const trpc = createTRPCReact<AppRouter>();

export function createTrpcClient() {
  return trpc.createClient({
    links: [httpBatchLink({ url: "/api/trpc", transformer: superjson })],
  });
}

export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type Run = RouterOutputs["runs"]["get"];
export type RunState = Run["status"];
export type AgentSpecView = RouterOutputs["agents"]["list"][number];
export type Me = RouterOutputs["identity"]["me"];
export type ApiTokenView = RouterOutputs["identity"]["tokens"][number];
export type FileTreeView = RouterOutputs["files"]["tree"];
export type FileTreeNode = FileTreeView["entries"][number];
export type WorkspaceDiffView = RouterOutputs["files"]["diff"];
export type FileChangeView = WorkspaceDiffView["files"][number];
