"use client";
// Settings › Budgets (admins, docs/runs.md#limits): the default cost ceiling per run
// and each team's monthly budget with this month's spend. Budgets are checked
// before every model call; a run that would go over one stops with the reason.
import Link from "next/link";
import { RequireRole } from "@/components/require-role";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { RunBudgetForm } from "./run-budget-form";
import { TeamBudgetRow } from "./team-budget-row";
import styles from "./budgets.module.css";

export function BudgetsPage() {
  return (
    <RequireRole role="admin" title="Budgets need the admin role" why="Only admins can change cost ceilings and team budgets.">
      {() => <Budgets />}
    </RequireRole>
  );
}

function Budgets() {
  const budgets = trpc.budgets.get.useQuery();
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Budgets</h1>
          <p>
            Spend limits checked before every model call. A run that would exceed one stops before the call, with the reason on its page.
          </p>
        </div>
      </div>
      <PageShell query={budgets} loading={<SkeletonRows rows={4} columns={4} />} failed="Could not load the budgets">
        {(data) => (
          <div className="stack" style={{ gap: 16 }}>
            <RunBudgetForm current={data.runBudgetUsd} />
            <section className="card" data-testid="team-budgets">
              <div className="card-header">
                <h2>Monthly budget per team</h2>
                <span className="spacer" />
                <span className="small muted">{data.month} (UTC) · spend from the price table</span>
              </div>
              {data.teams.length === 0 ? (
                <EmptyState icon="$" title="No teams yet">
                  Teams are created with their first member. Runs without a team are held to the run ceilings only.
                </EmptyState>
              ) : (
                <div className="table-wrap">
                  <table className={`table ${styles.table}`}>
                    <thead>
                      <tr>
                        <th>Team</th>
                        <th>Budget per month (USD)</th>
                        <th className={styles.num}>Spent this month</th>
                        <th>Used</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.teams.map((t) => (
                        <TeamBudgetRow key={t.id} team={t} />
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
            </section>
            <p className="small muted">
              Each change is recorded in the <Link href="/audit">audit log</Link> as budget.updated. Spend counts model calls at the prices
              in <Link href="/settings/prices">Settings › Prices</Link>; the <Link href="/costs">Costs</Link> page shows each team&apos;s
              burn-down.
            </p>
          </div>
        )}
      </PageShell>
    </div>
  );
}
