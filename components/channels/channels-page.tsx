"use client";
// Settings › Channels (admins, docs/channels.md): where Rein tells people and
// their systems what happens — signed webhooks, Slack, e-mail — and who hears
// of a request when it escalates.
import type { ReactNode } from "react";
import { TabPanel } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { ChannelTabBar, tabButtonId, tabPanelId, useChannelTab, type ChannelTabId } from "./channel-tabs";
import styles from "./channels.module.css";
import { EmailSettings } from "./email-settings";
import { EscalationsTab } from "./escalations-tab";
import { SlackSettings } from "./slack-settings";
import { WebhooksTab } from "./webhooks-tab";

export function ChannelsPage() {
  return (
    <RequireRole
      role="admin"
      title="Channels need the admin role"
      why="Only admins choose where Rein sends what happens and who hears of escalations."
    >
      {() => <Channels />}
    </RequireRole>
  );
}

function Channels() {
  const [active, select] = useChannelTab();
  const panel = (id: ChannelTabId, children: ReactNode) =>
    active === id && (
      <TabPanel id={tabPanelId(id)} labelledBy={tabButtonId(id)} className={styles.panel} testId={`channels-panel-${id}`}>
        {children}
      </TabPanel>
    );
  return (
    <div className="page" data-testid="channels-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Channels</h1>
          <p>
            Where Rein tells people and their systems what happens: signed webhooks, Slack, e-mail, and who hears of a request when it
            escalates.
          </p>
        </div>
      </div>
      <ChannelTabBar active={active} onSelect={select} className={styles.tabs} />
      {panel("webhooks", <WebhooksTab />)}
      {panel(
        "slack",
        <div data-testid="channels-slack-tab">
          <SlackSettings />
        </div>,
      )}
      {panel(
        "email",
        <div data-testid="channels-email-tab">
          <EmailSettings />
        </div>,
      )}
      {panel("escalations", <EscalationsTab />)}
    </div>
  );
}
