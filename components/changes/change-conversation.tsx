"use client";
// A change's conversation (docs/changes.md#conversation), as on a pull
// request: who started it, what the agent proposed, each check with its
// result, each decision with its comment, merges and reverts with their
// reasons, people's comments — oldest first — and a box to add a comment.
import { useId, useState } from "react";
import { ErrorBlock } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import type { ChangeDetail } from "./format";
import styles from "./changes.module.css";

type Entry = ChangeDetail["activity"][number];

const MARKS: Record<Entry["kind"], string> = {
  opened: "○",
  proposed: "⎇",
  check: "✓",
  decision: "✔",
  comment: "✎",
  state: "●",
  refused: "⊘",
};

/** The tone of an entry's mark: what went well, what did not, what is only news. */
function tone(e: Entry): "ok" | "bad" | "plain" {
  if (e.kind === "check") return e.to === "passed" ? "ok" : e.to === "running" ? "plain" : "bad";
  if (e.kind === "decision") return e.to === "APPROVED" ? "ok" : "bad";
  if (e.kind === "refused") return "bad";
  if (e.kind === "state")
    return e.to === "merged" ? "ok" : e.to === "rejected" || e.to === "reverted" || e.to === "checks_failed" ? "bad" : "plain";
  return "plain";
}

export function ChangeConversation({ change: c, onChanged }: { change: ChangeDetail; onChanged(): void }) {
  const id = useId();
  const now = useNow(30_000);
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const comment = trpc.changes.comment.useMutation({
    onMutate: () => setError(null),
    onError: (err) => setError(errorMessage(err)),
    onSuccess: () => setText(""),
    onSettled: onChanged,
  });
  const submit = () => {
    if (text.trim() && !comment.isPending) comment.mutate({ id: c.id, comment: text.trim() });
  };
  return (
    <section className={`card ${styles.section}`} aria-labelledby={`${id}-title`} data-testid="change-conversation">
      <div className="card-header">
        <h2 id={`${id}-title`}>Conversation</h2>
        <span className="small muted">{c.activity.length} entries</span>
      </div>
      <div className={`${styles.cardBody} stack`}>
        {c.activityLeftOut > 0 && (
          <p className="small muted" data-testid="change-activity-left-out">
            {c.activityLeftOut} older entries are not shown; the audit log has them all.
          </p>
        )}
        <ol className={styles.activity} aria-label="What happened, oldest first">
          {c.activity.map((e) => (
            <li key={e.id} className={styles.activityItem} data-testid="change-activity" data-kind={e.kind} data-to={e.to ?? ""}>
              <span className={`${styles.activityMark} ${styles[`mark-${tone(e)}`]}`} aria-hidden="true">
                {MARKS[e.kind]}
              </span>
              <div className={styles.activityText}>
                <p>
                  <strong>{e.who}</strong> {e.text}{" "}
                  <span className="small muted" title={formatDateTime(e.at)}>
                    {formatRelative(e.at, now)}
                  </span>
                  {e.kind === "decision" && (
                    <>
                      {" "}
                      · <a href={`/inbox?id=${encodeURIComponent(e.ref ?? "")}`}>in the Inbox</a>
                    </>
                  )}
                </p>
                {e.comment && (
                  <blockquote className={styles.activityComment} data-testid="change-activity-comment">
                    {e.comment}
                  </blockquote>
                )}
              </div>
            </li>
          ))}
        </ol>
        {c.you.mayComment ? (
          <form
            className="stack"
            onSubmit={(ev) => {
              ev.preventDefault();
              submit();
            }}
          >
            <div className="field">
              <label htmlFor={`${id}-comment`}>Add a comment</label>
              <textarea
                id={`${id}-comment`}
                className="textarea"
                rows={3}
                maxLength={4000}
                value={text}
                onChange={(ev) => setText(ev.target.value)}
                onKeyDown={(ev) => {
                  if (ev.key === "Enter" && (ev.metaKey || ev.ctrlKey)) {
                    ev.preventDefault();
                    submit();
                  }
                }}
                placeholder="A question for the reviewer, what you checked… (Ctrl+Enter sends)"
                data-testid="change-new-comment"
              />
            </div>
            <div className="row">
              <button type="submit" className="btn" disabled={!text.trim() || comment.isPending} data-testid="change-send-comment">
                {comment.isPending && <span className="spinner" aria-hidden="true" />}
                Comment
              </button>
            </div>
            <ErrorBlock message={error} testId="change-comment-error" />
          </form>
        ) : (
          <p className="small muted">Commenting needs the operator role in the change&apos;s team.</p>
        )}
      </div>
    </section>
  );
}
