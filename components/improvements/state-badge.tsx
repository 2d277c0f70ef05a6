import { STATE_HINTS } from "./format";
import styles from "./improvements.module.css";

export function ImprovementStateBadge({ state }: { state: string }) {
  return (
    <span
      className={`badge ${styles[`state-${state}`] ?? ""}`}
      title={STATE_HINTS[state]}
      data-testid="improvement-state"
      data-state={state}
    >
      <span className="badge-dot" aria-hidden="true" />
      {state}
    </span>
  );
}
