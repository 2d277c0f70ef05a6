import { CHANGE_STATE_HINTS, changeStateLabel } from "./format";
import styles from "./changes.module.css";

export function ChangeStateBadge({ state, testId = "change-state" }: { state: string; testId?: string }) {
  return (
    <span className={`badge ${styles[`state-${state}`] ?? ""}`} title={CHANGE_STATE_HINTS[state]} data-testid={testId} data-state={state}>
      <span className="badge-dot" aria-hidden="true" />
      {changeStateLabel(state)}
    </span>
  );
}
