"use client";
// One team: its monthly budget (editable), this month's spend and a bar.
import { useEffect, useState, type FormEvent } from "react";
import { FieldError } from "@/components/ui";
import { budgetShare, budgetText } from "@/lib/budget-draft";
import { formatCost } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { useBudgetSave } from "./use-budget-save";
import styles from "./budgets.module.css";

type Team = RouterOutputs["budgets"]["get"]["teams"][number];

export function TeamBudgetRow({ team }: { team: Team }) {
  const setTeam = trpc.budgets.setTeam.useMutation();
  const { save, error, busy, savedAt, clear } = useBudgetSave((budgetUsd) => setTeam.mutateAsync({ teamId: team.id, budgetUsd }));
  const [text, setText] = useState(budgetText(team.budgetUsd));
  useEffect(() => setText(budgetText(team.budgetUsd)), [team.budgetUsd]);
  const dirty = text.trim() !== budgetText(team.budgetUsd);
  const share = budgetShare(team.spentThisMonthUsd, team.budgetUsd);
  const over = team.budgetUsd !== null && team.spentThisMonthUsd >= team.budgetUsd;

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void save(text);
  }

  return (
    <tr data-testid="team-budget-row" data-team={team.name}>
      <td className={styles.team}>{team.name}</td>
      <td>
        <form className="row" style={{ gap: 8, alignItems: "flex-start" }} onSubmit={onSubmit} noValidate>
          <div>
            <input
              className={`input ${styles.amount}`}
              inputMode="decimal"
              placeholder="No budget"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                clear();
              }}
              aria-label={`Monthly budget of ${team.name} (USD)`}
              aria-invalid={error ? true : undefined}
              data-testid="team-budget-input"
            />
            <FieldError message={error} testId="team-budget-error" block />
          </div>
          <button type="submit" className="btn" disabled={busy || !dirty} data-testid="team-budget-save">
            {busy ? "Saving…" : "Save"}
          </button>
          {savedAt && !dirty && (
            <span className="muted small" role="status" data-testid="team-budget-saved">
              Saved.
            </span>
          )}
        </form>
      </td>
      <td className={styles.num} data-testid="team-budget-spent">
        {formatCost(team.spentThisMonthUsd)}
      </td>
      <td className={styles.progressCell}>
        {share === null ? (
          <span className="muted small">No budget</span>
        ) : (
          <>
            <div
              className={styles.progress}
              role="progressbar"
              aria-label={`${team.name}: spent this month`}
              aria-valuemin={0}
              aria-valuemax={team.budgetUsd!}
              aria-valuenow={Math.min(team.spentThisMonthUsd, team.budgetUsd!)}
              data-testid="team-budget-progress"
            >
              <div
                className={`${styles.progressFill} ${over ? styles.progressOver : share >= 0.8 ? styles.progressNear : ""}`}
                style={{ width: `${(share * 100).toFixed(1)}%` }}
              />
            </div>
            <div className={`small ${over ? styles.overText : "muted"}`}>
              {over
                ? "Budget reached: model calls are refused until next month"
                : `${Math.round(share * 100)}% of ${formatCost(team.budgetUsd!)}`}
            </div>
          </>
        )}
      </td>
    </tr>
  );
}
