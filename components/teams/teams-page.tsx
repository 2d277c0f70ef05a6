"use client";
// Settings › Teams (docs/people-and-teams.md#teams): admins see every team,
// others the teams they belong to, each with its members, the person's role in
// it, this month's spend against its budget, its runs and policy rules.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { formatNumber } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { NewTeamDialog } from "./new-team-dialog";
import { SpendBar } from "./spend-bar";
import styles from "./teams.module.css";

export function TeamsPage() {
  const router = useRouter();
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const teams = trpc.teams.list.useQuery();
  const [creating, setCreating] = useState(false);
  // Archived teams last, otherwise by name.
  const rows = [...(teams.data ?? [])].sort((a, b) => Number(!!a.archivedAt) - Number(!!b.archivedAt) || a.name.localeCompare(b.name));

  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block" style={{ maxWidth: 820 }}>
          <h1>Teams</h1>
          <p>
            {isAdmin ? "Every team. " : "The teams you belong to. "}
            Teams scope runs, budgets and policies: members see their teams&apos; runs, with the higher of their own role and their role in
            the team.
          </p>
        </div>
        <span className="spacer" />
        {isAdmin && (
          <button type="button" className="btn btn-primary" onClick={() => setCreating(true)} data-testid="new-team">
            New team
          </button>
        )}
      </div>
      <section className="card">
        <PageShell query={teams} loading={<SkeletonRows rows={3} columns={7} />} failed="Could not load the teams">
          {() =>
            rows.length === 0 ? (
              <EmptyState
                icon="◫"
                title={isAdmin ? "No teams yet" : "You are not in a team yet"}
                action={
                  isAdmin ? (
                    <button type="button" className="btn btn-primary" onClick={() => setCreating(true)}>
                      New team
                    </button>
                  ) : undefined
                }
              >
                {isAdmin
                  ? "Create one, then add people to it here or when you invite them."
                  : "Ask an admin to add you to one. Until then you see only the runs you started yourself."}
              </EmptyState>
            ) : (
              <div className="table-wrap">
                <table className={`table ${styles.table}`} data-testid="teams-table">
                  <thead>
                    <tr>
                      <th>Team</th>
                      <th className={styles.num}>Members</th>
                      <th>Your role</th>
                      <th>Spent this month</th>
                      <th className={styles.num}>Runs</th>
                      <th className={styles.num}>Active</th>
                      <th className={styles.num}>Policy rules</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((t) => (
                      <tr key={t.id} className={t.archivedAt ? styles.archivedRow : undefined} data-testid="team-row" data-team={t.name}>
                        <td className={styles.name}>
                          <Link href={`/settings/teams/${t.id}`}>{t.name}</Link>
                          {t.archivedAt && (
                            <span className={`badge status-canceled ${styles.archived}`} data-testid="team-archived">
                              archived
                            </span>
                          )}
                        </td>
                        <td className={styles.num}>{formatNumber(t.memberCount)}</td>
                        <td data-testid="team-my-role">{t.myRole ?? <span className="muted">not a member</span>}</td>
                        <td className={styles.spend}>
                          <SpendBar name={t.name} spent={t.spentThisMonthUsd} budget={t.budgetUsd} />
                        </td>
                        <td className={styles.num}>{formatNumber(t.runCount)}</td>
                        <td className={styles.num}>
                          {t.activeRunCount > 0 ? <strong>{formatNumber(t.activeRunCount)}</strong> : <span className="muted">0</span>}
                        </td>
                        <td className={styles.num}>{t.policyRules > 0 ? formatNumber(t.policyRules) : <span className="muted">0</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </PageShell>
      </section>
      {isAdmin && (
        <p className="small muted" style={{ marginTop: 16 }}>
          Budgets are set in <Link href="/settings/budgets">Settings › Budgets</Link>, rules in{" "}
          <Link href="/settings/policy">Settings › Policy</Link>; people are invited in{" "}
          <Link href="/settings/people">Settings › People</Link>.
        </p>
      )}
      <NewTeamDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          setCreating(false);
          router.push(`/settings/teams/${id}`);
        }}
      />
    </div>
  );
}
