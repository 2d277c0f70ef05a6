// Loading, empty and error states shared by the pages. docs/development.md#ui-primitives
import type { ReactNode } from "react";
import { ErrorBlock } from "./error-block";

export function Skeleton({ width = "100%", height = 14 }: { width?: number | string; height?: number }) {
  return <div className="skeleton" style={{ width, height }} aria-hidden="true" />;
}

export function SkeletonRows({ rows = 6, columns = 6 }: { rows?: number; columns?: number }) {
  return (
    <div className="stack" style={{ padding: 16 }} role="status" aria-label="Loading">
      {Array.from({ length: rows }, (_, r) => (
        <div key={r} className="row" style={{ gap: 16 }}>
          {Array.from({ length: columns }, (_, c) => (
            <Skeleton key={c} width={c === 1 ? "34%" : `${8 + ((r + c) % 3) * 3}%`} />
          ))}
        </div>
      ))}
    </div>
  );
}

export function EmptyState({
  icon = "◎",
  title,
  children,
  action,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty-state" data-testid="empty-state">
      <div className="empty-icon" aria-hidden="true">
        {icon}
      </div>
      <h2>{title}</h2>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

export function ErrorState({
  title = "Something went wrong",
  message,
  onRetry,
}: {
  title?: string;
  message: ReactNode;
  onRetry?: () => void;
}) {
  return (
    <div className="empty-state" role="alert" data-testid="error-state">
      <div className="empty-icon" style={{ background: "var(--red-soft)", color: "var(--red)" }} aria-hidden="true">
        !
      </div>
      <h2>{title}</h2>
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** The part of a paged query a list's footer reads (a tRPC useInfiniteQuery result). */
export interface PagedQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isError: boolean;
  error: unknown;
  fetchNextPage(): unknown;
}

/**
 * Under a paged list: why the last read failed (the rows shown stay), then
 * **Load more** while there is more, else `end` (a count, say) when given.
 */
export function PagedFooter({
  query,
  failed,
  testId,
  small = false,
  end,
  more = query.hasNextPage,
}: {
  query: PagedQuery;
  /** How a failed read is said before the server's words ("Could not load more spans"); null hides it. */
  failed: string | null;
  /** The Load more button's test id. */
  testId: string;
  small?: boolean;
  end?: ReactNode;
  /** Whether Load more is offered (default: the query has another page). */
  more?: boolean;
}) {
  return (
    <>
      {failed !== null && query.isError && <ErrorBlock prefix={failed} error={query.error} style={{ margin: 12 }} />}
      {(more || end !== undefined) && (
        <div className="list-footer">
          {more ? (
            <button
              type="button"
              className={small ? "btn btn-sm" : "btn"}
              onClick={() => query.fetchNextPage()}
              disabled={query.isFetchingNextPage}
              data-testid={testId}
            >
              {query.isFetchingNextPage && <span className="spinner" aria-hidden="true" />}
              {query.isFetchingNextPage ? "Loading…" : "Load more"}
            </button>
          ) : (
            end
          )}
        </div>
      )}
    </>
  );
}
