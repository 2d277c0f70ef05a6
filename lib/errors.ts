// Readable messages for failed requests.
import { TRPCClientError } from "@trpc/client";

export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) {
    if (!err.data && /fetch|network|Load failed/i.test(err.message)) {
      return "Cannot reach the Rein server. Check that it is running, then try again.";
    }
    return err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

export function errorCode(err: unknown): string | undefined {
  return err instanceof TRPCClientError ? (err.data as { code?: string } | undefined)?.code : undefined;
}

/** Sends the browser to the login page, coming back here afterwards. */
export function redirectToLogin() {
  if (typeof window === "undefined" || window.location.pathname === "/login") return;
  const next = window.location.pathname + window.location.search;
  window.location.assign(`/login?next=${encodeURIComponent(next)}`);
}
