"use client";

import { ErrorBlock } from "@/components/ui";
import { trpc } from "@/lib/trpc";

/** Says plainly when runs cannot get a sandboxed terminal, or run without one. */
export function SandboxBanner() {
  const status = trpc.system.status.useQuery(undefined, { staleTime: 60_000, retry: false });
  const terminals = status.data?.terminals;
  if (!terminals) return null;
  if (terminals.unavailable) {
    return (
      <ErrorBlock style={{ margin: "12px 24px 0" }} testId="sandbox-banner">
        <strong>Agents cannot use the shell.</strong> {terminals.unavailable}
      </ErrorBlock>
    );
  }
  if (terminals.sandbox === "none") {
    return (
      <div className="alert alert-warn" style={{ margin: "12px 24px 0" }} role="alert" data-testid="sandbox-banner">
        <strong>Shells run without a sandbox.</strong> {terminals.message}. The server was started with REIN_SANDBOX=none.
      </div>
    );
  }
  return null;
}
