"use client";
// Recover: everything since a time that this webhook did not receive (failed,
// or never queued while it was off) goes out again, in order. Rein keeps what
// it sent for 7 days.
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Dialog, DialogFooter, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { RECOVER_WINDOW_MS, localInputValue, recoverSinceProblem } from "@/lib/webhook-views";
import { deliveriesKey } from "./use-deliveries";

const HOUR = 3600_000;

export function RecoverDialog({ open, endpointId, onClose }: { open: boolean; endpointId: string; onClose(): void }) {
  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy="webhook-recover-title" testId="webhook-recover-dialog">
      <RecoverForm endpointId={endpointId} onClose={onClose} />
    </Dialog>
  );
}

function RecoverForm({ endpointId, onClose }: { endpointId: string; onClose(): void }) {
  const id = useId();
  const utils = trpc.useUtils();
  const queryClient = useQueryClient();
  const [opened] = useState(() => Date.now());
  const [since, setSince] = useState(() => localInputValue(new Date(opened - HOUR)));
  const [problem, setProblem] = useState<string | null>(null);
  const recover = trpc.webhooks.recover.useMutation({
    onSuccess: () => {
      void utils.webhooks.get.invalidate({ id: endpointId });
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(endpointId) });
    },
    onError: (err) => setProblem(errorMessage(err)),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (recover.isPending) return;
    const wrong = recoverSinceProblem(since, Date.now());
    setProblem(wrong);
    if (!wrong) recover.mutate({ id: endpointId, since: new Date(since) });
  }

  return (
    <form className="dialog-form" onSubmit={submit} noValidate data-testid="webhook-recover-form">
      <div className="dialog-header">
        <div>
          <h2 id="webhook-recover-title">Recover missed deliveries</h2>
          <p>
            Every event since this time that the webhook did not receive — failed, or never sent while it was off — is sent again, oldest
            first.
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-since`}>Since</label>
          <input
            id={`${id}-since`}
            type="datetime-local"
            className="input"
            value={since}
            min={localInputValue(new Date(opened - RECOVER_WINDOW_MS))}
            max={localInputValue(new Date(opened))}
            onChange={(e) => setSince(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${id}-since-help`}
            data-autofocus
            data-testid="webhook-recover-since"
          />
          {problem ? (
            <FieldError id={`${id}-since-help`} message={problem} live />
          ) : (
            <span className="hint" id={`${id}-since-help`}>
              Your local time; at most 7 days back.
            </span>
          )}
        </div>
        {recover.data && (
          <div className="alert alert-success" role="status" data-testid="webhook-recover-result">
            {recover.data.queued === 1 ? "1 delivery queued" : `${recover.data.queued} deliveries queued`}
            {recover.data.queued === 0 && ": the webhook missed nothing since then."}
          </div>
        )}
      </div>
      <DialogFooter onClose={onClose} busy={recover.isPending} label="Recover" busyLabel="Queuing…" testId="webhook-recover-submit" />
    </form>
  );
}
