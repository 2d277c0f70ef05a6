// What a page (or a panel) shows around one request: a skeleton while it
// loads, why it failed with Try again, "not found" when the server says so,
// and the content once the data is there. docs/development.md#ui-primitives
import type { ReactNode } from "react";
import { errorCode, errorMessage } from "@/lib/errors";
import { ErrorState, SkeletonRows } from "./states";

/** The part of a tRPC useQuery result a shell reads. */
export interface ShellQuery<T> {
  isLoading: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch(): unknown;
}

export type NotFound = { title: string; message: ReactNode } | ((error: unknown) => ReactNode);

export function PageShell<T>({
  query,
  loading = <SkeletonRows />,
  failed,
  notFound,
  notFoundCodes = ["NOT_FOUND"],
  frame = (problem) => problem,
  children,
}: {
  query: ShellQuery<T>;
  loading?: ReactNode;
  /** The title when the request failed ("Could not load the agent"); the server's words follow. */
  failed: string;
  /** Shown instead, without Try again, when the server answers with one of `notFoundCodes`. */
  notFound?: NotFound;
  notFoundCodes?: readonly string[];
  /** What surrounds a failure or not-found (the page, a card, a link back). */
  frame?: (problem: ReactNode, isNotFound: boolean) => ReactNode;
  children(data: NonNullable<T>): ReactNode;
}) {
  if (query.isLoading) return <>{loading}</>;
  if (query.isError || query.data === undefined || query.data === null) {
    const code = query.error ? errorCode(query.error) : undefined;
    if (notFound && code !== undefined && notFoundCodes.includes(code)) {
      const problem =
        typeof notFound === "function" ? notFound(query.error) : <ErrorState title={notFound.title} message={notFound.message} />;
      return <>{frame(problem, true)}</>;
    }
    const problem = (
      <ErrorState title={failed} message={query.error ? errorMessage(query.error) : "No data"} onRetry={() => void query.refetch()} />
    );
    return <>{frame(problem, false)}</>;
  }
  return <>{children(query.data)}</>;
}
