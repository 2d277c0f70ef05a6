// One attempt of a delivery: why it was made, when, how long it took, the
// request's headers, and the answer (status, headers, the start of the body)
// or the error, and when the next retry is.
import { FieldError } from "@/components/ui";
import { formatDateTime, formatDuration } from "@/lib/format";
import styles from "./channels.module.css";
import { TRIGGER_WORDS, type Attempt } from "./format";

const headerLines = (h: Record<string, string>) =>
  Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");

export function AttemptCard({ attempt: a }: { attempt: Attempt }) {
  const ok = a.response?.status !== undefined && a.response?.status !== null && a.response.status >= 200 && a.response.status < 300;
  return (
    <div className={styles.attempt} data-testid="delivery-attempt" data-trigger={a.trigger} data-status={a.response?.status ?? ""}>
      <div className={styles.attemptHead}>
        <span className={`badge ${ok ? "badge-ok" : "badge-error"}`} data-testid="attempt-status">
          {a.response?.status != null ? `HTTP ${a.response.status}` : "no answer"}
        </span>
        <span>{TRIGGER_WORDS[a.trigger] ?? a.trigger}</span>
        <span className="muted">{formatDateTime(a.at)}</span>
        <span className="muted">· {formatDuration(a.durationMs)}</span>
      </div>
      <FieldError message={a.error} testId="attempt-error" block />
      {a.nextRetryAt && <div className="small">Next retry {formatDateTime(a.nextRetryAt)}</div>}
      <details className="disclosure">
        <summary>Request headers</summary>
        <pre className={`code-block light ${styles.headers}`}>{`POST ${a.request.url}\n${headerLines(a.request.headers)}`}</pre>
      </details>
      {a.response && (
        <>
          <details className="disclosure">
            <summary>Response headers</summary>
            <pre className={`code-block light ${styles.headers}`}>{headerLines(a.response.headers) || "(none)"}</pre>
          </details>
          <details className="disclosure" open={!ok}>
            <summary>Response body (first KiB)</summary>
            <pre className={`code-block light ${styles.headers}`} data-testid="attempt-response-body">
              {a.response.body || "(empty)"}
            </pre>
          </details>
        </>
      )}
    </div>
  );
}
