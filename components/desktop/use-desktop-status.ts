// A run's desktop status, live: watched on the "/runs" socket (again after a
// reconnect), with take over and hand back.
import { useCallback, useEffect, useRef, useState } from "react";
import { connectDesktopSocket, type ControlReply, type DesktopSocket, type DesktopStatus } from "@/lib/desktop-socket";
import { socketErrorMessage } from "@/lib/socket";

export interface DesktopWatch {
  /** Null until the server has answered. */
  status: DesktopStatus | null;
  canControl: boolean;
  /** Why the desktop's status cannot be followed (logged out, run not found, no connection). */
  error: string | null;
  control(action: "takeover" | "handback"): Promise<ControlReply>;
}

export function useDesktopStatus(runId: string): DesktopWatch {
  const [status, setStatus] = useState<DesktopStatus | null>(null);
  const [canControl, setCanControl] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const socketRef = useRef<DesktopSocket | null>(null);

  useEffect(() => {
    const socket = connectDesktopSocket();
    socketRef.current = socket;
    setStatus(null);
    setError(null);
    socket.on("connect", () => {
      socket.emit("watchDesktop", { runId }, (reply) => {
        if (!reply.ok) return setError(reply.error);
        const { ok: _ok, canControl: may, ...rest } = reply;
        setCanControl(may);
        setStatus(rest);
        setError(null);
      });
    });
    socket.on("desktopStatus", (s) => s.runId === runId && setStatus(s));
    socket.on("connect_error", (err) => setError(socketErrorMessage(err)));
    return () => {
      socket.disconnect();
      socketRef.current = null;
    };
  }, [runId]);

  const control = useCallback(
    (action: "takeover" | "handback") =>
      new Promise<ControlReply>((resolve) => {
        const socket = socketRef.current;
        if (!socket?.connected) return resolve({ ok: false, error: "Not connected to the server; try again in a moment" });
        socket
          .timeout(30_000)
          .emit(action === "takeover" ? "desktopTakeover" : "desktopHandback", { runId }, (err: Error | null, reply: ControlReply) =>
            resolve(err ? { ok: false, error: "The server did not answer; try again" } : reply),
          );
      }),
    [runId],
  );

  return { status, canControl, error, control };
}
