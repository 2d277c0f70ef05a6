// socket.io: the live tail of the run event log (snapshot + cursor), text as
// it streams, and runs' live terminals ("/terminal", terminal.ts). Every
// namespace rejects anonymous sockets. The desktops' VNC websocket proxy is
// attached beside it (vnc/proxy.ts) and adds its messages to "/runs".
import { socketFailure, socketRefusal, type SocketFailure } from "@/server/errors";
import type { Server as HttpServer } from "node:http";
import { Server, type ServerOptions, type Socket } from "socket.io";
import { z } from "zod";
import type { Services } from "@/server/app";
import {
  authenticateRequest,
  loadActor,
  onRolesChanged,
  onSessionsEnded,
  sameOriginOrNone,
  usesBearer,
  type Actor,
} from "@/server/identity";
import { getRun, type RunEventRecord } from "@/server/kernel";
import { attachTerminalNamespace, type TerminalSource } from "./terminal";
export type { TerminalSource } from "./terminal";
import type { RequestBus } from "@/server/hitl";

export type * from "./terminal-protocol";
export type * from "./vnc/protocol";
export { VNC_CLOSE, VNC_PATH } from "./vnc/protocol";
export { attachVncProxy, type VncProxy, type VncProxyDeps } from "./vnc/proxy";
export type { DesktopSource, LocalDesktop, ProxiedDesktop, TunneledDesktop } from "./vnc/desktop-run";
export { connectVnc, type VncSession } from "./vnc/handshake";
export { TUNNEL_PROTOCOL, openVncTunnel, refuseTunnel, serveVncTunnel } from "./vnc/tunnel";

const SubscribeInput = z.object({ runId: z.string().min(1), after: z.number().int().min(0).default(0) });
const PAGE = 500;

/** The sockets' own options; the services come beside them (docs/architecture.md#composition-root). */
export interface RealtimeOptions {
  /** Terminal pods, for the terminal namespace (a web process of several machines: the workers' pods). */
  terminals?: TerminalSource;
  authSecret: string;
  /** Human-request changes, for the inbox and its badge. */
  requests?: RequestBus;
  /** Where people reach Rein: a browser's Origin must be this server or this URL. */
  publicUrl?: string;
  /** Several machines: sockets are shared between web processes through this adapter, over websockets only (no sticky sessions). */
  adapter?: ServerOptions["adapter"];
}

type Ack = (reply: { ok: true; cursor: number } | SocketFailure) => void;

async function authenticateSocket(services: Services, opts: RealtimeOptions, socket: Socket): Promise<Actor | null> {
  const token = typeof socket.handshake.auth?.token === "string" ? socket.handshake.auth.token : null;
  const headers = token ? { ...socket.request.headers, authorization: `Bearer ${token}` } : socket.request.headers;
  return authenticateRequest(services.db, { headers }, opts.authSecret);
}

export function attachRealtime(server: HttpServer, services: Services, opts: RealtimeOptions): Server {
  const { db, kernel } = services;
  // Other paths' upgrades (the VNC proxy) are authenticated before they are answered: engine.io must
  // not end them after its default second.
  const io = new Server(server, {
    path: "/socket.io",
    serveClient: false,
    maxHttpBufferSize: 1_000_000,
    destroyUpgradeTimeout: 30_000,
    ...(opts.adapter ? { adapter: opts.adapter, transports: ["websocket" as const] } : {}),
    // A page of another site would ride on the viewer's cookie: its handshake is refused before anything else.
    allowRequest: (req, done) => done(null, usesBearer(req) || sameOriginOrNone(req, opts.publicUrl)),
  });
  const authorize = async (socket: Socket, next: (err?: Error) => void) => {
    const actor = await authenticateSocket(services, opts, socket).catch(() => null);
    if (!actor) return next(new Error("UNAUTHORIZED: log in or pass an API token"));
    socket.data.actor = actor;
    next();
  };
  // socket.io ignores what a middleware returns; `authorize` cannot reject (its only await catches).
  const guard = (socket: Socket, next: (err?: Error) => void) => void authorize(socket, next);
  io.use(guard);
  // A person disabled, or whose password was reset, keeps no socket open: every namespace's are closed now.
  const offSessionsEnded = onSessionsEnded((userId) => {
    for (const nsp of io._nsps.values()) {
      for (const socket of nsp.sockets.values()) {
        if ((socket.data.actor as Actor | undefined)?.userId === userId) socket.disconnect(true);
      }
    }
  });
  server.once("close", offSessionsEnded);
  // A person whose roles changed is read again on every socket they have open: what they may take over follows at once.
  const offRolesChanged = onRolesChanged((userId) => {
    void loadActor(db, userId)
      .then((fresh) => {
        for (const nsp of io._nsps.values()) {
          for (const socket of nsp.sockets.values()) {
            const held = socket.data.actor as Actor | undefined;
            if (held?.userId !== userId) continue;
            // Removed from a team, or an admin no more: what they watch may no longer be theirs to see, so the
            // socket goes (a reload subscribes anew); see docs/security.md#authentication-roles-and-teams.
            const seesLess =
              fresh && fresh.role !== "admin" && (held.role === "admin" || held.teamIds.some((id) => !fresh.teamIds.includes(id)));
            if (!fresh || seesLess) socket.disconnect(true);
            else socket.data.actor = { ...fresh, via: held.via };
          }
        }
      })
      .catch((err) => console.error("reading a person again after a role change failed", err));
  });
  server.once("close", offRolesChanged);
  const runs = io.of("/runs");
  runs.use(guard);
  if (opts.terminals) attachTerminalNamespace(io, guard, { db, kernel, terminals: opts.terminals });

  runs.on("connection", (socket) => {
    // Read at each use: a role change replaces it (above).
    const current = () => socket.data.actor as Actor;
    const subscriptions = new Map<string, () => void>();

    socket.on("subscribe", async (raw: unknown, ack?: Ack) => {
      const reply: Ack = typeof ack === "function" ? ack : () => {};
      const parsed = SubscribeInput.safeParse(raw);
      if (!parsed.success) return reply(socketRefusal("INVALID_INPUT", "subscribe needs {runId, after}"));
      const { runId } = parsed.data;
      try {
        await getRun(db, runId, current());
      } catch (err) {
        return reply(socketFailure(err));
      }
      subscriptions.get(runId)?.();
      let cursor = parsed.data.after;
      let live = false;
      const buffered: RunEventRecord[] = [];
      const send = (events: RunEventRecord[]) => {
        const fresh = events.filter((e) => e.seq > cursor);
        if (fresh.length === 0) return;
        cursor = fresh[fresh.length - 1].seq;
        socket.emit("events", { runId, events: fresh });
      };
      // Listen first, then read the log: nothing written in between is lost.
      const offEvents = kernel.bus.onRun(runId, (events) => (live ? send(events) : buffered.push(...events)));
      const offDelta = kernel.bus.onTransient(runId, (m) => socket.emit(m.type === "model.delta" ? "delta" : "progress", m));
      subscriptions.set(runId, () => {
        offEvents();
        offDelta();
      });
      for (;;) {
        const page = await kernel.store.listEvents(runId, cursor, PAGE);
        send(page);
        if (page.length < PAGE) break;
      }
      live = true;
      send(buffered.sort((a, b) => a.seq - b.seq));
      reply({ ok: true, cursor });
    });

    socket.on("unsubscribe", (raw: unknown) => {
      const runId = (raw as { runId?: string })?.runId;
      if (runId) {
        subscriptions.get(runId)?.();
        subscriptions.delete(runId);
      }
    });

    // The runs list: a nudge whenever a run this person may see logs something.
    let offAny: (() => void) | null = null;
    const visible = new Map<string, boolean>();
    const canSee = async (runId: string) => {
      if (current().role === "admin") return true;
      let ok = visible.get(runId);
      if (ok === undefined) {
        ok = await getRun(db, runId, current()).then(
          () => true,
          () => false,
        );
        if (visible.size > 5000) visible.clear();
        visible.set(runId, ok);
      }
      return ok;
    };
    socket.on("watchRuns", () => {
      if (offAny) return;
      offAny = kernel.bus.onAny((runId, events) => {
        void canSee(runId).then((ok) => ok && socket.emit("runChanged", { runId, types: events.map((e) => e.type) }));
      });
    });

    // The inbox and its badge: a nudge when a request of a visible run changes.
    let offInbox: (() => void) | null = null;
    socket.on("watchInbox", () => {
      if (offInbox || !opts.requests) return;
      offInbox = opts.requests.on((change) => {
        void canSee(change.runId).then(
          (ok) => ok && socket.emit("inboxChanged", { requestId: change.requestId, runId: change.runId, state: change.state }),
        );
      });
    });

    socket.on("disconnect", () => {
      subscriptions.forEach((off) => off());
      subscriptions.clear();
      offAny?.();
      offInbox?.();
    });
  });
  return io;
}
export { PodStream, terminalScreens, type Screen } from "./terminal-stream";
export { WorkerScreens } from "./terminal-worker-client";
export { LocalScreens, RESET_NOTE, type ScreenChannel, type ScreenRequest } from "./terminal-screens";
export { TerminalRun, type TerminalRunDeps } from "./terminal-run";
