"use client";
// The result of checking the draft: OK with its rule count, or each error
// with its line (a click moves the editor there). A valid policy may carry
// warnings: rules that can never match, each with its line.
import type { PolicyErrorView } from "./types";
import styles from "./policy.module.css";

export type ValidationState =
  | { status: "idle" }
  | { status: "checking" }
  | { status: "ok"; ruleCount: number; warnings: PolicyErrorView[] }
  | { status: "invalid"; errors: PolicyErrorView[] }
  | { status: "failed"; message: string };

export function ValidationPanel({ state, onGoTo }: { state: ValidationState; onGoTo(line: number): void }) {
  return (
    <div className={styles.validation} role="status" aria-live="polite" data-testid="policy-validation" data-status={state.status}>
      {state.status === "idle" && <span className="muted">Not checked yet.</span>}
      {state.status === "checking" && (
        <span className="muted row">
          <span className="spinner" aria-hidden="true" /> Checking…
        </span>
      )}
      {state.status === "ok" && (
        <span className={styles.valid}>
          ✓ Valid · {state.ruleCount === 1 ? "1 rule" : `${state.ruleCount} rules`}
          {state.ruleCount === 0 && " (every call is denied)"}
        </span>
      )}
      {state.status === "ok" && state.warnings.length > 0 && (
        <>
          <div className={styles.warning}>
            {state.warnings.length === 1 ? "1 warning" : `${state.warnings.length} warnings`}: the policy can be saved, but these rules
            never decide anything.
          </div>
          <LineList items={state.warnings} testId="policy-warning" onGoTo={onGoTo} />
        </>
      )}
      {state.status === "failed" && <span className={styles.invalid}>Could not check the policy: {state.message}</span>}
      {state.status === "invalid" && (
        <>
          <div className={styles.invalid}>
            {state.errors.length === 1 ? "1 error" : `${state.errors.length} errors`}: the policy cannot be saved until they are fixed.
          </div>
          <LineList items={state.errors} testId="policy-error" onGoTo={onGoTo} />
        </>
      )}
    </div>
  );
}

function LineList({ items, testId, onGoTo }: { items: PolicyErrorView[]; testId: string; onGoTo(line: number): void }) {
  return (
    <ul className={styles.errorList}>
      {items.map((e, i) => (
        <li key={i} data-testid={testId}>
          {e.line ? (
            <button type="button" className={styles.lineLink} onClick={() => onGoTo(e.line!)} title="Go to the line">
              Line {e.line}
            </button>
          ) : (
            <span className={styles.lineLink}>—</span>
          )}
          <span>{e.message}</span>
        </li>
      ))}
    </ul>
  );
}
