"use client";
// Settings › Hosted agents (docs/hosted-agents.md#the-programs): the programs
// Rein can run as hosted agents, each with what it is, whether it is installed
// here and which agents use it. Admins install and test them; everyone else
// sees the list.
import Link from "next/link";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { trpc } from "@/lib/trpc";
import { ProgramCard } from "./program-card";
import styles from "./hosted.module.css";

export function HostedPage() {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  // While an install runs, its progress is read every second.
  const list = trpc.hosted.list.useQuery(undefined, {
    refetchInterval: (q) => (q.state.data?.programs.some((p) => p.install?.state === "installing") ? 1000 : false),
  });
  return (
    <div className="page" data-testid="hosted-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>Hosted agents</h1>
          <p>
            A hosted agent runs a coding agent&apos;s own program in the run&apos;s sandbox. Rein talks to it over the Agent Client
            Protocol, and its files, commands, permission prompts and model calls go through Rein&apos;s policy, budgets and trace. An agent
            uses one of these programs when its <strong>Hosted program</strong> is set in the <Link href="/agents">agent editor</Link>.
          </p>
        </div>
      </div>
      {me && !isAdmin && (
        <div className="alert alert-info" style={{ marginBottom: 16 }} data-testid="hosted-read-only">
          You can see the programs and the agents that use them. Only admins install and test programs.
        </div>
      )}
      <PageShell query={list} loading={<SkeletonRows rows={3} columns={4} />} failed="Could not load the hosted programs">
        {(data) =>
          data.programs.length === 0 ? (
            <EmptyState icon="⌬" title="No programs to host">
              This server knows no program it can host.
            </EmptyState>
          ) : (
            <div className={styles.cards}>
              {data.programs.map((p) => (
                <ProgramCard key={p.id} program={p} isAdmin={isAdmin} />
              ))}
            </div>
          )
        }
      </PageShell>
    </div>
  );
}
