// What the browser's Desktop tab and the server say to each other
// (docs/desktops-and-tiers.md#the-desktop-tab), shared as types only: the VNC
// websocket's path and close codes, and the desktop messages on the "/runs"
// socket.io namespace.
import type { ControlReply, Controller } from "../run-takeover";

/** The person who took over a run's desktop. */
export type DesktopController = Controller;

/** The RFB websocket of a run's desktop: `${VNC_PATH}/<runId>`. */
export const VNC_PATH = "/vnc";

/** Why the server closed the VNC websocket (the close reason says it in words). */
export const VNC_CLOSE = {
  /** The run has no desktop now (it is on another tier, or the desktop is starting). */
  noDesktop: 4404,
  /** The run has ended. */
  runEnded: 4410,
  /** The desktop stopped or was released. */
  desktopGone: 4000,
  /** The desktop's VNC server could not be reached or refused the proxy. */
  vncFailed: 4003,
  /** The browser sent something that is not RFB the proxy understands. */
  protocol: 4002,
  /** The server is shutting down. */
  serverStopping: 1001,
  /** The person was disabled or their password reset: their sessions have ended. */
  sessionEnded: 4401,
  /** The person's roles changed: reconnecting admits them again with their new role. */
  rolesChanged: 4409,
} as const;

export interface DesktopInfo {
  id: string;
  width: number;
  height: number;
}

/** A run's desktop as the tab shows it; sent on watch and whenever it changes. */
export interface DesktopStatus {
  runId: string;
  /** The desktop the run has now, or null. */
  desktop: DesktopInfo | null;
  controller: DesktopController | null;
  /** With a controller: the run has paused and the controller's input reaches the desktop. */
  ready: boolean;
  /** The run has ended: no desktop will come. */
  ended: boolean;
  /** What changed, in words when it is news ("The desktop stopped: ..."). */
  reason?: string;
}

export type DesktopWatchReply = ({ ok: true; canControl: boolean } & DesktopStatus) | { ok: false; error: string };

export interface DesktopServerEvents {
  desktopStatus(status: DesktopStatus): void;
}

export interface DesktopClientEvents {
  watchDesktop(input: { runId: string }, ack: (reply: DesktopWatchReply) => void): void;
  unwatchDesktop(input: { runId: string }): void;
  desktopTakeover(input: { runId: string }, ack: (reply: ControlReply) => void): void;
  desktopHandback(input: { runId: string }, ack: (reply: ControlReply) => void): void;
}
