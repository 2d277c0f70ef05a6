"use client";
// The run page's retention line: what retention dropped of this run and when,
// and the Pin button that keeps it whole (docs/operations.md#retention).
import { FieldError } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc, type Run } from "@/lib/trpc";

/** What each part is called where a person reads it. */
const PART_WORDS: Record<Run["pruned"][number]["part"], string> = {
  events: "event log",
  terminal: "terminal input",
  checkpoints: "checkpoints",
  snapshots: "workspace snapshots",
  workspaces: "workspace and outputs",
  spanDetail: "trace inputs and outputs",
  spans: "trace",
};

export function prunedWords(pruned: Run["pruned"]): string {
  const words = pruned.map((p) => PART_WORDS[p.part]);
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** What retention dropped of the run and when; nothing while it has all its parts. */
export function PrunedNote({ run }: { run: Run }) {
  const last = run.pruned[run.pruned.length - 1];
  if (!last) return null;
  return (
    <div className="small muted" data-testid="run-pruned" role="note">
      Retention dropped this run&apos;s {prunedWords(run.pruned)} on {formatDateTime(last.at)}. Its summary stays; re-run it to do it again.
    </div>
  );
}

/** Pin: keeps the run whole, whatever retention says; operators of its team press it. */
export function PinButton({ run }: { run: Run }) {
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const utils = trpc.useUtils();
  const pin = trpc.runs.setPinned.useMutation({ onSuccess: () => void utils.runs.get.invalidate({ id: run.id }) });
  const pinned = !!run.pinnedAt;
  return (
    <>
      <button
        type="button"
        className="btn btn-sm"
        aria-pressed={pinned}
        disabled={!canOperate || pin.isPending}
        title={
          !canOperate
            ? operatorHint
            : pinned
              ? "Pinned: kept whole, whatever retention says. Click to unpin."
              : "Keep this run whole, whatever retention says"
        }
        onClick={() => pin.mutate({ id: run.id, pinned: !pinned })}
        data-testid="run-pin"
      >
        {pinned ? "Pinned" : "Pin"}
      </button>
      {pin.error && <FieldError message={errorMessage(pin.error)} />}
    </>
  );
}
