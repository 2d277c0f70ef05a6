// One verdict: its effect, which level and rule decided, and why.
import type { PolicyVerdictView } from "./types";
import styles from "./policy.module.css";

const EFFECT_CLASS = { allow: "badge-ok", deny: "badge-error", ask: "status-paused" } as const;

function formatTtl(sec: number): string {
  if (sec % 86_400 === 0) return `${sec / 86_400}d`;
  if (sec % 3600 === 0) return `${sec / 3600}h`;
  if (sec % 60 === 0) return `${sec / 60}m`;
  return `${sec}s`;
}

export function VerdictView({ verdict }: { verdict: PolicyVerdictView }) {
  return (
    <div className={styles.verdict} data-testid="policy-verdict" data-effect={verdict.effect}>
      <div className="row">
        <span className={`badge ${EFFECT_CLASS[verdict.effect]} ${styles.effect}`} data-testid="verdict-effect">
          {verdict.effect}
        </span>
        {verdict.ask && (
          <span className="small" data-testid="verdict-ask">
            {verdict.ask.kind} by {verdict.ask.role}
            {verdict.ask.ttlSec ? ` · expires in ${formatTtl(verdict.ask.ttlSec)}` : " · default expiry"}
          </span>
        )}
      </div>
      <dl className="facts" style={{ marginTop: 10 }}>
        <dt>Level</dt>
        <dd data-testid="verdict-level">{verdict.level}</dd>
        <dt>Rule</dt>
        <dd data-testid="verdict-rule">
          {verdict.rule === null ? (
            <span className="muted">none (default)</span>
          ) : (
            `#${verdict.rule + 1}${verdict.ruleName ? ` · ${verdict.ruleName}` : ""}`
          )}
        </dd>
        <dt>Reason</dt>
        <dd data-testid="verdict-reason">{verdict.reason}</dd>
      </dl>
    </div>
  );
}
