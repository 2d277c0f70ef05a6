"use client";
// The inbox in the top navigation: its badge (open requests this person's role
// could decide), kept live by the server's inboxChanged nudges (and a refetch
// every 30 s as a fallback), and the "g then i" shortcut. The nudge refetches
// every humanRequests query on screen, so the inbox page itself stays live too.
import { useRouter } from "next/navigation";
import { useCallback, useEffect } from "react";
import { isTypingTarget } from "@/lib/keyboard";
import { connectRunsSocket } from "@/lib/socket";
import { trpc } from "@/lib/trpc";
import styles from "./inbox.module.css";

/** Calls `onChange` (at most twice a second) when a request of a run this person can see changes. */
export function useWatchInbox(onChange: () => void) {
  useEffect(() => {
    const socket = connectRunsSocket();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        onChange();
      }, 500);
    };
    socket.on("connect", () => {
      socket.emit("watchInbox");
      // Changes made before the server watched for us (since the first fetch, or while disconnected) were missed.
      soon();
    });
    socket.on("inboxChanged", soon);
    return () => {
      if (timer) clearTimeout(timer);
      socket.removeAllListeners();
      socket.disconnect();
    };
  }, [onChange]);
}

/** "g" then "i" opens the inbox from any page (outside text fields and dialogs). */
function useGoToInbox() {
  const router = useRouter();
  useEffect(() => {
    let armedUntil = 0;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || document.querySelector("dialog[open]"))
        return;
      const key = e.key.toLowerCase();
      if (Date.now() < armedUntil) {
        armedUntil = 0;
        if (key === "i") {
          e.preventDefault();
          router.push("/inbox");
        }
        return;
      }
      if (key === "g" && !e.shiftKey) armedUntil = Date.now() + 1500;
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [router]);
}

export function InboxBadge() {
  const utils = trpc.useUtils();
  const count = trpc.humanRequests.openCount.useQuery(undefined, { refetchInterval: 30_000, staleTime: 0 });
  const refresh = useCallback(() => void utils.humanRequests.invalidate(), [utils]);
  useWatchInbox(refresh);
  useGoToInbox();
  const n = count.data ?? 0;
  if (n === 0) return null;
  return (
    <span
      className={styles.navBadge}
      data-testid="inbox-badge"
      aria-label={`${n} open request${n === 1 ? "" : "s"}`}
      title={`${n} open request${n === 1 ? "" : "s"} you could decide`}
    >
      {n > 99 ? "99+" : n}
    </span>
  );
}
