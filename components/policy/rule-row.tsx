"use client";
// One rule in the list: its number, name, decision and what it matches; move
// it with the buttons or Alt+↑/↓ (Alt+Home/End: first or last), open its form,
// delete it. The checker's problems on the rule's lines are shown under it.
import type { KeyboardEvent, Ref } from "react";
import { scopeSummary, type RuleFields, type RuleView } from "@/lib/policy-rules";
import { RuleForm } from "./rule-form";
import type { TeamOption } from "./team-picker";
import type { PolicyErrorView, PolicyGrammarView } from "./types";
import styles from "./policy.module.css";

const EFFECT_CLASS: Record<string, string> = { allow: "badge-ok", deny: "badge-error", ask: "status-paused" };

export interface RuleProblems {
  errors: PolicyErrorView[];
  warnings: PolicyErrorView[];
}

export function RuleRow({
  index,
  count,
  rule,
  grammar,
  teams,
  expanded,
  problems,
  toggleRef,
  onToggle,
  onMove,
  onDelete,
  onPatch,
}: {
  index: number;
  count: number;
  rule: RuleView;
  grammar: PolicyGrammarView;
  teams: TeamOption[] | undefined;
  expanded: boolean;
  problems: RuleProblems;
  toggleRef: Ref<HTMLButtonElement>;
  onToggle(): void;
  onMove(to: number): void;
  onDelete(): void;
  onPatch(patch: Partial<RuleFields>): void;
}) {
  const n = index + 1;
  const formId = `rule-${index}-form`;
  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>) => {
    // Alt+↓ opens a native select's list: leave it to the select.
    if (!e.altKey || e.ctrlKey || e.metaKey || (e.target as HTMLElement).tagName === "SELECT") return;
    const to = { ArrowUp: index - 1, ArrowDown: index + 1, Home: 0, End: count - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    if (to >= 0 && to < count && to !== index) onMove(to);
  };
  return (
    <li
      className={styles.rule}
      data-testid="policy-rule"
      data-index={index}
      data-decision={rule.decision}
      aria-label={`Rule ${n}${rule.name ? `: ${rule.name}` : ""}`}
      onKeyDown={onKeyDown}
    >
      <div className={styles.ruleHead}>
        <button
          ref={toggleRef}
          type="button"
          className={styles.ruleToggle}
          aria-expanded={expanded}
          aria-controls={formId}
          title={`${expanded ? "Close" : "Edit"} rule ${n} · Alt+↑/↓ moves it`}
          onClick={onToggle}
          data-testid="rule-toggle"
        >
          <span className={styles.ruleNo}>#{n}</span>
          <span className={styles.ruleTitle}>
            <span className={styles.ruleName} data-testid="rule-title">
              {rule.name || <em className="muted">unnamed rule</em>}
            </span>
            <span className={styles.ruleScope}>{scopeSummary(rule) || "matches nothing yet"}</span>
          </span>
        </button>
        <span className={`badge ${EFFECT_CLASS[rule.decision] ?? "badge-outline"} ${styles.effect}`} data-testid="rule-decision-badge">
          {rule.decision || "no decision"}
        </span>
        {problems.errors.length > 0 && (
          <span className={styles.problemText} title="See the problems under the rule">
            {problems.errors.length === 1 ? "1 error" : `${problems.errors.length} errors`}
          </span>
        )}
        <div className={styles.ruleActions}>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Move rule ${n} up`}
            title="Move up (Alt+↑)"
            disabled={index === 0}
            onClick={() => onMove(index - 1)}
            data-testid="rule-move-up"
          >
            ↑
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Move rule ${n} down`}
            title="Move down (Alt+↓)"
            disabled={index === count - 1}
            onClick={() => onMove(index + 1)}
            data-testid="rule-move-down"
          >
            ↓
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Delete rule ${n}`}
            onClick={onDelete}
            data-testid="rule-delete"
          >
            Delete
          </button>
        </div>
      </div>
      {(problems.errors.length > 0 || problems.warnings.length > 0) && (
        <ul className={styles.ruleProblems} data-testid="rule-problems">
          {problems.errors.map((p, i) => (
            <li key={`e${i}`} className={styles.problemText} data-testid="rule-error">
              {p.message}
            </li>
          ))}
          {problems.warnings.map((p, i) => (
            <li key={`w${i}`} className={styles.warnText} data-testid="rule-warning">
              {p.message}
            </li>
          ))}
        </ul>
      )}
      <div id={formId} hidden={!expanded}>
        {expanded && <RuleForm index={index} rule={rule} grammar={grammar} teams={teams} onPatch={onPatch} />}
      </div>
    </li>
  );
}
