"use client";
// Settings › Data (admins): how long each kind of data is kept, the pruner's
// progress, and disk use by kind and by team (docs/operations.md#retention).
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { RequireRole } from "@/components/require-role";
import { EmptyState, ErrorBlock, FieldError, PageShell, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { formatBytes, formatDateTime, formatNumber, formatRelative } from "@/lib/format";
import { RETENTION_KIND_LABELS } from "@/lib/retention";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type Status = RouterOutputs["data"]["status"];
type Settings = Status["settings"];
type Kind = keyof Settings;
type Pass = NonNullable<Status["lastPass"]>;

const KINDS = Object.keys(RETENTION_KIND_LABELS) as Kind[];
const MAX_DAYS = 36500;

export function DataSettingsPage() {
  return (
    <RequireRole role="admin" title="Data settings need the admin role" why="Only admins decide how long Rein keeps data.">
      {() => <DataSettings />}
    </RequireRole>
  );
}

function DataSettings() {
  // While a pass or a measurement is under way the page follows it.
  const status = trpc.data.status.useQuery(undefined, {
    refetchInterval: (q) => (q.state.data?.current || q.state.data?.measuring ? 2000 : 30_000),
  });
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Data</h1>
          <p>
            How long Rein keeps what runs did. Past its retention an ended run keeps its summary — goal, outcome, cost, team — and loses its
            heavy parts. Pinned runs, runs in a dataset, runs forked from and runs behind a change are kept whole.
          </p>
        </div>
      </div>
      <PageShell query={status} loading={<SkeletonRows rows={6} columns={3} />} failed="Could not load the data settings">
        {(data) => (
          <div className="stack" style={{ gap: 16 }}>
            <RetentionForm settings={data.settings} />
            <Pruning current={data.current} last={data.lastPass} />
            <DiskUse usage={data.usage} measuring={data.measuring} disk={data.disk} />
          </div>
        )}
      </PageShell>
    </div>
  );
}

/** Each kind's field: a number of days, or empty with "forever" ticked. */
interface Draft {
  days: string;
  forever: boolean;
}

const draftOf = (settings: Settings): Record<Kind, Draft> =>
  Object.fromEntries(
    KINDS.map((k) => [k, { days: settings[k] === null ? "" : String(settings[k]), forever: settings[k] === null }]),
  ) as Record<Kind, Draft>;

function problemOf(d: Draft): string | null {
  if (d.forever) return null;
  const n = Number(d.days);
  if (d.days.trim() === "") return "How many days? Or tick Forever";
  if (!Number.isInteger(n) || n < 1 || n > MAX_DAYS) return `A whole number of days from 1 to ${formatNumber(MAX_DAYS)}`;
  return null;
}

function RetentionForm({ settings }: { settings: Settings }) {
  const utils = trpc.useUtils();
  const [draft, setDraft] = useState(() => draftOf(settings));
  const savedKey = JSON.stringify(settings);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the saved content: a refetch of the same settings keeps the edits
  useEffect(() => setDraft(draftOf(settings)), [savedKey]);
  const save = trpc.data.save.useMutation({ onSuccess: () => utils.data.status.invalidate() });
  const changed = useMemo(() => {
    const out: Partial<Record<Kind, number | null>> = {};
    for (const k of KINDS) {
      const value = draft[k].forever ? null : Number(draft[k].days);
      if (value !== settings[k]) out[k] = value;
    }
    return out;
  }, [draft, settings]);
  const problems = KINDS.map((k) => [k, problemOf(draft[k])] as const).filter(([, p]) => p);
  const dirty = Object.keys(changed).length > 0;

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!problems.length && dirty) save.mutate(changed);
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit} data-testid="retention-form">
      <h2>How long data is kept</h2>
      <p className="muted small">
        Counted from when a run ended (webhook deliveries and the audit log: from when the row was written). Runs still going are never
        touched.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">What it is</th>
            <th scope="col">Keep for</th>
          </tr>
        </thead>
        <tbody>
          {KINDS.map((k) => {
            const d = draft[k];
            const problem = problemOf(d);
            const set = (next: Partial<Draft>) => setDraft({ ...draft, [k]: { ...d, ...next } });
            return (
              <tr key={k} data-testid={`retention-${k}`}>
                <th scope="row">
                  <label htmlFor={`retention-${k}-days`}>{RETENTION_KIND_LABELS[k].label}</label>
                </th>
                <td className="muted small">{RETENTION_KIND_LABELS[k].what}</td>
                <td>
                  <div className="row" style={{ gap: 8, flexWrap: "nowrap" }}>
                    <input
                      id={`retention-${k}-days`}
                      className="input"
                      style={{ width: 90 }}
                      inputMode="numeric"
                      value={d.forever ? "" : d.days}
                      placeholder={d.forever ? "—" : "days"}
                      disabled={d.forever}
                      onChange={(e) => set({ days: e.target.value })}
                      aria-invalid={!!problem}
                      aria-describedby={problem ? `retention-${k}-problem` : undefined}
                    />
                    <span className="muted small">days</span>
                    <label className="row small" style={{ gap: 4 }}>
                      <input
                        type="checkbox"
                        checked={d.forever}
                        onChange={(e) => set({ forever: e.target.checked, days: e.target.checked ? d.days : d.days || "30" })}
                        data-testid={`retention-${k}-forever`}
                      />
                      Forever
                    </label>
                  </div>
                  {problem && (
                    <span id={`retention-${k}-problem`}>
                      <FieldError message={problem} />
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {save.error && <FieldError message={errorMessage(save.error)} block />}
      {save.isSuccess && !dirty && (
        <div className="muted small" role="status">
          Saved. The next pass (within the hour, or Prune now below) applies it.
        </div>
      )}
      <div className="row" style={{ gap: 8 }}>
        <button type="submit" className="btn btn-primary" disabled={!dirty || problems.length > 0 || save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
        {dirty && (
          <button type="button" className="btn" onClick={() => setDraft(draftOf(settings))}>
            Discard changes
          </button>
        )}
      </div>
    </form>
  );
}

function passSummary(p: Pass): string {
  const parts = Object.entries(p.dropped).map(
    ([k, n]) =>
      `${formatNumber(n)} ${RETENTION_KIND_LABELS[k as Kind]?.label.toLowerCase() ?? k}${k === "snapshots" || k === "workspaces" ? " folders" : ""}`,
  );
  return parts.length ? `Dropped ${parts.join(", ")}.` : "Nothing was past its retention.";
}

function Pruning({ current, last }: { current: Status["current"]; last: Status["lastPass"] }) {
  const utils = trpc.useUtils();
  const prune = trpc.data.pruneNow.useMutation({ onSuccess: () => utils.data.status.invalidate() });
  return (
    <section className="card card-body stack" data-testid="pruning">
      <h2>Pruning</h2>
      <p className="muted small">
        A pass runs in the background every hour, in small batches that never hold up the runs, and goes on where it stopped after a
        restart.
      </p>
      {current ? (
        <div className="row" role="status" data-testid="pruning-current">
          <span className="spinner" aria-hidden="true" />
          <span>
            Pruning since {formatRelative(current.startedAt)}. {passSummary(current)}
          </span>
        </div>
      ) : last ? (
        <div data-testid="pruning-last">
          <div>
            Last pass {formatRelative(last.endedAt ?? last.startedAt)} ({formatDateTime(last.startedAt)}). {passSummary(last)}
            {last.kept > 0 && ` ${formatNumber(last.kept)} old run(s) were kept whole because something needs them.`}
          </div>
          {last.error && <FieldError message={`It stopped early: ${last.error}. The next pass goes on from where it was.`} block />}
        </div>
      ) : (
        <p className="muted" data-testid="pruning-none">
          No pass yet: the first runs a minute after the server starts.
        </p>
      )}
      {prune.data && !prune.data.started && <div className="muted small">A pass is under way already.</div>}
      {prune.error && <FieldError message={errorMessage(prune.error)} block />}
      <div>
        <button
          type="button"
          className="btn"
          disabled={!!current || prune.isPending}
          onClick={() => prune.mutate()}
          data-testid="prune-now"
        >
          Prune now
        </button>
      </div>
    </section>
  );
}

const DB_LABELS: Record<string, string> = {
  events: "Events",
  checkpoints: "Checkpoints",
  spans: "Spans",
  deliveries: "Webhook deliveries",
  audit: "Audit log",
  other: "Everything else",
};
const FILE_LABELS: Record<string, string> = {
  workspaces: "Workspaces and outputs",
  snapshots: "Workspace snapshots",
  repositories: "Repositories",
};

function Bars({
  title,
  total,
  parts,
  labels,
}: {
  title: string;
  total: number;
  parts: Record<string, number>;
  labels: Record<string, string>;
}) {
  const rows = Object.entries(parts).sort((a, b) => b[1] - a[1]);
  return (
    <div className="stack" style={{ gap: 6 }}>
      <h3 className="small">
        {title} · {formatBytes(total)}
      </h3>
      {rows.map(([k, bytes]) => (
        <div key={k} className="row small" style={{ gap: 8 }} data-testid={`usage-${k}`}>
          <span style={{ width: 170 }}>{labels[k] ?? k}</span>
          <span
            aria-hidden="true"
            style={{
              height: 8,
              borderRadius: 4,
              background: "var(--accent)",
              width: `${total ? Math.max(1, Math.round((bytes / total) * 240)) : 1}px`,
            }}
          />
          <span className="muted">{formatBytes(bytes)}</span>
        </div>
      ))}
    </div>
  );
}

function DiskUse({ usage, measuring, disk }: { usage: Status["usage"]; measuring: boolean; disk: Status["disk"] }) {
  const utils = trpc.useUtils();
  const measure = trpc.data.measure.useMutation({ onSuccess: () => utils.data.status.invalidate() });
  const busy = measuring || measure.isPending;
  return (
    <section className="card card-body stack" data-testid="disk-use">
      <h2>Disk use</h2>
      {disk && (
        <p data-testid="disk-free">
          {formatBytes(disk.free)} free of {formatBytes(disk.total)} where Rein keeps its data.
        </p>
      )}
      {disk && disk.pausedRuns > 0 && (
        <ErrorBlock testId="disk-full">
          {disk.pausedRuns === 1 ? "1 run is" : `${formatNumber(disk.pausedRuns)} runs are`} paused because the disk is full. They go on by
          themselves when space is freed: lower a retention above and press Prune now, or free space on the disk.
        </ErrorBlock>
      )}
      {!usage ? (
        <EmptyState icon="▤" title={busy ? "Measuring…" : "Not measured yet"}>
          Rein measures disk use once a day. Measure now to see where the space goes, by kind and by team.
        </EmptyState>
      ) : (
        <>
          <p className="muted small">
            Measured {formatRelative(usage.measuredAt)} ({formatDateTime(usage.measuredAt)}), in{" "}
            {usage.tookMs < 1000 ? "under a second" : `${formatNumber(Math.round(usage.tookMs / 1000))} s`}. Rows retention drops free space
            inside the database for new rows; giving it back to the disk takes a VACUUM while Rein is stopped (the operations guide says
            how).
          </p>
          <div className="row" style={{ gap: 32, alignItems: "flex-start", flexWrap: "wrap" }}>
            <Bars
              title={usage.database.dialect === "sqlite" ? "Database (SQLite)" : "Database (PostgreSQL)"}
              total={usage.database.totalBytes}
              parts={usage.database.byKind}
              labels={DB_LABELS}
            />
            <Bars title="Files" total={usage.files.totalBytes} parts={usage.files.byKind} labels={FILE_LABELS} />
          </div>
          {usage.byTeam.length === 0 ? (
            <p className="muted small" data-testid="usage-teams-empty">
              No runs yet, so nothing to count by team.
            </p>
          ) : (
            <table className="table" data-testid="usage-teams">
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col">Runs</th>
                  <th scope="col" title="The text of the team's runs' events, checkpoints and spans">
                    In the database
                  </th>
                  <th scope="col" title="The team's runs' workspaces, outputs and snapshots">
                    Files
                  </th>
                </tr>
              </thead>
              <tbody>
                {usage.byTeam.map((t) => (
                  <tr key={t.teamId ?? "none"}>
                    <td>
                      {t.teamId ? (t.teamName ?? <span className="muted">a deleted team</span>) : <span className="muted">no team</span>}
                    </td>
                    <td>{formatNumber(t.runs)}</td>
                    <td>{formatBytes(t.databaseBytes)}</td>
                    <td>{formatBytes(t.fileBytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      {measure.error && <FieldError message={errorMessage(measure.error)} block />}
      <div>
        <button type="button" className="btn" disabled={busy} onClick={() => measure.mutate()} data-testid="measure-now">
          {busy && <span className="spinner" aria-hidden="true" />}
          {busy ? "Measuring…" : "Measure now"}
        </button>
      </div>
    </section>
  );
}
