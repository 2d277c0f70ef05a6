"use client";
// The Channels tabs (WAI-ARIA tabs, automatic activation): the open one is in
// the URL (?tab=slack) so a link can point at it; Webhooks has no parameter.
import { useSearchParams } from "next/navigation";
import { useCallback, useRef, type KeyboardEvent } from "react";

export const CHANNEL_TABS = [
  { id: "webhooks", label: "Webhooks" },
  { id: "slack", label: "Slack" },
  { id: "email", label: "E-mail" },
  { id: "escalations", label: "Escalations" },
] as const;
export type ChannelTabId = (typeof CHANNEL_TABS)[number]["id"];

export const tabButtonId = (id: string) => `channels-tab-${id}`;
export const tabPanelId = (id: string) => `channels-panel-${id}`;

export function useChannelTab(): [ChannelTabId, (id: ChannelTabId) => void] {
  const params = useSearchParams();
  const requested = params.get("tab");
  const active = CHANNEL_TABS.find((t) => t.id === requested)?.id ?? "webhooks";
  const select = useCallback((id: ChannelTabId) => {
    const url = new URL(window.location.href);
    if (id === "webhooks") url.searchParams.delete("tab");
    else url.searchParams.set("tab", id);
    window.history.pushState(null, "", url);
  }, []);
  return [active, select];
}

export function ChannelTabBar({ active, onSelect, className }: { active: ChannelTabId; onSelect(id: ChannelTabId): void; className?: string }) {
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = CHANNEL_TABS.findIndex((t) => t.id === active);
    const n = CHANNEL_TABS.length;
    const next =
      e.key === "ArrowRight" ? CHANNEL_TABS[(i + 1) % n]
      : e.key === "ArrowLeft" ? CHANNEL_TABS[(i - 1 + n) % n]
      : e.key === "Home" ? CHANNEL_TABS[0]
      : e.key === "End" ? CHANNEL_TABS[n - 1]
      : null;
    if (!next) return;
    e.preventDefault();
    onSelect(next.id);
    refs.current[next.id]?.focus();
  };
  return (
    <div className={`run-tabs ${className ?? ""}`} role="tablist" aria-label="Channels" onKeyDown={onKeyDown}>
      {CHANNEL_TABS.map((t) => {
        const selected = t.id === active;
        return (
          <button
            key={t.id}
            ref={(el) => void (refs.current[t.id] = el)}
            type="button"
            role="tab"
            id={tabButtonId(t.id)}
            aria-selected={selected}
            aria-controls={tabPanelId(t.id)}
            tabIndex={selected ? 0 : -1}
            className="run-tab"
            data-testid={`channels-tab-${t.id}`}
            onClick={() => onSelect(t.id)}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}
