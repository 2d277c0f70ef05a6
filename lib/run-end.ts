// How a run's end reads to a person, wherever it is shown (run header, runs
// list): the message first, an internal code only after it. A run a reviewer
// stopped (server/kernel/reviewer-stop.ts) is canceled, not failed, and reads
// "Stopped by a reviewer — <name>: <reason>".
export const STOPPED_BY_REVIEWER = "STOPPED_BY_REVIEWER";

export interface RunEndFields {
  status: string;
  statusReason?: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
}

export interface RunEndNote {
  /** "error" for a failure, "muted" for an end a person chose. */
  tone: "error" | "muted";
  text: string;
  /** The internal code, shown after the text (never before it). */
  code?: string;
  byReviewer?: boolean;
}

export function runEndNote(run: RunEndFields): RunEndNote | null {
  const reason = run.statusReason?.trim() || null;
  const message = run.errorMessage?.trim() || null;
  if (run.status === "failed") {
    return { tone: "error", text: message ?? reason ?? "The run failed", ...(run.errorCode ? { code: run.errorCode } : {}) };
  }
  if (run.status === "canceled") {
    if (run.errorCode === STOPPED_BY_REVIEWER)
      return { tone: "muted", text: message ?? reason ?? "Stopped by a reviewer", byReviewer: true };
    return reason ? { tone: "muted", text: reason } : null;
  }
  return null;
}

/** One line: "The model refused the prompt (CONTEXT_TOO_LARGE)". */
export function runEndText(run: RunEndFields): string | null {
  const note = runEndNote(run);
  if (!note) return null;
  return note.code && note.tone === "error" ? `${note.text} (${note.code})` : note.text;
}
