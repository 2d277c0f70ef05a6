// This month's spend against a team's budget: the amounts and a small bar.
import { budgetShare } from "@/lib/budget-draft";
import { formatCost } from "@/lib/format";
import styles from "./teams.module.css";

export function SpendBar({ name, spent, budget }: { name: string; spent: number; budget: number | null }) {
  const share = budgetShare(spent, budget);
  if (share === null) {
    return (
      <div className={styles.spendText} data-testid="team-spend">
        {formatCost(spent)} <span className="muted small">· no budget</span>
      </div>
    );
  }
  const over = spent >= budget!;
  return (
    <div data-testid="team-spend">
      <div className={styles.spendText}>
        {formatCost(spent)} <span className="muted small">of {formatCost(budget!)}</span>
      </div>
      <div
        className={styles.bar}
        role="progressbar"
        aria-label={`${name}: spent this month`}
        aria-valuemin={0}
        aria-valuemax={budget!}
        aria-valuenow={Math.min(spent, budget!)}
      >
        <div
          className={`${styles.barFill} ${over ? styles.barOver : share >= 0.8 ? styles.barNear : ""}`}
          style={{ width: `${(share * 100).toFixed(1)}%` }}
        />
      </div>
    </div>
  );
}
