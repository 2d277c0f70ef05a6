"use client";
// The Friction list (docs/improvements.md#friction): what runs keep
// struggling with, filtered by kind, state, agent and words; whether each is
// the improver's to answer or a person's choice kept as a signal; what its
// hack cycles and change requests did; dismiss with a reason, or reopen.
import Link from "next/link";
import { useId, useState } from "react";
import { DebouncedInput } from "@/components/debounced-input";
import { ConfirmAction, EmptyState, FieldError, PageShell, ReasonField, RequiredMark, SkeletonRows } from "@/components/ui";
import { formatDateTime, formatRelative, pluralize } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { improvementHref, runHref } from "./format";
import styles from "./improvements.module.css";

type FrictionRow = RouterOutputs["improvements"]["friction"][number];

export const FRICTION_KIND_WORDS: Record<string, string> = {
  repeated_failure: "a tool keeps failing",
  unknown_tool: "calls a tool it does not have",
  doom_loop: "loops without progress",
  human_rejected: "a person rejected a call",
  human_edited: "a person edited a call",
  human_takeover: "a person took over",
  budget_stop: "a limit stopped the run",
};

const STATE_WORDS: Record<string, string> = {
  open: "open",
  improving: "a cycle is working on it",
  addressed: "addressed",
  dismissed: "dismissed",
};

const CYCLE_WORDS: Record<string, string> = {
  DETECT: "started",
  ISOLATE: "gathering evidence",
  MODIFY: "writing a tool",
  TEST: "testing",
  GATE: "waiting at the gate",
  DEPLOY: "deployed",
  ABANDONED: "abandoned",
};

interface Filters {
  kind: string;
  state: string;
  role: "" | "cycles" | "signals";
  agent: string;
  q: string;
}
const NO_FILTERS: Filters = { kind: "", state: "", role: "", agent: "", q: "" };

export function FrictionList() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const patch = (p: Partial<Filters>) => setFilters((f) => ({ ...f, ...p }));
  const input = {
    limit: 100,
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(filters.state ? { state: filters.state } : {}),
    ...(filters.role ? { role: filters.role } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.q ? { q: filters.q } : {}),
  };
  const list = trpc.improvements.friction.useQuery(input, { refetchInterval: 15_000 });
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const now = useNow(30_000);
  const active = Object.values(filters).some(Boolean);
  return (
    <section className="card" aria-labelledby="friction-list-title" data-testid="friction-list">
      <div className="card-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h2 id="friction-list-title">Friction</h2>
          <span className="small muted">
            What runs keep struggling with. The improver answers only the agent&apos;s own struggles; what people chose (a rejection, a
            policy rule, a limit, a take-over) stays here as a signal.
          </span>
        </div>
      </div>
      <div className={styles.toolbar} role="search" aria-label="Filter friction">
        <DebouncedInput
          type="search"
          className="input search-input"
          placeholder="Search titles and tools…"
          aria-label="Search friction"
          value={filters.q}
          onCommit={(q) => patch({ q: q.trim() })}
          data-testid="friction-search"
        />
        <select
          className="select"
          aria-label="Kind"
          value={filters.kind}
          onChange={(e) => patch({ kind: e.target.value })}
          data-testid="friction-kind"
        >
          <option value="">All kinds</option>
          {Object.entries(FRICTION_KIND_WORDS).map(([k, words]) => (
            <option key={k} value={k}>
              {words}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Whose"
          value={filters.role}
          onChange={(e) => patch({ role: e.target.value as Filters["role"] })}
          data-testid="friction-role"
        >
          <option value="">Struggles and signals</option>
          <option value="cycles">The agent&apos;s struggles (may start cycles)</option>
          <option value="signals">People&apos;s choices (signals only)</option>
        </select>
        <select
          className="select"
          aria-label="State"
          value={filters.state}
          onChange={(e) => patch({ state: e.target.value })}
          data-testid="friction-state"
        >
          <option value="">All states</option>
          {Object.entries(STATE_WORDS).map(([s, words]) => (
            <option key={s} value={s}>
              {words}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Agent"
          value={filters.agent}
          onChange={(e) => patch({ agent: e.target.value })}
          data-testid="friction-agent"
        >
          <option value="">All agents</option>
          {agents.data?.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
        {active && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => setFilters(NO_FILTERS)} data-testid="friction-clear">
            Clear filters
          </button>
        )}
      </div>
      <PageShell query={list} loading={<SkeletonRows rows={4} columns={5} />} failed="Could not load the friction">
        {(rows) =>
          rows.length === 0 ? (
            active ? (
              <EmptyState icon="⌕" title="No friction matches these filters" />
            ) : (
              <EmptyState icon="✓" title="No friction yet">
                Rein records friction as runs go: a tool failing the same way again and again, a call to a tool the agent does not have, a
                doom-loop pause, or a person rejecting, editing or taking over. Nothing has come up so far.
              </EmptyState>
            )
          ) : (
            <ul className={styles.frictionList}>
              {rows.map((f) => (
                <FrictionItem key={f.id} friction={f} now={now} />
              ))}
            </ul>
          )
        }
      </PageShell>
    </section>
  );
}

function FrictionItem({ friction: f, now }: { friction: FrictionRow; now: number }) {
  const id = useId();
  const utils = trpc.useUtils();
  const [open, setOpen] = useState(false);
  const [dismissing, setDismissing] = useState(false);
  const [reason, setReason] = useState("");
  const decide = trpc.improvements.decideFriction.useMutation({
    onSuccess: () => (setDismissing(false), setReason("")),
    onSettled: () => void utils.improvements.friction.invalidate(),
  });
  const runs = [...new Set(f.items.map((i) => i.runId))].slice(0, 5);
  return (
    <li
      className={styles.frictionItem}
      data-testid="friction-item"
      data-friction={f.id}
      data-state={f.state}
      data-signal={f.signalOnly ? "true" : "false"}
    >
      <div className={styles.frictionHead}>
        <button
          type="button"
          className="btn-link"
          aria-expanded={open}
          aria-controls={`${id}-detail`}
          onClick={() => setOpen((o) => !o)}
          data-testid="friction-open"
        >
          <strong>{f.title}</strong>
        </button>
        <span
          className={`badge ${f.state === "dismissed" ? "badge-outline" : f.state === "addressed" ? "badge-ok" : ""}`}
          data-testid="friction-state-badge"
        >
          {STATE_WORDS[f.state] ?? f.state}
        </span>
      </div>
      <p className="small muted">
        {FRICTION_KIND_WORDS[f.kind] ?? f.kind} · {f.agentName} · {pluralize(f.occurrences, "time")} in {pluralize(f.runCount, "run")} ·
        last <span title={formatDateTime(f.lastSeenAt)}>{formatRelative(f.lastSeenAt, now)}</span>
      </p>
      <p className="small" data-testid="friction-role-words">
        {f.signalOnly ? (
          <span className="muted">Signal only: {f.signalOnly}.</span>
        ) : f.cycles.length ? (
          <span>
            {pluralize(f.cycles.length, "hack cycle")}: the latest {CYCLE_WORDS[f.cycles[0].state] ?? f.cycles[0].state.toLowerCase()}
            {f.cycles[0].improvement && (
              <>
                {" "}
                → <Link href={improvementHref(f.cycles[0].improvement.id)}>{f.cycles[0].improvement.name}</Link>
              </>
            )}
            .
          </span>
        ) : (
          <span className="muted">The improver may answer it; no cycle has started.</span>
        )}
      </p>
      {f.state === "dismissed" && (
        <p className="small" data-testid="friction-dismissed">
          Dismissed{f.stateBy ? ` by ${f.stateBy}` : ""}
          {f.stateAt ? ` ${formatRelative(f.stateAt, now)}` : ""}: “{f.stateReason}”
        </p>
      )}
      <div className="row">
        {f.state === "dismissed" ? (
          <button
            type="button"
            className="btn btn-sm"
            disabled={decide.isPending}
            onClick={() => decide.mutate({ id: f.id, action: "reopen" })}
            data-testid="friction-reopen"
          >
            Reopen
          </button>
        ) : (
          <button type="button" className="btn btn-sm" onClick={() => (decide.reset(), setDismissing(true))} data-testid="friction-dismiss">
            Dismiss…
          </button>
        )}
        {!dismissing && <FieldError message={decide.error?.message} live testId="friction-error" />}
      </div>
      {open && (
        <div id={`${id}-detail`} className={styles.frictionDetail} data-testid="friction-detail">
          <h3 className="small">Seen in</h3>
          {runs.length ? (
            <ul>
              {runs.map((r) => (
                <li key={r}>
                  <Link href={runHref(r)} className="mono small">
                    {r.slice(0, 10)}
                  </Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="small muted">No run you can see.</p>
          )}
          <h3 className="small">What was done about it</h3>
          {f.cycles.length === 0 && f.changes.length === 0 ? (
            <p className="small muted">Nothing yet.</p>
          ) : (
            <ul data-testid="friction-history">
              {f.cycles.map((c) => (
                <li key={c.id} className="small">
                  A hack cycle {formatRelative(c.createdAt, now)}: {CYCLE_WORDS[c.state] ?? c.state}
                  {c.improvement && (
                    <>
                      {" "}
                      → <Link href={improvementHref(c.improvement.id)}>{`${c.improvement.name} v${c.improvement.version}`}</Link> (
                      {c.improvement.state})
                    </>
                  )}
                  {c.reason && <span className="muted"> — {c.reason}</span>}
                </li>
              ))}
              {f.changes.map((c) => (
                <li key={c.id} className="small">
                  A change request: <Link href={`/improvements/changes/${encodeURIComponent(c.id)}`}>{c.title}</Link> (
                  {c.state.replace(/_/g, " ")})
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <ConfirmAction
        open={dismissing}
        title="Dismiss this friction?"
        confirmLabel="Dismiss"
        busyLabel="Dismissing…"
        action={decide}
        confirmDisabled={!reason.trim()}
        onConfirm={() => decide.mutate({ id: f.id, action: "dismiss", reason: reason.trim() })}
        onClose={() => setDismissing(false)}
      >
        <p>It stays in the list and keeps counting, but no hack cycle starts for it until someone reopens it.</p>
        <ReasonField
          label="Why it needs no improvement"
          value={reason}
          onChange={setReason}
          maxLength={2000}
          placeholder="e.g. The payments API is down for maintenance this week"
          testId="friction-dismiss-reason"
        />
      </ConfirmAction>
    </li>
  );
}
