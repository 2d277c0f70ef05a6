// The Desktop tab's side of the server's desktop messages: a "/runs" socket
// for the desktop's status and take over / hand back, and the VNC websocket's
// path and close codes. The session cookie authenticates both; the types come
// from the server (types only), and the constants are checked against it.
import { io, type Socket } from "socket.io-client";
import type { DesktopClientEvents, DesktopServerEvents, VNC_CLOSE as ServerCloseCodes, VNC_PATH as ServerPath } from "@/server/realtime";

export type { ControlReply, DesktopController, DesktopStatus, DesktopWatchReply } from "@/server/realtime";

export type DesktopSocket = Socket<DesktopServerEvents, DesktopClientEvents>;

/** A connection of its own; the Desktop tab owns it and disconnects it on unmount. */
export function connectDesktopSocket(): DesktopSocket {
  return io("/runs", { path: "/socket.io", transports: ["websocket"], forceNew: true });
}

export const VNC_CLOSE = {
  noDesktop: 4404,
  runEnded: 4410,
  desktopGone: 4000,
  vncFailed: 4003,
  protocol: 4002,
  serverStopping: 1001,
  sessionEnded: 4401,
  rolesChanged: 4409,
} as const satisfies typeof ServerCloseCodes;

const VNC_PATH = "/vnc" satisfies typeof ServerPath;

/** The run's VNC websocket on this page's own host. */
export function vncUrl(runId: string): string {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}${VNC_PATH}/${encodeURIComponent(runId)}`;
}
