// Tiers (docs/desktops-and-tiers.md#how-the-desktop-is-built), T2: the
// operative desktop — Xvfb, a window manager, Chromium driven over CDP and
// x11vnc on loopback, one per run that needs it.
import type { Page } from "playwright-core";

export interface DesktopHandle {
  readonly id: string;
  /** The X display, e.g. ":12". */
  readonly display: string;
  /** x11vnc's port; it listens on 127.0.0.1 only. */
  readonly vncPort: number;
  /** 8 characters (VNC authentication uses 8); never shown to a browser. */
  readonly vncPassword: string;
  /** "http://127.0.0.1:<port>"; a new port after Chromium is restarted. */
  readonly cdpEndpoint: string;
  readonly width: number;
  readonly height: number;
  /** How long the desktop took from nothing to answering all three probes, ms. */
  readonly readyMs: number;
  /** Where the browser saves downloads (the desktop's own folder, never a workspace). */
  readonly downloads: DesktopDownloads;
  /**
   * The page the agent works in, in the visible Chromium (connected over CDP,
   * the connection cached and made again after a browser restart).
   */
  page(): Promise<Page>;
  /** Throws, saying what is not live, unless X, VNC and CDP all answer. */
  probe(): Promise<void>;
  /**
   * probe(), unless a full probe passed within `trustedMs` (default 30 s):
   * then only the light check (its programs run; X answers; VNC takes a connection).
   */
  check(trustedMs?: number): Promise<void>;
  /** Called once, when the desktop ends (stopped, or a crash it cannot recover from). */
  onExit(cb: (reason: string) => void): () => void;
  status(): DesktopStatus;
  /** Every change of status: the browser restarting after a crash, ready again, ended. */
  onStatus(cb: (status: DesktopStatus) => void): () => void;
  alive(): boolean;
}

/**
 * The browser's downloads folder: at `browserDir` for Chromium (in its
 * sandbox), at `hostDir` for Rein. The browser can write anything there,
 * links included: Rein opens what it finds without following them.
 */
export interface DesktopDownloads {
  hostDir: string;
  browserDir: string;
}

export interface DesktopStatus {
  state: "ready" | "restarting_browser" | "ended";
  /** Why it is in this state (a crash, a restart, why it ended); absent when it simply started. */
  reason?: string;
  /** Chromium restarts after crashes so far. */
  browserRestarts: number;
}

export type DesktopErrorCode = "DESKTOP_UNAVAILABLE" | "DESKTOP_START_FAILED" | "DESKTOP_ENDED";

export class DesktopError extends Error {
  constructor(
    public readonly code: DesktopErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DesktopError";
  }
}

export const DEFAULT_DESKTOP_SIZE = { width: 1280, height: 800 };
