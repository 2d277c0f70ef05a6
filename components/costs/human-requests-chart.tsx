"use client";
// Human requests in the range: how many per day by kind, the share a person
// answered, how fast (median and p95 of decidedAt - createdAt), and how many
// nobody answered in time.
import { formatDuration, formatNumber } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import { percent } from "./chart-format";
import styles from "./costs.module.css";
import { HumanRequestsBars } from "./lazy-charts";

type Requests = RouterOutputs["costs"]["health"]["humanRequests"];

export function HumanRequestsChart({ requests }: { requests: Requests }) {
  return (
    <div data-testid="human-requests">
      <div className={styles.stats}>
        <Stat
          label="Requests"
          value={formatNumber(requests.total)}
          testId="hr-total"
          note={requests.perRun === null ? undefined : `${requests.perRun.toFixed(2)} per run`}
        />
        <Stat
          label="Answered"
          value={requests.shareAnswered === null ? "—" : percent(requests.shareAnswered)}
          testId="hr-answered"
          note={`${formatNumber(requests.answered)} by a person`}
        />
        <Stat label="Median answer" value={formatDuration(requests.medianAnswerMs)} testId="hr-median" />
        <Stat label="p95 answer" value={formatDuration(requests.p95AnswerMs)} testId="hr-p95" />
        <Stat
          label="Expired"
          value={formatNumber(requests.expired)}
          testId="hr-expired"
          note={requests.open ? `${formatNumber(requests.open)} still open` : undefined}
        />
      </div>
      {requests.total > 0 && <HumanRequestsBars requests={requests} />}
    </div>
  );
}

function Stat({ label, value, note, testId }: { label: string; value: string; note?: string; testId: string }) {
  return (
    <div className={styles.stat}>
      <span className={styles.totalLabel}>{label}</span>
      <span className={styles.statValue} data-testid={testId}>
        {value}
      </span>
      {note && <span className="small muted">{note}</span>}
    </div>
  );
}
