// socket.io client for the "/runs" namespace: the live tail of run event logs.
// The session cookie authenticates the connection.
import { io, type Socket } from "socket.io-client";
import type { TimelineEvent, ModelDelta, ToolProgress } from "@/lib/run-events";

export type SubscribeAck = { ok: true; cursor: number } | { ok: false; error: string };

interface ServerToClient {
  events(message: { runId: string; events: TimelineEvent[] }): void;
  delta(message: ModelDelta): void;
  progress(message: ToolProgress): void;
  runChanged(message: { runId: string; types: string[] }): void;
  /** A human request of a run this person can see was created or changed (after watchInbox). */
  inboxChanged(message: { requestId: string; runId: string; state: string }): void;
}

interface ClientToServer {
  subscribe(input: { runId: string; after: number }, ack: (reply: SubscribeAck) => void): void;
  unsubscribe(input: { runId: string }): void;
  watchRuns(): void;
  watchInbox(): void;
}

export type RunsSocket = Socket<ServerToClient, ClientToServer>;

/** A new connection; each page that tails runs owns one and disconnects it on unmount. */
export function connectRunsSocket(): RunsSocket {
  return io("/runs", { path: "/socket.io", transports: ["websocket"], forceNew: true });
}

/** Readable text for a failed connection (the server's middleware says UNAUTHORIZED when logged out). */
export function socketErrorMessage(err: Error): string {
  if (err.message.startsWith("UNAUTHORIZED")) return "Your session has ended. Log in again to see live updates.";
  return `Live updates are unavailable: ${err.message}`;
}
