"use client";
// Settings › System (admins): every process of the deployment — one process by
// default, web and worker processes on several machines — with what each is
// doing, refreshed every two seconds (the processes beat as often).
import { RequireRole } from "@/components/require-role";
import { EmptyState, ErrorState, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { ROLE_WORDS, STATE_WORDS, beatAgo, figure, lagWords, summary, type Deployment, type ProcessRowView } from "@/lib/system-views";
import styles from "./system.module.css";

export const REFRESH_MS = 2_000;

export function SystemPage() {
  return (
    <RequireRole
      role="admin"
      title="System needs the admin role"
      why="Only admins see the processes of the deployment, their hosts and process ids."
    >
      {() => <Processes />}
    </RequireRole>
  );
}

function Processes() {
  const q = trpc.system.processes.useQuery(undefined, { refetchInterval: REFRESH_MS, refetchIntervalInBackground: false });
  const now = useNow(1000);
  const data = q.data;
  return (
    <div className="page" data-testid="system-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>System</h1>
          <p>
            Every process of this Rein deployment: what it is, where it runs, and what it is doing now. The page refreshes every two
            seconds.
          </p>
        </div>
        {q.isError && data && (
          <span className={styles.refreshing} role="status" data-testid="system-stale">
            Could not refresh: {errorMessage(q.error)}
          </span>
        )}
      </div>
      <div className="stack" style={{ gap: 16 }}>
        {data && <Overview data={data} />}
        <div className="card">
          <div className="card-header">
            <h2>Processes</h2>
            {data && (
              <span className="small muted" data-testid="system-summary">
                {summary(data.processes)}
              </span>
            )}
          </div>
          {q.isLoading ? (
            <SkeletonRows rows={3} columns={8} />
          ) : !data ? (
            <ErrorState
              title="Could not load the processes"
              message={q.error ? errorMessage(q.error) : "No data"}
              onRetry={() => void q.refetch()}
            />
          ) : data.processes.length === 0 ? (
            <EmptyState icon="▤" title="No process has registered">
              Each web and worker process registers itself when it starts and beats every {data.heartbeatMs / 1000} s. None has in the last
              day; this one may still be joining.
            </EmptyState>
          ) : (
            <ProcessTable rows={data.processes} now={now} />
          )}
        </div>
      </div>
    </div>
  );
}

function Overview({ data }: { data: Deployment }) {
  return (
    <div className="card" data-testid="system-overview" data-mode={data.mode}>
      <div className={styles.figures}>
        <Figure label="Mode" value={data.mode === "one-process" ? "One process" : "Several machines"} />
        <Figure
          label="Runs waiting to start"
          value={figure(data.queue.depth)}
          title={data.queue.depth === null ? "The queue in Redis did not answer" : undefined}
          testId="system-queue-depth"
        />
        {data.mode === "several" && (
          <Figure
            label="Active leases"
            value={String(data.leases.active)}
            title="Runs a live worker is executing"
            testId="system-active-leases"
          />
        )}
      </div>
      {data.mode === "one-process" && (
        <p className={styles.note} data-testid="system-one-process">
          Rein runs in one process. To spread runs over several machines, see <code>docs/several-machines.md</code>.
        </p>
      )}
    </div>
  );
}

function Figure({ label, value, title, testId }: { label: string; value: string; title?: string; testId?: string }) {
  return (
    <div className={styles.figure} title={title}>
      <span className={styles.figureLabel}>{label}</span>
      <span className={styles.figureValue} data-testid={testId}>
        {value}
      </span>
    </div>
  );
}

function ProcessTable({ rows, now }: { rows: ProcessRowView[]; now: number }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="system-processes">
        <caption className="sr-only">Processes of this deployment, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">State</th>
            <th scope="col">Host</th>
            <th scope="col" className="num">
              PID
            </th>
            <th scope="col">Version</th>
            <th scope="col">Started</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col" className="num">
              Runs owned
            </th>
            <th scope="col" className="num">
              Lease renewals
            </th>
            <th scope="col" className="num">
              Queue depth
            </th>
            <th scope="col" className="num">
              Lag
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <ProcessLine key={p.id} p={p} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ProcessLine({ p, now }: { p: ProcessRowView; now: number }) {
  const role = ROLE_WORDS[p.role];
  const state = STATE_WORDS[p.state];
  return (
    <tr
      className={p.alive ? undefined : styles.gone}
      data-testid="system-process-row"
      data-process={p.id}
      data-role={p.role}
      data-state={p.state}
      data-self={p.self || undefined}
    >
      <td>
        <span className="badge badge-role" title={role.title} data-testid="system-role">
          {role.label}
        </span>
        {p.self && (
          <span className={`badge badge-outline ${styles.self}`} title="The process that answered this page">
            this one
          </span>
        )}
      </td>
      <td>
        <span className={`badge status-${state.status}`} title={state.title} data-testid="system-state">
          <span className="badge-dot" aria-hidden="true" />
          {state.label}
        </span>
        {p.stoppedAt && <div className="small">{formatRelative(p.stoppedAt, now)}</div>}
        {p.lastError && p.state !== "stopped" && <div className={styles.error}>{p.lastError}</div>}
      </td>
      <td className="mono" title={p.id}>
        {p.host}
      </td>
      <td className="num mono">{p.pid}</td>
      <td className="mono">{p.version}</td>
      <td title={formatDateTime(p.startedAt)}>{formatRelative(p.startedAt, now)}</td>
      <td title={formatDateTime(p.heartbeatAt)} data-testid="system-heartbeat">
        {beatAgo(p.heartbeatAt, now)}
      </td>
      <td className="num">{p.runsOwned}</td>
      <td className="num">{p.role === "all" ? "—" : p.leaseRenewals}</td>
      <td className="num">{figure(p.queueDepth)}</td>
      <td className="num">{lagWords(p.lagMs)}</td>
    </tr>
  );
}
