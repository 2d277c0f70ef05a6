"use client";
// For admins, at the top of the Inbox: each webhook Rein turned off by itself
// (it answered 410, or failed for days), with a link to it.
import Link from "next/link";
import { endpointHref } from "@/components/channels/format";
import { roleAtLeast, useMe } from "@/lib/access";
import { trpc } from "@/lib/trpc";

export function ChannelNotices() {
  const { me } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const notices = trpc.channels.notices.useQuery(undefined, { enabled: isAdmin, refetchInterval: 60_000, retry: false });
  if (!isAdmin || !notices.data?.length) return null;
  return (
    <div className="stack" style={{ gap: 8, marginBottom: 12 }}>
      {notices.data.map((n) => (
        <div key={n.id} className="alert alert-warn" role="status" data-testid="channel-notice">
          Rein turned off the webhook to <code>{n.url}</code>: {n.reason}. <Link href={endpointHref(n.id)}>Open the webhook</Link>
        </div>
      ))}
    </div>
  );
}
