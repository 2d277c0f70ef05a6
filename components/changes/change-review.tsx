"use client";
// The review of a change: its approval request, what stands in the way of the
// merge, and Approve & merge (confirmed, with an optional comment) / Reject
// with a comment. A button I may not use stays visible, disabled, with the
// reason; the server checks again.
import Link from "next/link";
import { useId, useState } from "react";
import { ConfirmAction, ErrorBlock } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import type { ChangeDetail } from "./format";
import styles from "./changes.module.css";

export const LAUNCHER_CANNOT_APPROVE = "You launched the run that wrote this change; another approver must approve it";

const APPROVAL_WORDS: Record<string, string> = {
  PENDING: "waiting for an approver",
  APPROVED: "approved",
  REJECTED: "rejected",
  EXPIRED: "expired",
  CANCELED: "canceled",
  ESCALATED: "escalated",
};

function approveRefusal(c: ChangeDetail): string | null {
  if (c.you.mayApprove) return null;
  if (c.you.launchedIt) return LAUNCHER_CANNOT_APPROVE;
  return "Approving a change needs the approver role in its team";
}

export function ChangeReview({ change: c, onChanged }: { change: ChangeDetail; onChanged(): void }) {
  const id = useId();
  const [comment, setComment] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const done = {
    onMutate: () => setError(null),
    onError: (err: unknown) => setError(errorMessage(err)),
    onSuccess: () => setComment(""),
    onSettled: onChanged,
  };
  const approve = trpc.changes.approve.useMutation({
    ...done,
    onSuccess: () => (setComment(""), setConfirming(false)),
    onError: undefined,
  });
  const reject = trpc.changes.reject.useMutation(done);
  const busy = approve.isPending || reject.isPending;
  const open = c.state === "draft" || c.state === "checks_running" || c.state === "checks_failed" || c.state === "awaiting_review";
  const approveWhy = approveRefusal(c);
  const rejectWhy = c.you.mayReject
    ? null
    : c.state === "checks_running"
      ? "Its checks are running; reject it when they end"
      : "Rejecting needs the approver role in its team, or to have launched it";
  const trimmed = comment.trim() || undefined;

  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="change-review">
      <div className="card-header">
        <h2 id={`${id}-title`}>Review</h2>
      </div>
      <div className={`${styles.cardBody} stack`}>
        <Approval change={c} />
        {c.mergeBlockedBy && (
          <p className="small" data-testid="change-merge-blocked">
            <strong>Not mergeable yet:</strong> {c.mergeBlockedBy}.
          </p>
        )}
        {open ? (
          <>
            <div className="field">
              <label htmlFor={`${id}-comment`}>Comment</label>
              <textarea
                id={`${id}-comment`}
                className="textarea"
                rows={3}
                value={comment}
                placeholder="Optional when approving; tells the agent's launcher why when rejecting"
                onChange={(e) => setComment(e.target.value)}
                maxLength={4000}
                data-testid="change-comment"
              />
            </div>
            <div className="row" style={{ flexWrap: "wrap" }}>
              {c.state === "awaiting_review" && (
                <button
                  type="button"
                  className="btn btn-primary"
                  disabled={!!approveWhy || busy}
                  aria-describedby={approveWhy ? `${id}-approve-why` : undefined}
                  onClick={() => (approve.reset(), setConfirming(true))}
                  data-testid="change-approve"
                >
                  Approve &amp; merge…
                </button>
              )}
              <button
                type="button"
                className="btn btn-danger"
                disabled={!!rejectWhy || busy}
                title={rejectWhy ?? "Close it without merging; the comment is its reason"}
                onClick={() => reject.mutate({ id: c.id, comment: trimmed })}
                data-testid="change-reject"
              >
                {reject.isPending && <span className="spinner" aria-hidden="true" />}
                Reject
              </button>
            </div>
            {c.state === "awaiting_review" && approveWhy && (
              <p className="small muted" id={`${id}-approve-why`} data-testid="change-approve-why">
                {approveWhy}.
              </p>
            )}
          </>
        ) : (
          <p className="small muted">
            This change request is closed:{" "}
            {c.state === "merged" ? "it was merged" : c.state === "reverted" ? "it was merged, then reverted" : "it was rejected"}.
          </p>
        )}
        <ErrorBlock message={error} testId="change-action-error" />
      </div>
      <ConfirmAction
        open={confirming}
        title={`Approve and merge “${c.title}”?`}
        confirmLabel="Approve & merge"
        busyLabel="Merging…"
        tone="primary"
        action={approve}
        onConfirm={() => approve.mutate({ id: c.id, comment: trimmed })}
        onClose={() => setConfirming(false)}
      >
        <p>
          A merge commit lands on <span className="mono">{c.repository.defaultBranch}</span> of {c.repository.name}
          {c.fix ? `. ${c.fix.words}` : "."} If the branch moved meanwhile, the tests run again on the merge first.
        </p>
        <div className="field">
          <label htmlFor={`${id}-approve-comment`}>Comment (optional)</label>
          <textarea
            id={`${id}-approve-comment`}
            className="textarea"
            rows={3}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            maxLength={4000}
            placeholder="What you checked, for the record"
            data-testid="change-approve-comment"
          />
        </div>
      </ConfirmAction>
    </section>
  );
}

function Approval({ change: c }: { change: ChangeDetail }) {
  const a = c.approval;
  if (!a)
    return (
      <p className="small muted">
        {c.state === "draft" || c.state === "checks_running" ? "An approver is asked once the checks pass." : "No approver was asked."}
      </p>
    );
  return (
    <p className="small" data-testid="change-approval" data-state={a.state}>
      <strong>Approval:</strong> {APPROVAL_WORDS[a.state] ?? a.state.toLowerCase()}
      {a.decidedAt ? ` by ${a.decidedByName ?? "someone"} (${formatDateTime(a.decidedAt)})` : ` (needs the ${a.requiredRole} role)`} ·{" "}
      <Link href={`/inbox?id=${encodeURIComponent(a.id)}`}>in the Inbox</Link>
    </p>
  );
}
