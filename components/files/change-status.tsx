// A = added, M = modified, D = deleted, R = renamed, as in git and editors.
import type { FileChangeView } from "@/lib/trpc";

export type ChangeStatus = FileChangeView["status"];

export const CHANGE_LABELS: Record<ChangeStatus, string> = { A: "Added", M: "Modified", D: "Deleted", R: "Renamed" };

export function ChangeStatusLetter({ status }: { status: ChangeStatus }) {
  return (
    <span className={`change-status change-${status}`} title={CHANGE_LABELS[status]} data-testid="change-status">
      {status}
      <span className="sr-only"> ({CHANGE_LABELS[status]})</span>
    </span>
  );
}
