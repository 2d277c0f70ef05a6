"use client";
// The Costs page's health dashboards, from costs.health (rollups and human
// requests, never spans): tool success, latency percentiles, human requests
// and the budget burn-down. Loads on its own, so the cost charts above never
// wait for it.
import { keepPreviousData } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { ErrorState, Skeleton } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { HumanRequestsChart } from "./human-requests-chart";
import { LatencyTable } from "./latency-table";
import { BurnDownChart, ToolSuccessChart } from "./lazy-charts";
import styles from "./costs.module.css";

type Health = RouterOutputs["costs"]["health"];

export function HealthSections({ range }: { range: { from: string; to: string } }) {
  const health = trpc.costs.health.useQuery(range, { placeholderData: keepPreviousData, refetchInterval: 60_000 });
  if (health.isLoading) {
    return (
      <div className={styles.pair} role="status" aria-label="Loading the health dashboards">
        {[0, 1].map((i) => (
          <div key={i} className="card card-body">
            <Skeleton width={160} />
            <div style={{ height: 12 }} />
            <Skeleton height={180} />
          </div>
        ))}
      </div>
    );
  }
  if (health.isError || !health.data) {
    return (
      <div className="card">
        <ErrorState
          title="Could not load tool, latency, request and budget figures"
          message={health.error ? errorMessage(health.error) : "No data"}
          onRetry={() => health.refetch()}
        />
      </div>
    );
  }
  return <Sections health={health.data} />;
}

function Card({ title, note, testId, children }: { title: string; note?: ReactNode; testId: string; children: ReactNode }) {
  return (
    <section className="card" data-testid={testId} aria-label={title}>
      <div className="card-header">
        <h2>{title}</h2>
        <span className="spacer" />
        {note && <span className="small muted">{note}</span>}
      </div>
      <div className="card-body">{children}</div>
    </section>
  );
}

function Sections({ health }: { health: Health }) {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const mine = health.scope.teams === "teams" ? "your teams" : "all teams";
  return (
    <div className="stack" style={{ gap: 16 }}>
      <div className={styles.pair}>
        <Card title="Tool success rate" note="all teams" testId="health-tools">
          {health.tools.length ? <ToolSuccessChart tools={health.tools} /> : <p className="muted">No tool calls in this range.</p>}
        </Card>
        <Card title="Human requests" note={mine} testId="health-requests">
          <HumanRequestsChart requests={health.humanRequests} />
        </Card>
      </div>
      <Card title="Latency percentiles" note="all teams · upper bounds of power-of-two buckets" testId="health-latency">
        {health.latency.length ? <LatencyTable rows={health.latency} /> : <p className="muted">No model or tool calls in this range.</p>}
      </Card>
      <Card title={`Budget burn-down, ${health.burnDown.month}`} note={`${mine} · this month, whatever the range`} testId="health-budgets">
        {health.burnDown.teams.length ? (
          <div className={styles.burnGrid}>
            {health.burnDown.teams.map((t) => (
              <BurnDownChart key={t.teamId} team={t} />
            ))}
          </div>
        ) : (
          <p className="muted">
            No team has a monthly budget.{" "}
            {isAdmin ? <Link href="/settings/budgets">Set budgets</Link> : "An admin can set them in Settings › Budgets."}
          </p>
        )}
      </Card>
    </div>
  );
}
