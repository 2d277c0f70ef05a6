// Loading, empty and error states shared by the pages.
import type { ReactNode } from "react";

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

export function EmptyState({ icon = "◎", title, children, action }: { icon?: ReactNode; title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state" data-testid="empty-state">
      <div className="empty-icon" aria-hidden="true">{icon}</div>
      <h2>{title}</h2>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

export function ErrorState({ title = "Something went wrong", message, onRetry }: { title?: string; message: string; onRetry?: () => void }) {
  return (
    <div className="empty-state" role="alert" data-testid="error-state">
      <div className="empty-icon" style={{ background: "var(--red-soft)", color: "var(--red)" }} aria-hidden="true">!</div>
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
