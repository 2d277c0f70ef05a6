"use client";
// One team (Settings › Teams › name): its members and their roles, this
// month's spend against its budget, and its recent runs. Admins and the
// team's admins manage members; admins rename, archive and set the budget.
import Link from "next/link";
import { useMemo } from "react";
import { EmptyState, PageShell, Skeleton, SkeletonRows } from "@/components/ui";
import { StatusBadge } from "@/components/status-badge";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatNumber, formatRelative, pluralize } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { AddMemberForm } from "./add-member-form";
import { MemberRow } from "./member-row";
import { SpendBar } from "./spend-bar";
import { TeamHeader } from "./team-header";
import styles from "./teams.module.css";

type Team = RouterOutputs["teams"]["get"];

export function TeamPage({ id }: { id: string }) {
  const team = trpc.teams.get.useQuery({ id });
  return (
    <PageShell
      query={team}
      loading={
        <div className="page">
          <Skeleton width={240} height={28} />
          <SkeletonRows rows={4} columns={5} />
        </div>
      }
      failed="Could not load the team"
      notFound={(error) => (
        <EmptyState
          icon="◫"
          title="No such team here"
          action={
            <Link href="/settings/teams" className="btn">
              All your teams
            </Link>
          }
        >
          {errorMessage(error)} You see the teams you belong to; admins see every team.
        </EmptyState>
      )}
      notFoundCodes={["NOT_FOUND", "FORBIDDEN"]}
      frame={(problem) => (
        <div className="page">
          <Link href="/settings/teams" className={styles.back}>
            ← Teams
          </Link>
          {problem}
        </div>
      )}
    >
      {(data) => <TeamView team={data} />}
    </PageShell>
  );
}

function TeamView({ team }: { team: Team }) {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const memberIds = useMemo(() => new Set(team.members.map((m) => m.userId)), [team.members]);
  const now = Date.now();

  return (
    <div className="page" data-testid="team-page">
      <TeamHeader key={team.name} team={team} canManage={team.canManage} isAdmin={isAdmin} />
      <div className="stack" style={{ gap: 16 }}>
        <div className={styles.facts}>
          <div className={`card ${styles.fact}`}>
            <div className={styles.factLabel}>Members</div>
            <div className={styles.factValue}>{formatNumber(team.members.length)}</div>
          </div>
          <div className={`card ${styles.fact}`}>
            <div className={styles.factLabel}>Your role here</div>
            <div className={styles.factValue} data-testid="team-my-role">
              {team.myRole ?? "—"}
            </div>
            <div className={styles.factSub}>{team.canManage ? "You manage its members" : "Its admins manage members"}</div>
          </div>
          <div className={`card ${styles.fact}`}>
            <div className={styles.factLabel}>Spent this month</div>
            <div style={{ marginTop: 6 }}>
              <SpendBar name={team.name} spent={team.spentThisMonthUsd} budget={team.budgetUsd} />
            </div>
            <div className={styles.factSub}>
              {isAdmin ? (
                <Link href="/settings/budgets" data-testid="team-budget-link">
                  {team.budgetUsd === null ? "Set a budget" : "Change the budget"}
                </Link>
              ) : (
                "Admins set budgets"
              )}
            </div>
          </div>
          <div className={`card ${styles.fact}`}>
            <div className={styles.factLabel}>Runs</div>
            <div className={styles.factValue}>{formatNumber(team.runCount)}</div>
            <div className={styles.factSub}>
              <Link href="/runs">Open the runs list</Link>
            </div>
          </div>
        </div>

        <section className="card" data-testid="team-members">
          <div className="card-header">
            <h2>Members</h2>
          </div>
          {team.members.length === 0 ? (
            <EmptyState icon="☺" title="No members yet">
              {team.canManage ? "Add people below; they then see this team's runs." : "An admin adds people to this team."}
            </EmptyState>
          ) : (
            <div className="table-wrap">
              <table className={`table ${styles.table}`} data-testid="members-table">
                <thead>
                  <tr>
                    <th>Person</th>
                    <th>Role in the team</th>
                    <th>Effective role</th>
                    <th>Added</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {team.members.map((m) => (
                    <MemberRow
                      key={m.userId}
                      teamId={team.id}
                      teamName={team.name}
                      member={m}
                      canManage={team.canManage}
                      isSelf={m.userId === me?.userId}
                      now={now}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {team.canManage && <AddMemberForm teamId={team.id} memberIds={memberIds} isAdmin={isAdmin} />}
        </section>

        <section className="card" data-testid="team-runs">
          <div className="card-header">
            <h2>Recent runs</h2>
            <span className="spacer" />
            <span className="muted small">{pluralize(team.runCount, "run")} in all</span>
          </div>
          {team.recentRuns.length === 0 ? (
            <EmptyState icon="▷" title="No runs yet">
              Runs started in this team show here.
            </EmptyState>
          ) : (
            <ul className={styles.runs}>
              {team.recentRuns.map((r) => (
                <li key={r.id} className={styles.run} data-testid="team-run">
                  <StatusBadge status={r.status} />
                  <Link href={`/runs/${r.id}`} className={styles.runGoal} title={r.goal}>
                    {r.goal}
                  </Link>
                  <span className="muted small">{r.agentName}</span>
                  <span className="muted small nowrap" title={formatDateTime(r.createdAt)}>
                    {formatRelative(r.createdAt, now)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
