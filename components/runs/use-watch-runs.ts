// Refreshes the runs list when any run logs something (socket "runChanged"),
// at most once a second however busy the runs are.
import { useEffect } from "react";
import { connectRunsSocket } from "@/lib/socket";

export function useWatchRuns(refresh: () => void) {
  useEffect(() => {
    const socket = connectRunsSocket();
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const throttled = () => {
      if (timer) return;
      const wait = Math.max(0, last + 1000 - Date.now());
      timer = setTimeout(() => {
        timer = null;
        last = Date.now();
        refresh();
      }, wait);
    };
    let connectedBefore = false;
    socket.on("connect", () => {
      socket.emit("watchRuns");
      // Changes made while we were disconnected were missed.
      if (connectedBefore) throttled();
      connectedBefore = true;
    });
    socket.on("runChanged", throttled);
    return () => {
      if (timer) clearTimeout(timer);
      socket.removeAllListeners();
      socket.disconnect();
    };
  }, [refresh]);
}
