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
  children,
}: {
  /** The failure (a tRPC error, an Error); shown with errorMessage. Nothing is shown when it, `message` and `children` are empty. */
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
  /** Richer content (a lead in bold, a list of problems); the caller decides when it shows. */
  children?: ReactNode;
}) {
  const empty = (v: unknown) => v === undefined || v === null || v === false || v === "";
  const shown = !empty(children) ? children : !empty(message) ? message : empty(error) ? null : errorMessage(error);
  if (shown === null) return null;
  return (
    <div className={`alert alert-error${className ? ` ${className}` : ""}`} role="alert" style={style} data-testid={testId}>
      {prefix || onRetry ? (
        <span>
          {prefix && `${prefix}: `}
          {shown}
          {onRetry && (
            <>
              {" "}
              <button type="button" className="btn-link" onClick={onRetry}>
                Try again
              </button>
            </>
          )}
        </span>
      ) : (
        shown
      )}
    </div>
  );
}
