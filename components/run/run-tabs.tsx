"use client";
// The run page's tabs: one ordered list (add a tab here and it gets its place
// in the bar, its ?tab= value and its "g then <key>" shortcut).
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, type ReactNode } from "react";
import { TabPanel, Tabs } from "@/components/ui";
import { DesktopTab } from "@/components/desktop/desktop-tab";
import { FilesTab } from "@/components/files/files-tab";
import { TerminalTab } from "@/components/terminal/terminal-tab";
import { TraceTab } from "@/components/trace/trace-tab";
import { useShortcuts } from "@/components/shortcuts/use-shortcuts";
import { isTypingTarget } from "@/lib/keyboard";
import type { Shortcut } from "@/lib/shortcuts";
import type { EventOf } from "@/lib/run-events";
import type { Run, RunState } from "@/lib/trpc";
import type { RunEventsState } from "@/lib/use-run-events";
import { MessageBox } from "./message-box";
import { SidePanel } from "./side-panel";
import { Timeline } from "./timeline";

export interface RunTabProps {
  run: Run;
  status: RunState;
  live: RunEventsState;
  tasks: EventOf<"tasks.updated"> | null;
  /** The tab is on screen (others stay mounted, hidden, once opened). */
  active: boolean;
}

export interface RunTab {
  id: string;
  label: string;
  /** Pressed after "g" to open the tab. */
  key: string;
  render(props: RunTabProps): ReactNode;
}

export const RUN_TABS: readonly RunTab[] = [
  {
    id: "timeline",
    label: "Timeline",
    key: "t",
    render: ({ run, status, live, tasks }) => (
      <div className="run-body">
        <div className="timeline-column">
          <Timeline run={run} status={status} live={live} />
          <MessageBox run={run} status={status} />
        </div>
        <SidePanel run={run} status={status} tasks={tasks} events={live.events} />
      </div>
    ),
  },
  {
    id: "terminal",
    label: "Terminal",
    key: "s",
    render: ({ run, status, live }) => <TerminalTab run={run} status={status} events={live.events} />,
  },
  {
    id: "desktop",
    label: "Desktop",
    key: "d",
    render: ({ run, status, active }) => <DesktopTab run={run} status={status} active={active} />,
  },
  {
    id: "files",
    label: "Files",
    key: "f",
    render: ({ run, status, active }) => <FilesTab run={run} status={status} active={active} />,
  },
  {
    id: "trace",
    label: "Trace",
    key: "r",
    render: ({ run, status, active }) => <TraceTab run={run} status={status} active={active} />,
  },
];

const DEFAULT_TAB = RUN_TABS[0].id;

/** The run page's keys, listed in the "?" dialog. */
const RUN_SHORTCUTS: readonly Shortcut[] = [
  ...RUN_TABS.map((t) => ({ keys: ["g", t.key], what: `Open the ${t.label} tab` })),
  { keys: ["←", "→"], what: "On the tab bar: the previous or next tab (Home, End: the first or last)" },
  { keys: ["End"], what: "On the Timeline: jump to the latest event" },
  { keys: ["Ctrl", "Enter"], what: "In the message box: send the message" },
];

/** A tab's tooltip names its shortcut. */
function tabTitle(tab: Pick<RunTab, "label" | "key">) {
  return `${tab.label} (press g then ${tab.key})`;
}

export function tabPanelId(id: string) {
  return `run-tab-panel-${id}`;
}

function tabButtonId(id: string) {
  return `run-tab-${id}`;
}

/** The open tab lives in the URL (?tab=files); the first tab has no parameter. */
export function useRunTab(tabs: readonly RunTab[] = RUN_TABS): [string, (id: string) => void] {
  const params = useSearchParams();
  const requested = params.get("tab");
  const active = tabs.some((t) => t.id === requested) ? requested! : DEFAULT_TAB;
  const select = useCallback((id: string) => {
    const url = new URL(window.location.href);
    if (url.searchParams.get("tab") === id || (id === DEFAULT_TAB && !url.searchParams.has("tab"))) return;
    // Parameters of the tab being left (e.g. the open file) are kept: coming back restores them.
    if (id === DEFAULT_TAB) url.searchParams.delete("tab");
    else url.searchParams.set("tab", id);
    window.history.pushState(null, "", url);
  }, []);
  return [active, select];
}

/** "g" then a tab's key opens it, outside text fields and dialogs. */
function useTabShortcuts(tabs: readonly RunTab[], select: (id: string) => void) {
  useEffect(() => {
    let armedUntil = 0;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || document.querySelector("dialog[open]"))
        return;
      const key = e.key.toLowerCase();
      if (Date.now() < armedUntil) {
        armedUntil = 0;
        const tab = tabs.find((t) => t.key === key);
        if (tab) {
          e.preventDefault();
          select(tab.id);
        }
        return;
      }
      if (key === "g" && !e.shiftKey) armedUntil = Date.now() + 1500;
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [tabs, select]);
}

/** The bar of the tabs this run has (`tabs`: RUN_TABS without those that do not apply, e.g. Desktop on a terminal-only run). */
export function RunTabBar({ tabs = RUN_TABS, active, onSelect }: { tabs?: readonly RunTab[]; active: string; onSelect(id: string): void }) {
  useTabShortcuts(tabs, onSelect);
  useShortcuts("This run", RUN_SHORTCUTS);
  return (
    <Tabs
      tabs={tabs.map((t) => ({ id: t.id, label: t.label, title: tabTitle(t), testId: `tab-${t.id}` }))}
      active={active}
      onSelect={onSelect}
      label="Run views"
      tabId={tabButtonId}
      panelId={tabPanelId}
    />
  );
}

export function RunTabPanel({ id, active, children }: { id: string; active: boolean; children: ReactNode }) {
  return (
    <TabPanel className="run-tab-panel" id={tabPanelId(id)} labelledBy={tabButtonId(id)} hidden={!active} testId={`tab-panel-${id}`}>
      {children}
    </TabPanel>
  );
}
