"use client";
// "Cancel N runs" for the runs picked on the list: a confirmation, then one line saying what happened.
import { useState } from "react";
import { ConfirmAction } from "@/components/ui";
import { pluralize } from "@/lib/format";
import { cancelSummary } from "@/lib/run-list";
import { trpc } from "@/lib/trpc";
import styles from "./runs-table.module.css";

export function BulkCancel({ ids, onDone, onClear }: { ids: string[]; onDone(): void; onClear(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const cancel = trpc.runs.cancelMany.useMutation({
    onSuccess(outcomes) {
      setResult(cancelSummary(outcomes));
      setConfirming(false);
      onDone();
    },
  });
  const n = ids.length;
  if (n === 0 && !result) return null;
  return (
    <div className={styles.bulkBar} data-testid="bulk-bar">
      {n > 0 && (
        <>
          <span className="small" data-testid="bulk-count">
            {pluralize(n, "run")} selected
          </span>
          <button
            type="button"
            className="btn btn-danger btn-sm"
            onClick={() => {
              cancel.reset();
              setResult(null);
              setConfirming(true);
            }}
            data-testid="bulk-cancel"
          >
            Cancel {pluralize(n, "run")}
          </button>
          <button type="button" className="btn btn-ghost btn-sm" onClick={onClear}>
            Clear selection
          </button>
        </>
      )}
      {result && (
        <span className="small" role="status" data-testid="bulk-result">
          {result}
        </span>
      )}
      <ConfirmAction
        open={confirming}
        title={`Cancel ${pluralize(n, "run")}?`}
        confirmLabel={`Cancel ${pluralize(n, "run")}`}
        cancelLabel="Keep them"
        action={cancel}
        onConfirm={() => cancel.mutate({ ids })}
        onClose={() => setConfirming(false)}
      >
        Each run stops after its current step. Any that have ended in the meantime are left as they are.
      </ConfirmAction>
    </div>
  );
}
