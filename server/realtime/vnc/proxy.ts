// The desktop's websocket proxy (docs/desktops-and-tiers.md#the-desktop-tab):
// `/vnc/<runId>` on the server's own port speaks RFB to noVNC and relays to the
// run's desktop on 127.0.0.1. Only people who may see the run get in (an
// Auth.js session or an API token, as every socket); upgrades to other paths
// are left to their owners (socket.io, Next's dev reloader). The desktop
// messages on "/runs" (status, take over, hand back) are in desktop-events.ts.
import http, { type Server as HttpServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Server as SocketServer } from "socket.io";
import { WebSocketServer, type WebSocket } from "ws";
import type { Db } from "@/server/db";
import { actorInTeam, authenticateRequest, onRolesChanged, onSessionsEnded, sameOriginOrNone, type Actor } from "@/server/identity";
import { getRun, type Kernel, type RunState } from "@/server/kernel";
import { MAX_CUT_TEXT } from "./client-messages";
import { attachDesktopEvents } from "./desktop-events";
import { DesktopRun, type DesktopSource } from "./desktop-run";
import { VNC_CLOSE, VNC_PATH } from "./protocol";
import { savedTakeovers } from "../saved-takeovers";

/** A program may pass its API token as this subprotocol prefix (`token.<token>`) or as `?token=`. */
const TOKEN_PROTOCOL = "token.";
const GRACE_MS = 60_000;

export interface VncProxyDeps {
  db: Db;
  kernel: Kernel;
  authSecret: string;
  /** socket.io, for the desktop messages on its "/runs" namespace (authenticated there). */
  io: SocketServer;
  /** The runs' desktops; absent until the desktop tier is wired, when every run has none. */
  desktops?: DesktopSource;
  /** Where people reach Rein: a browser's Origin must be this server. */
  publicUrl?: string;
  /** How long a controller who left keeps control (default 60 s). */
  graceMs?: number;
  log?: { error(message: string, err?: unknown): void };
}

export interface VncProxy {
  /** Closes every VNC connection (the server is stopping); who controls a desktop stays in the event log. */
  close(): void;
  /** The run's desktop state, made on first use. */
  runFor(runId: string): DesktopRun;
}

export function attachVncProxy(server: HttpServer, deps: VncProxyDeps): VncProxy {
  const log = deps.log ?? { error: (m: string, e?: unknown) => console.error(m, e) };
  let stopping = false;
  const runs = new Map<string, DesktopRun>();
  const runFor = (runId: string) => {
    let run = runs.get(runId);
    if (!run) {
      run = new DesktopRun(runId, {
        kernel: deps.kernel,
        desktops: deps.desktops,
        log,
        graceMs: deps.graceMs ?? GRACE_MS,
        serverStopping: () => stopping || !!deps.desktops?.stopping,
      });
      runs.set(runId, run);
    }
    return run;
  };
  const forget = (run: DesktopRun) => {
    if (!run.idle() || runs.get(run.runId) !== run) return;
    run.dispose();
    runs.delete(run.runId);
  };
  const look = (runId: string) => {
    const run = runs.get(runId);
    // After the desktop's own exit listeners, which carry the reason.
    if (run) setImmediate(() => run.refresh());
  };
  deps.desktops?.onReleased(look);
  deps.desktops?.onAttached?.(look);

  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_CUT_TEXT + 1024,
    // noVNC asks for "binary"; a token subprotocol is never echoed back.
    handleProtocols: (protocols) =>
      protocols.has("binary") ? "binary" : ([...protocols].find((p) => !p.startsWith(TOKEN_PROTOCOL)) ?? false),
  });

  // Whose each connection is: a person disabled, or whose password was reset, loses theirs at once.
  const viewers = new Map<WebSocket, string>();
  const offSessionsEnded = onSessionsEnded((userId) => {
    for (const [ws, owner] of viewers) if (owner === userId) ws.close(VNC_CLOSE.sessionEnded, "Your session has ended; log in again");
  });
  // A connection is admitted with the role its person had then: when their roles change, it closes and a reconnect is judged anew.
  const offRolesChanged = onRolesChanged((userId) => {
    for (const [ws, owner] of viewers)
      if (owner === userId) ws.close(VNC_CLOSE.rolesChanged, "Your role changed; reconnect to go on with your new role");
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const match = new RegExp(`^${VNC_PATH}/([^/]+)$`).exec(url.pathname);
    if (!match) return;
    socket.on("error", () => {});
    let runId: string;
    try {
      runId = decodeURIComponent(match[1]);
    } catch {
      return refuse(socket, 400, "The run id in the path has malformed percent-encoding");
    }
    void admit(req, url, runId).then(
      (admitted) => {
        if ("refuse" in admitted) return refuse(socket, admitted.refuse, admitted.message);
        if (stopping) return refuse(socket, 503, "The server is stopping");
        wss.handleUpgrade(req, socket, head, (ws) => {
          const run = runFor(admitted.runId);
          viewers.set(ws, admitted.actor.userId);
          run.connect(ws, admitted.actor, admitted.status);
          ws.once("close", () => {
            viewers.delete(ws);
            forget(run);
          });
        });
      },
      (err) => {
        log.error("VNC upgrade failed", err);
        refuse(socket, 500, "Internal error");
      },
    );
  };
  server.on("upgrade", onUpgrade);

  /** Who is asking, and whether they may see this run. */
  async function admit(
    req: IncomingMessage,
    url: URL,
    runId: string,
  ): Promise<{ actor: Actor; runId: string; status: RunState } | { refuse: number; message: string }> {
    const actor = await authenticateRequest(deps.db, { headers: withToken(req, url) }, deps.authSecret);
    if (!actor) return { refuse: 401, message: "Log in or pass an API token" };
    if (actor.via === "session" && !sameOriginOrNone(req, deps.publicUrl))
      return { refuse: 403, message: "This page is not Rein's: the connection's origin does not match" };
    try {
      const run = await getRun(deps.db, runId, actor);
      return { actor: actorInTeam(actor, run.teamId), runId: run.id, status: run.status };
    } catch {
      return { refuse: 404, message: `Run ${runId} was not found` };
    }
  }

  attachDesktopEvents(deps.io.of("/runs"), { db: deps.db, runFor, forget, log });
  const restored = restoreControls(deps, runFor, log);

  return {
    runFor,
    close() {
      stopping = true;
      server.off("upgrade", onUpgrade);
      offSessionsEnded();
      offRolesChanged();
      void restored.finally(() => {
        for (const client of wss.clients) client.close(VNC_CLOSE.serverStopping, "The server is stopping; reconnect when it is back");
        for (const run of runs.values()) run.dispose();
      });
    },
  };
}

/** The token of `?token=` or a `token.<token>` subprotocol, as a bearer header for authenticateRequest. */
function withToken(req: IncomingMessage, url: URL): IncomingMessage["headers"] {
  if (req.headers.authorization) return req.headers;
  const fromProtocol = (req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim())
    .find((p) => p.startsWith(TOKEN_PROTOCOL))
    ?.slice(TOKEN_PROTOCOL.length);
  const token = url.searchParams.get("token") ?? fromProtocol;
  return token ? { ...req.headers, authorization: `Bearer ${token}` } : req.headers;
}

function refuse(socket: Duplex, status: number, message: string) {
  if (!socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function restoreControls(
  deps: VncProxyDeps,
  runFor: (runId: string) => DesktopRun,
  log: { error(message: string, err?: unknown): void },
) {
  try {
    const saved = await savedTakeovers({ db: deps.db, store: deps.kernel.store }, "desktop.control");
    await Promise.all(
      saved.map((s) =>
        runFor(s.runId)
          .restoreControl(s.who)
          .catch((err) => log.error(`run ${s.runId}: could not give ${s.who.name} the desktop back after the restart`, err)),
      ),
    );
  } catch (err) {
    log.error("could not read who controlled the desktops before the restart", err);
  }
}
