"use client";
// The run workspace: header with controls, then tabs (RUN_TABS): the live
// timeline with a side panel, the workspace's files, ...
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { PageShell, Skeleton } from "@/components/ui";
import { spansMayHaveChanged } from "@/components/trace/trace-events";
import { latest, pausePending, type TimelineEvent } from "@/lib/run-events";
import { runHolder } from "@/lib/run-holder";
import { endedAfterFailedCall, lastStep, mayHaveDesktop, modelsThatAnswered } from "@/lib/timeline-groups";
import { trpc } from "@/lib/trpc";
import { useRunEvents } from "@/lib/use-run-events";
import { RunHeader } from "./run-header";
import { RUN_TABS, RunTabBar, RunTabPanel, useRunTab } from "./run-tabs";
import { WaitingBanner } from "./waiting-banner";

/** Events after which the run's summary (status, steps, tokens) has changed. */
const SUMMARY_EVENTS = new Set(["run.state", "model.turn", "run.control", "run.resumed", "human.decided", "tier.changed"]);
/** Events after which the workspace's files may have changed (the run starting creates it). */
const FILE_EVENTS = new Set(["tool.result", "workspace.edit", "run.state"]);
/** Events that become spans; the spans (and the run's cost) are written a moment later, in batches. */
const SPAN_EVENTS = new Set([
  "model.turn",
  "tool.call",
  "tool.result",
  "handoff",
  "human.requested",
  "human.decided",
  "run.state",
  "tier.requested",
  "tier.changed",
  "tier.refused",
  "tier.restored",
]);
const SPAN_BATCH_DELAY_MS = 600;

export function RunWorkspace({ id }: { id: string }) {
  const utils = trpc.useUtils();
  const run = trpc.runs.get.useQuery({ id });
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const filesTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const spansTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const costChanged = useRef(false);

  const onNewEvents = useCallback(
    (events: TimelineEvent[]) => {
      // The run's cost is written with its spans, after the summary's own refetch: read it again then.
      if (events.some((e) => e.type === "model.turn" || e.type === "run.state")) costChanged.current = true;
      if (events.some((e) => SPAN_EVENTS.has(e.type)) && !spansTimer.current) {
        spansTimer.current = setTimeout(() => {
          spansTimer.current = null;
          spansMayHaveChanged(id);
          if (costChanged.current) void utils.runs.get.invalidate({ id });
          costChanged.current = false;
        }, SPAN_BATCH_DELAY_MS);
      }
      // Only queries on screen refetch; the others are marked stale for when they are.
      if (events.some((e) => FILE_EVENTS.has(e.type)) && !filesTimer.current) {
        filesTimer.current = setTimeout(() => {
          filesTimer.current = null;
          void utils.files.tree.invalidate({ runId: id });
          void utils.files.diff.invalidate({ runId: id });
          void utils.files.read.invalidate({ runId: id });
        }, 300);
      }
      if (!events.some((e) => SUMMARY_EVENTS.has(e.type)) || refetchTimer.current) return;
      refetchTimer.current = setTimeout(() => {
        refetchTimer.current = null;
        void utils.runs.get.invalidate({ id });
      }, 150);
    },
    [id, utils],
  );
  useEffect(
    () => () => {
      if (refetchTimer.current) clearTimeout(refetchTimer.current);
      if (filesTimer.current) clearTimeout(filesTimer.current);
      if (spansTimer.current) clearTimeout(spansTimer.current);
    },
    [],
  );
  const live = useRunEvents(id, onNewEvents);
  const tierNow = useMemo(() => latest(live.events, "tier.changed")?.payload.to ?? null, [live.events]);
  // The Desktop tab only for a run that had a desktop or may get one.
  const desktop = !!run.data && (mayHaveDesktop(run.data.tier, live.events) || tierNow === "T2");
  const tabs = useMemo(() => RUN_TABS.filter((t) => t.id !== "desktop" || desktop), [desktop]);
  const [tab, selectTab] = useRunTab(tabs);
  // A tab stays mounted once opened, so switching keeps unsaved edits and scroll positions.
  const [visited, setVisited] = useState(() => new Set([tab]));
  useEffect(() => setVisited((v) => (v.has(tab) ? v : new Set(v).add(tab))), [tab]);

  const goal = run.data?.goal;
  useEffect(() => {
    if (goal) document.title = `${goal.length > 60 ? `${goal.slice(0, 60)}…` : goal} · Rein`;
  }, [goal]);

  // The event log is the truth and arrives first; the summary catches up.
  const lastState = useMemo(() => latest(live.events, "run.state"), [live.events]);
  const tasks = useMemo(() => latest(live.events, "tasks.updated"), [live.events]);
  const pausing = useMemo(() => pausePending(live.events), [live.events]);
  const holder = useMemo(() => runHolder(live.events), [live.events]);
  const seenSteps = useMemo(() => lastStep(live.events), [live.events]);
  const answeredBy = useMemo(() => modelsThatAnswered(live.events), [live.events]);
  const cachedTokens = useMemo(
    () =>
      live.events.reduce(
        (n, e) => n + (e.type === "model.turn" ? (e.payload as { usage: { cachedInputTokens: number } }).usage.cachedInputTokens : 0),
        0,
      ),
    [live.events],
  );

  return (
    <PageShell
      query={run}
      loading={
        <div className="run-page" aria-busy="true">
          <div className="stack" style={{ paddingTop: 8 }}>
            <Skeleton width={120} />
            <Skeleton width="60%" height={22} />
            <Skeleton width="80%" />
          </div>
        </div>
      }
      failed="Could not load the run"
      notFound={{
        title: "Run not found",
        message: `Run ${id} was not found. It may have been deleted, or it belongs to a team you are not in.`,
      }}
      frame={(problem) => (
        <div className="page">
          <div className="card" data-testid="run-not-found">
            {problem}
            <div style={{ textAlign: "center", paddingBottom: 32 }}>
              <Link href="/runs">← Back to runs</Link>
            </div>
          </div>
        </div>
      )}
    >
      {(summary) => {
        const status = lastState?.payload.to ?? summary.status;
        const reason = lastState ? (lastState.payload.reason ?? null) : summary.statusReason;
        const failure =
          status !== "failed"
            ? null
            : (lastState?.payload.error ??
              (summary.errorCode ? { code: summary.errorCode, message: summary.errorMessage ?? summary.statusReason ?? "" } : null));

        const seen = {
          lastStep: seenSteps,
          answeredBy,
          endedAt: ["succeeded", "failed", "canceled"].includes(status) && lastState ? lastState.createdAt : null,
          lastCallFailed: endedAfterFailedCall(live.events, status),
          cachedTokens,
        };

        return (
          <div className="run-page">
            <RunHeader
              run={summary}
              status={status}
              reason={reason}
              failure={failure}
              pausing={pausing}
              holder={holder}
              tier={tierNow ?? summary.tier}
              seen={seen}
            />
            {status === "waiting_human" && <WaitingBanner events={live.events} />}
            <RunTabBar tabs={tabs} active={tab} onSelect={selectTab} />
            {tabs
              .filter((t) => visited.has(t.id) || t.id === tab)
              .map((t) => (
                <RunTabPanel key={t.id} id={t.id} active={t.id === tab}>
                  {t.render({ run: summary, status, live, tasks, active: t.id === tab })}
                </RunTabPanel>
              ))}
          </div>
        );
      }}
    </PageShell>
  );
}
