"use client";
// Every improvement I may see, one row per version, with filters; the origin
// friction's title and its runs come from the friction list.
import Link from "next/link";
import { useMemo, useState } from "react";
import { DebouncedInput } from "@/components/debounced-input";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { formatDateTime, formatRelative, formatCost } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import {
  IMPROVEMENT_STATES,
  KIND_FILTERS,
  KIND_LABELS,
  improvementHref,
  runHref,
  scopeText,
  trustText,
  type ImprovementSummary,
} from "./format";
import { ImprovementStateBadge } from "./state-badge";
import styles from "./improvements.module.css";

type Kind = (typeof KIND_FILTERS)[number]["value"];
type State = (typeof IMPROVEMENT_STATES)[number];
interface Filters {
  kind: Kind | "";
  state: State | "";
  agent: string;
  q: string;
}
const NO_FILTERS: Filters = { kind: "", state: "", agent: "", q: "" };

export function ImprovementsList({ frictionId }: { frictionId?: string }) {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const patch = (p: Partial<Filters>) => setFilters((f) => ({ ...f, ...p }));
  const input = {
    limit: 200,
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.state ? { state: filters.state } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.q ? { q: filters.q } : {}),
  };
  const list = trpc.improvements.list.useQuery(input, { refetchInterval: 10_000 });
  const friction = trpc.improvements.friction.useQuery({ limit: 200 }, { staleTime: 10_000 });
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const now = useNow(30_000);
  const frictionById = useMemo(() => new Map((friction.data ?? []).map((f) => [f.id, f])), [friction.data]);
  const filtered = list.data?.improvements.filter((i) => !frictionId || i.frictionId === frictionId) ?? [];
  const active = filters.kind || filters.state || filters.agent || filters.q || frictionId;

  return (
    <section className="card" aria-labelledby="improvements-title" data-testid="improvements-list">
      <div className="card-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h2 id="improvements-title">All improvements</h2>
          <span className="small muted">
            One row per version. Runtime tools (tier 1) live 7 days unless promoted; skills (tier 3) stay.
          </span>
        </div>
      </div>
      <div className={styles.toolbar} role="search" aria-label="Filter improvements">
        <DebouncedInput
          type="search"
          className="input search-input"
          placeholder="Search names and descriptions…"
          aria-label="Search improvements"
          value={filters.q}
          onCommit={(q) => patch({ q: q.trim() })}
          data-testid="improvements-search"
        />
        <select
          className="select"
          aria-label="Kind"
          value={filters.kind}
          onChange={(e) => patch({ kind: e.target.value as Kind | "" })}
          data-testid="improvements-kind"
        >
          <option value="">All tiers</option>
          {KIND_FILTERS.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="State"
          value={filters.state}
          onChange={(e) => patch({ state: e.target.value as State | "" })}
          data-testid="improvements-state-filter"
        >
          <option value="">All states</option>
          {IMPROVEMENT_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Agent"
          value={filters.agent}
          onChange={(e) => patch({ agent: e.target.value })}
          data-testid="improvements-agent"
        >
          <option value="">All agents</option>
          {agents.data?.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
        {frictionId && <span className="badge badge-outline">one friction&apos;s improvements</span>}
        {frictionId ? (
          <Link
            href="/improvements"
            className="btn btn-ghost btn-sm"
            onClick={() => setFilters(NO_FILTERS)}
            data-testid="improvements-clear"
          >
            Clear filters
          </Link>
        ) : (
          active && (
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setFilters(NO_FILTERS)} data-testid="improvements-clear">
              Clear filters
            </button>
          )
        )}
      </div>
      <PageShell query={list} loading={<SkeletonRows rows={4} columns={8} />} failed="Could not load the improvements">
        {() =>
          filtered.length === 0 ? (
            active ? (
              <EmptyState
                icon="⌕"
                title="No improvement matches these filters"
                action={
                  <button type="button" className="btn" onClick={() => setFilters(NO_FILTERS)}>
                    Clear filters
                  </button>
                }
              />
            ) : (
              <NoImprovements />
            )
          ) : (
            <div className="table-wrap">
              <table className="table" data-testid="improvements-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">State</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Agents</th>
                    <th scope="col">Origin friction</th>
                    <th scope="col">Author run</th>
                    <th scope="col" className="num">
                      Cost
                    </th>
                    <th scope="col" className="num">
                      Trust
                    </th>
                    <th scope="col">Created</th>
                    <th scope="col">Expires</th>
                  </tr>
                </thead>
                <tbody>
                  {filtered.map((i) => (
                    <Row key={i.id} improvement={i} friction={i.frictionId ? frictionById.get(i.frictionId) : undefined} now={now} />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </PageShell>
    </section>
  );
}

type FrictionRow = RouterOutputs["improvements"]["friction"][number];

function Row({ improvement: i, friction, now }: { improvement: ImprovementSummary; friction?: FrictionRow; now: number }) {
  const runs = [...new Set((friction?.items ?? []).map((x): string => x.runId))].slice(0, 3);
  return (
    <tr data-testid="improvement-row" data-list-row data-name={i.name} data-state={i.state} data-improvement={i.id}>
      <td>
        <Link href={improvementHref(i.id)} className={styles.nameLink} data-testid="improvement-open">
          {i.name} v{i.version}
        </Link>
        {i.description && <div className="small muted">{i.description}</div>}
      </td>
      <td>
        <ImprovementStateBadge state={i.state} />
        {i.promoted && (
          <span className="badge badge-outline" style={{ marginLeft: 6 }}>
            promoted
          </span>
        )}
      </td>
      <td className="nowrap">
        <span className="badge badge-tier">tier {i.tier}</span> <span className="small muted">{KIND_LABELS[i.kind] ?? i.kind}</span>
      </td>
      <td className="small">{scopeText(i.scopeAgents)}</td>
      <td className="small">
        {friction ? (
          <>
            <div>{friction.title}</div>
            {runs.map((r, n) => (
              <Link key={r} href={runHref(r)} style={{ marginRight: 8 }} data-testid="improvement-friction-run">
                run {n + 1}
              </Link>
            ))}
          </>
        ) : i.frictionId ? (
          <span className="muted">friction {i.frictionId.slice(0, 8)}</span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="small">
        {i.authorRunId ? <Link href={runHref(i.authorRunId)}>improver run</Link> : <span className="muted">a person</span>}
      </td>
      <td className="num">{formatCost(i.costUsd)}</td>
      <td className="num" title={`${i.successes} of ${i.uses} uses succeeded; trust = successes / (uses + 1)`}>
        {trustText(i.trust, i.uses)}
      </td>
      <td className="nowrap small">
        <span title={formatDateTime(i.createdAt)}>{formatRelative(i.createdAt, now)}</span>
      </td>
      <td className="nowrap small">
        {i.promoted ? (
          <span className="muted">never</span>
        ) : i.expiresAt ? (
          <span title={formatDateTime(i.expiresAt)}>{formatDateTime(i.expiresAt)}</span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  );
}

function NoImprovements() {
  return (
    <EmptyState icon="⚒" title="No improvements yet">
      Rein watches every run for friction: a tool failing the same way again and again, an unknown tool, a loop a person had to stop. When
      it sees some, its improver agent writes a fix (a runtime tool or a skill), tests it on trigger cases taken from the failing runs, and
      deploys it only if they pass. To see it happen, run the built-in agent <code>demo-csv</code> twice from Agents (it needs no provider
      key): the first run struggles to sum a CSV column, the improver writes <code>csv_column_sum</code>, and the second run uses it.
    </EmptyState>
  );
}
