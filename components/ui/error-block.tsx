// A failed request said in a person's words, with Try again when the request can be repeated.
import type { CSSProperties, ReactNode } from "react";
import { errorMessage } from "@/lib/errors";

export function ErrorBlock({
  error,
  message,
  prefix,
  onRetry,
  testId,
  className,
  style,
}: {
  /** The failure (a tRPC error, an Error); shown with errorMessage. Nothing is shown when it and `message` are empty. */
  error?: unknown;
  /** Words to show instead of the error's own. */
  message?: ReactNode;
  /** What failed, said before the error ("Could not load the secrets"). */
  prefix?: string;
  onRetry?: () => void;
  testId?: string;
  /** Extra classes after "alert alert-error" (e.g. "small"). */
  className?: string;
  style?: CSSProperties;
}) {
  const shown = message ?? (error === undefined || error === null || error === false ? null : errorMessage(error));
  if (shown === null || shown === undefined || shown === "") return null;
  return (
    <div className={`alert alert-error${className ? ` ${className}` : ""}`} role="alert" style={style} data-testid={testId}>
      {onRetry ? (
        <>
          <span style={{ flex: 1 }}>
            {prefix && `${prefix}: `}
            {shown}
          </span>
          <button type="button" className="btn btn-sm" onClick={onRetry}>
            Try again
          </button>
        </>
      ) : (
        <>
          {prefix && `${prefix}: `}
          {shown}
        </>
      )}
    </div>
  );
}
