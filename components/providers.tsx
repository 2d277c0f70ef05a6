"use client";
// tRPC + React Query for every page. A request that finds the session gone
// sends the browser to the login page and back afterwards.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { errorCode, redirectToLogin } from "@/lib/errors";
import { createTrpcClient, trpc } from "@/lib/trpc";

function onError(err: unknown) {
  if (errorCode(err) === "UNAUTHORIZED") redirectToLogin();
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError }),
        mutationCache: new MutationCache({ onError }),
        defaultOptions: {
          queries: {
            staleTime: 5_000,
            // Coming back to the tab shows what other people changed meanwhile (an accepted invitation,
            // a decided request); pages that follow the socket are live anyway.
            refetchOnWindowFocus: true,
            retry: (count, err) => !["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST"].includes(errorCode(err) ?? "") && count < 2,
          },
        },
      }),
  );
  const [trpcClient] = useState(createTrpcClient);
  return (
    <trpc.Provider client={trpcClient} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </trpc.Provider>
  );
}
