"use client";
// Improvements → Overview: is the loop working? Friction over time, what was
// made, how far the live tools are trusted, and their agents before vs after.
import dynamic from "next/dynamic";
import Link from "next/link";
import { percent } from "@/components/costs/chart-format";
import { EmptyState, ErrorState, Skeleton, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { improvementHref, type ImprovementDashboard } from "./format";
import styles from "./improvements.module.css";

const chart = <T extends "FrictionChart" | "TierStateChart" | "TrustChart">(name: T) =>
  dynamic(() => import("./overview-charts").then((m) => m[name]), { ssr: false, loading: () => <Skeleton height={200} /> });
const FrictionChart = chart("FrictionChart");
const TierStateChart = chart("TierStateChart");
const TrustChart = chart("TrustChart");

export function ImprovementsOverview() {
  const dash = trpc.improvements.dashboard.useQuery({ days: 30 }, { refetchInterval: 15_000 });
  if (dash.isLoading) return <SkeletonRows rows={5} columns={4} />;
  if (dash.isError || !dash.data)
    return (
      <ErrorState
        title="Could not load the overview"
        message={dash.error ? errorMessage(dash.error) : "No data"}
        onRetry={() => dash.refetch()}
      />
    );
  const d = dash.data;
  return (
    <div className={styles.grid} data-testid="improvements-overview">
      <section className="card">
        <div className="card-header">
          <h2>Friction by kind, last {d.days} days</h2>
        </div>
        <div className={styles.cardBody}>
          {d.frictionByDay.length ? <FrictionChart data={d} /> : <p className="small muted">No friction recorded in this window.</p>}
        </div>
      </section>
      <section className="card">
        <div className="card-header">
          <h2>Improvements by tier and state</h2>
        </div>
        <div className={styles.cardBody}>
          {d.byTierState.length ? <TierStateChart data={d} /> : <p className="small muted">None yet.</p>}
          {d.cycles.length > 0 && (
            <p className="small muted">Hack cycles in this window: {d.cycles.map((c) => `${c.count} ${c.state}`).join(", ")}</p>
          )}
        </div>
      </section>
      <section className="card">
        <div className="card-header">
          <h2>Trust of live runtime tools</h2>
        </div>
        <div className={styles.cardBody}>
          {d.tools.length ? <TrustChart data={d} /> : <p className="small muted">No runtime tool is live.</p>}
          <p className="small muted">
            Trust = successful uses / (uses + 1). Above 0.8 after 10 uses, Rein asks an approver to promote the tool.
          </p>
        </div>
      </section>
      <section className={`card ${styles.wide}`}>
        <div className="card-header">
          <h2>Before and after each live tool</h2>
        </div>
        <BeforeAfter tools={d.tools} />
      </section>
    </div>
  );
}

function BeforeAfter({ tools }: { tools: ImprovementDashboard["tools"] }) {
  if (!tools.length)
    return (
      <EmptyState icon="⇄" title="No live runtime tool">
        Once one is live, its agents&apos; finished runs before and after it are compared here.
      </EmptyState>
    );
  const rate = (r: number | null) => (r === null ? "—" : percent(r));
  const steps = (s: number | null) => (s === null ? "—" : String(s));
  return (
    <div className="table-wrap">
      <table className="table" data-testid="before-after">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col" className="num">
              Runs before → after
            </th>
            <th scope="col" className="num">
              Success rate
            </th>
            <th scope="col" className="num">
              Model calls per run
            </th>
          </tr>
        </thead>
        <tbody>
          {tools.map((t) => (
            <tr key={t.id}>
              <td>
                <Link href={improvementHref(t.id)}>
                  {t.name} v{t.version}
                </Link>
                <div className="small muted">{t.agents.length ? t.agents.join(", ") : "every agent"}</div>
              </td>
              <td className="num">
                {t.before.runs} → {t.after.runs}
              </td>
              <td className="num">
                {rate(t.before.successRate)} → {rate(t.after.successRate)}
              </td>
              <td className="num" title={`${pluralize(t.after.runs, "run")} since it went live`}>
                {steps(t.before.stepsPerRun)} → {steps(t.after.stepsPerRun)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
