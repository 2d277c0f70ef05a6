// A request's kind, state and time left, as the list and the detail show them.
import { ClockIcon } from "@/components/icons";
import { formatDateTime } from "@/lib/format";
import styles from "./inbox.module.css";
import { KIND_LABELS, formatTimeLeft, isOpen, stateLabel, type HumanRequestView, type RequestKind } from "./types";

const KIND_ICONS: Record<RequestKind, string> = { approve: "✓", choose: "☰", provide: "✎", veto: "⚑" };

export function KindChip({ kind }: { kind: RequestKind }) {
  return (
    <span className={`${styles.kind} ${styles[`kind-${kind}`]}`} data-testid="kind-chip" data-kind={kind}>
      <span aria-hidden="true">{KIND_ICONS[kind]}</span>
      {KIND_LABELS[kind]}
    </span>
  );
}

export function RequestStateBadge({ request }: { request: Pick<HumanRequestView, "state" | "kind" | "decidedBy"> }) {
  return (
    <span className={`badge ${styles.state} ${styles[`state-${request.state}`]}`} data-testid="request-state" data-state={request.state}>
      {stateLabel(request)}
    </span>
  );
}

/** Level 2 and above: the first approvers did not answer in time. */
export function EscalatedMarker({ level }: { level: number }) {
  if (level < 2) return null;
  return (
    <span className={styles.escalated} title={`Escalated to level ${level} approvers`} data-testid="escalated-marker">
      escalated · L{level}
    </span>
  );
}

/** "goes ahead in 1m 58s" for veto requests, "23h 59m left" for the others; nothing once closed. */
export function TimeLeft({
  request,
  now,
}: {
  request: Pick<HumanRequestView, "state" | "kind" | "expiresAt" | "hardExpiresAt" | "level">;
  now: number;
}) {
  if (!isOpen(request)) return null;
  const at = new Date(request.expiresAt).getTime();
  const left = at - now;
  const veto = request.kind === "veto";
  const title = veto
    ? `Goes ahead at ${formatDateTime(request.expiresAt)} unless someone vetoes`
    : request.state === "PENDING"
      ? `Escalates at ${formatDateTime(request.expiresAt)}; expires for good at ${formatDateTime(request.hardExpiresAt)}`
      : `Expires at ${formatDateTime(request.hardExpiresAt)}`;
  const text =
    left <= 0 ? (veto ? "going ahead…" : "due now") : veto ? `goes ahead in ${formatTimeLeft(left)}` : `${formatTimeLeft(left)} left`;
  return (
    <span className={`${styles.timeLeft}${left <= 0 ? ` ${styles.overdue}` : ""}`} title={title} data-testid="time-left">
      <ClockIcon /> {text}
    </span>
  );
}
