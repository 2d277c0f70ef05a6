// The "/terminal" socket.io namespace's messages
// (docs/terminal-and-files.md#terminal-pods): the live terminal of a run's pod,
// with flow control and take over. Shared with the browser as types only.

import type { ControlReply, Controller } from "./run-takeover";

export type { ControlReply };

/** The person typing in a run's terminal (took it over). */
export type TerminalController = Controller;

export type AttachReply =
  | { ok: true; podId: string | null; controller: TerminalController | null; canControl: boolean }
  | { ok: false; error: string };

/** The current screen and recent scrollback; the client resets its terminal and writes `data`. */
export interface SnapshotMessage {
  runId: string;
  podId: string;
  data: string;
  /** The last output chunk the snapshot includes; live data continues after it. */
  seq: number;
  cols: number;
  rows: number;
}

/** Live output, in order. The client answers with "ack" {runId, seq} once its terminal has written it. */
export interface DataMessage {
  runId: string;
  seq: number;
  data: string;
}

export interface StatusMessage {
  runId: string;
  podId: string | null;
  controller: TerminalController | null;
  /** What changed: "attached", "ended", "takeover", "ready", "handback", or why the terminal ended. */
  reason?: string;
  /** With a controller: the run has paused and the controller may type. */
  ready?: boolean;
}

/** The pod's terminal size changed; every viewer's terminal follows it. */
export interface SizeMessage {
  runId: string;
  cols: number;
  rows: number;
}

/** The last screen of a terminal that has ended (sent on attach when the run has no live terminal). */
export interface EndedMessage {
  runId: string;
  podId: string;
  data: string;
  cols: number;
  rows: number;
  reason: string;
}

export interface TerminalServerEvents {
  snapshot(message: SnapshotMessage): void;
  data(message: DataMessage): void;
  status(message: StatusMessage): void;
  resize(message: SizeMessage): void;
  ended(message: EndedMessage): void;
}

export interface TerminalClientEvents {
  attach(input: { runId: string; cols?: number; rows?: number }, ack: (reply: AttachReply) => void): void;
  detach(input: { runId: string }): void;
  ack(input: { runId: string; seq: number }): void;
  input(input: { runId: string; data: string }, ack?: (reply: ControlReply) => void): void;
  resize(input: { runId: string; cols: number; rows: number }): void;
  takeover(input: { runId: string }, ack: (reply: ControlReply) => void): void;
  handback(input: { runId: string }, ack: (reply: ControlReply) => void): void;
}

/** Sizes a terminal may take (the pod clamps to the same upper bounds). */
export const TERMINAL_SIZE = { minCols: 20, maxCols: 500, minRows: 5, maxRows: 200 } as const;
