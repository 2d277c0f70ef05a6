// socket.io client for the "/terminal" namespace: a run's live terminal. The
// session cookie authenticates the connection; the messages are typed by the
// server's protocol (types only).
import { io, type Socket } from "socket.io-client";
import type { TerminalClientEvents, TerminalServerEvents } from "@/server/realtime";

export type {
  AttachReply,
  ControlReply,
  TerminalController,
  SnapshotMessage,
  DataMessage,
  StatusMessage,
  EndedMessage,
  SizeMessage,
} from "@/server/realtime";

export type TerminalSocket = Socket<TerminalServerEvents, TerminalClientEvents>;

/** A connection of its own; the terminal tab owns it and disconnects it on unmount. */
export function connectTerminalSocket(): TerminalSocket {
  return io("/terminal", { path: "/socket.io", transports: ["websocket"], forceNew: true });
}
