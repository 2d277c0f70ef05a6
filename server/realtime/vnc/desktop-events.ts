// The Desktop tab's messages on the "/runs" namespace (authenticated there):
// watch a run's desktop (its status now and whenever it changes), take it
// over and hand it back. The pixels travel on the VNC websocket (proxy.ts).
import { socketFailure, socketRefusal, type SocketFailure } from "@/server/errors";
import type { Namespace, Socket } from "socket.io";
import { z } from "zod";
import type { Db } from "@/server/db";
import { actorInTeam, roleAtLeast, type Actor } from "@/server/identity";
import { getRun } from "@/server/kernel";
import type { ControlReply } from "../run-takeover";
import type { DesktopRun } from "./desktop-run";
import type { DesktopWatchReply } from "./protocol";

const RunRef = z.object({ runId: z.string().min(1).max(200) });

export interface DesktopEventsDeps {
  db: Db;
  runFor(runId: string): DesktopRun;
  forget(run: DesktopRun): void;
  log: { error(message: string, err?: unknown): void };
}

type Reply<T> = (reply: T) => void;
const replyOf = <T>(ack: unknown): Reply<T> => (typeof ack === "function" ? (ack as Reply<T>) : () => {});

export function attachDesktopEvents(runs: Namespace, deps: DesktopEventsDeps) {
  runs.on("connection", (socket: Socket) => {
    // Sockets reach here only through the namespace's authentication; without it, nothing is answered.
    if (!socket.data.actor) return;
    // Read at each use: a role change replaces it (server/realtime/index.ts).
    const person = () => socket.data.actor as Actor;
    const watched = new Map<string, DesktopRun>();

    /** The run, when this person may see it. */
    const visible = async (raw: unknown): Promise<{ runId: string; actor: Actor } | SocketFailure> => {
      const parsed = RunRef.safeParse(raw);
      if (!parsed.success) return socketRefusal("INVALID_INPUT", "Send {runId}");
      try {
        const run = await getRun(deps.db, parsed.data.runId, person());
        // The person acts on this run with their role in its team.
        return { runId: run.id, actor: actorInTeam(person(), run.teamId) };
      } catch (err) {
        return socketFailure(err);
      }
    };

    socket.on("watchDesktop", async (raw: unknown, ack?: unknown) => {
      const reply = replyOf<DesktopWatchReply>(ack);
      const found = await visible(raw);
      if ("error" in found) return reply(found);
      if (!socket.connected) return;
      watched.get(found.runId)?.unwatch(socket.id);
      const run = deps.runFor(found.runId);
      watched.set(found.runId, run);
      reply({ ok: true, canControl: roleAtLeast(found.actor.role, "operator"), ...run.watch(socket, found.actor) });
    });

    socket.on("unwatchDesktop", (raw: unknown) => {
      const parsed = RunRef.safeParse(raw);
      const run = parsed.success ? watched.get(parsed.data.runId) : undefined;
      if (!run) return;
      watched.delete(run.runId);
      run.unwatch(socket.id);
      deps.forget(run);
    });

    for (const [name, act] of [
      ["desktopTakeover", (run: DesktopRun, actor: Actor) => run.takeOver(actor)],
      ["desktopHandback", (run: DesktopRun, actor: Actor) => run.handBack(actor)],
    ] as const) {
      socket.on(name, async (raw: unknown, ack?: unknown) => {
        const reply = replyOf<ControlReply>(ack);
        const found = await visible(raw);
        if ("error" in found) return reply(found);
        const run = deps.runFor(found.runId);
        try {
          reply(await act(run, found.actor));
        } catch (err) {
          deps.log.error(`run ${found.runId}: ${name} failed`, err);
          reply(socketFailure(err));
        }
        deps.forget(run);
      });
    }

    socket.on("disconnect", () => {
      watched.forEach((run) => {
        run.unwatch(socket.id);
        deps.forget(run);
      });
      watched.clear();
    });
  });
}
