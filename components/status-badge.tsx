import { STATUS_LABELS } from "@/lib/format";
import { runEndNote, type RunEndFields } from "@/lib/run-end";

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`badge status-${status}`} data-testid={testId} data-status={status}>
      <span className="badge-dot" aria-hidden="true" />
      {STATUS_LABELS[status] ?? status}
    </span>
  );
}

/** Why an ended run ended, on one line (lib/run-end.ts): a failure in red with its code after it, a person's stop muted. */
export function RunEndLine({ run, testId = "run-end-line" }: { run: RunEndFields; testId?: string }) {
  const note = runEndNote(run);
  if (!note) return null;
  const title = note.code ? `${note.text} (${note.code})` : note.text;
  return (
    <div
      className={`small${note.tone === "muted" ? " muted" : ""}`}
      style={{
        overflow: "hidden",
        textOverflow: "ellipsis",
        whiteSpace: "nowrap",
        ...(note.tone === "error" ? { color: "var(--red)" } : {}),
      }}
      title={title}
      data-testid={testId}
      data-by-reviewer={note.byReviewer ? "" : undefined}
    >
      {note.text}
    </div>
  );
}
