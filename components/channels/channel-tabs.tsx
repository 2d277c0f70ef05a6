"use client";
// The Channels tabs (WAI-ARIA tabs, automatic activation): the open one is in
// the URL (?tab=slack) so a link can point at it; Webhooks has no parameter.
import { useSearchParams } from "next/navigation";
import { useCallback } from "react";
import { Tabs } from "@/components/ui";

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

export function ChannelTabBar({
  active,
  onSelect,
  className,
}: {
  active: ChannelTabId;
  onSelect(id: ChannelTabId): void;
  className?: string;
}) {
  return (
    <Tabs
      tabs={CHANNEL_TABS.map((t) => ({ ...t, testId: `channels-tab-${t.id}` }))}
      active={active}
      onSelect={onSelect}
      label="Channels"
      tabId={tabButtonId}
      panelId={tabPanelId}
      className={`run-tabs ${className ?? ""}`}
    />
  );
}
