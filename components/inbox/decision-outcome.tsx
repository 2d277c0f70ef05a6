// A closed request: what was decided, by whom, when, through which channel, and the comment.
import { JsonBlock } from "@/components/json-block";
import { decidedWords } from "@/lib/decision-words";
import { formatDateTime, formatRelative } from "@/lib/format";
import styles from "./inbox.module.css";
import { RequestStateBadge } from "./request-badges";
import { CHANNEL_LABELS, type HumanRequestView } from "./types";

function headline(r: HumanRequestView): string {
  const by = r.decidedBy?.id === "system" ? null : (r.decidedBy?.name ?? null);
  const d = r.decision;
  switch (r.state) {
    case "APPROVED":
      if (r.kind === "veto") return by ? `Approved early by ${by}` : "Went ahead: nobody vetoed in time";
      if (r.kind === "choose") {
        const option = r.payload.options?.find((o) => o.id === d?.optionId);
        return `${by ?? "Someone"} chose “${option?.label ?? d?.optionId ?? "?"}”`;
      }
      if (r.kind === "provide") return `${by ?? "Someone"} provided a value`;
      return `Approved by ${by ?? "someone"}`;
    case "REJECTED":
      if (r.kind === "veto") return `Vetoed by ${by ?? "someone"}`;
      return r.kind === "approve" ? `Rejected by ${by ?? "someone"}` : `Declined by ${by ?? "someone"}`;
    case "EXPIRED":
      return "Expired: nobody answered in time";
    case "CANCELED":
      return "Canceled: the run ended or no longer needs an answer";
    default:
      return "Open";
  }
}

export function DecisionOutcome({ request, now }: { request: HumanRequestView; now: number }) {
  const d = request.decision;
  const channel = request.channel ? (CHANNEL_LABELS[request.channel] ?? request.channel) : null;
  return (
    <section className={styles.decision} aria-label="Decision" data-testid="decision-outcome" data-state={request.state}>
      <h3 className={styles.sectionTitle}>Decision</h3>
      <div className={styles.outcome}>
        <div className="row" style={{ flexWrap: "wrap" }}>
          <RequestStateBadge request={request} />
          <strong data-testid="decision-headline">{headline(request)}</strong>
        </div>
        {request.state === "REJECTED" && (
          <div className="small" data-testid="decision-consequence">
            {decidedWords(request).detail}
          </div>
        )}
        <div className="small muted" data-testid="decision-meta">
          {channel && <>via {channel}</>}
          {request.decidedAt && (
            <>
              {channel ? " · " : ""}
              <span title={formatDateTime(request.decidedAt)}>
                {formatDateTime(request.decidedAt)} ({formatRelative(request.decidedAt, now)})
              </span>
            </>
          )}
        </div>
        {d?.comment && (
          <blockquote className={styles.comment} data-testid="decision-comment-text">
            {d.comment}
          </blockquote>
        )}
        {request.kind === "provide" && d?.value !== undefined && (
          <JsonBlock value={d.value} summary="Value provided" open testId="decision-value" />
        )}
        {d?.editedArguments && (
          <JsonBlock value={d.editedArguments} summary="Edited arguments the tool ran with" open testId="decision-edited-args" />
        )}
      </div>
    </section>
  );
}
