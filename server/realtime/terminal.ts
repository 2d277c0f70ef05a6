// The "/terminal" namespace (docs/terminal-and-files.md#terminal-pods): watch a
// run's terminal live, take it over and hand it back. Authenticated like
// "/runs"; a socket sees only runs its person may see, and may attach to
// several. The messages are described in terminal-protocol.ts.
import { DomainError, socketFailure, socketRefusal } from "@/server/errors";
import type { Server, Socket } from "socket.io";
import { z } from "zod";
import type { Db } from "@/server/db";
import { actorInTeam, type Actor } from "@/server/identity";
import { event, getRun, type Kernel } from "@/server/kernel";
import type { PodPool } from "@/server/compute";
import type { ControlReply, EndedMessage } from "./terminal-protocol";
import { TerminalRun } from "./terminal-run";
import { savedControls, type SavedControl } from "./terminal-restore";

const RunRef = z.object({ runId: z.string().min(1).max(200) });
const Size = { cols: z.number().finite(), rows: z.number().finite() };
const AttachInput = RunRef.extend({ cols: Size.cols.optional(), rows: Size.rows.optional() });
const ResizeInput = RunRef.extend(Size);
const AckInput = RunRef.extend({ seq: z.number().int().min(0) });
/** One message of keystrokes (a paste included). */
const InputInput = RunRef.extend({
  data: z
    .string()
    .min(1)
    .max(64 * 1024),
});

/** Last screens of ended terminals kept for people who open the tab later. */
const ENDED_KEEP = 100;
const ENDED_MAX_CHARS = 32 * 1024 * 1024;
const GRACE_MS = 60_000;

/** Where the namespace finds runs' pods: this process's PodPool, or (a web process of several machines) the workers'. */
export type TerminalSource = Pick<PodPool, "onChange" | "get" | "stopping" | "unavailable" | "attach">;

export interface TerminalNamespaceDeps {
  db: Db;
  kernel: Kernel;
  terminals: TerminalSource;
  /** How long a controller who disconnected keeps control (default 60 s). */
  graceMs?: number;
  log?: { error(message: string, err?: unknown): void };
}

type Reply = (reply: ControlReply) => void;
const replyOf = (ack: unknown): Reply => (typeof ack === "function" ? (ack as Reply) : () => {});

export function attachTerminalNamespace(
  io: Server,
  guard: (socket: Socket, next: (err?: Error) => void) => void,
  deps: TerminalNamespaceDeps,
) {
  const log = deps.log ?? { error: (m: string, e?: unknown) => console.error(m, e) };
  const runs = new Map<string, TerminalRun>();
  const ended = new Map<string, EndedMessage>();
  let endedChars = 0;

  const remember = (message: EndedMessage) => {
    const old = ended.get(message.runId);
    if (old) endedChars -= old.data.length;
    ended.delete(message.runId);
    ended.set(message.runId, message);
    endedChars += message.data.length;
    for (const [runId, m] of ended) {
      if (ended.size <= ENDED_KEEP && endedChars <= ENDED_MAX_CHARS) break;
      ended.delete(runId);
      endedChars -= m.data.length;
    }
  };

  const runFor = (runId: string) => {
    let run = runs.get(runId);
    if (!run) {
      run = new TerminalRun(runId, {
        kernel: deps.kernel,
        log,
        graceMs: deps.graceMs ?? GRACE_MS,
        serverStopping: () => deps.terminals.stopping,
        remember,
        recall: (id) => ended.get(id) ?? null,
        settled: () => forget(created),
      });
      const created = run;
      runs.set(runId, run);
    }
    return run;
  };
  const forget = (run: TerminalRun) => {
    if (run.idle() && runs.get(run.runId) === run) runs.delete(run.runId);
  };

  // Every pod gets a headless terminal as soon as it is attached, so the
  // screen is there for whoever opens the tab later.
  deps.terminals.onChange((runId, pod) => {
    if (pod) {
      ended.delete(runId);
      runFor(runId).attachPod(pod);
    } else {
      const run = runs.get(runId);
      // Let the pod's own exit listeners (which carry the reason) run first.
      if (run?.podId) {
        const podId = run.podId;
        setImmediate(() => {
          run.podGone(podId);
          forget(run);
        });
      }
    }
  });

  // Who controlled which terminal when the last server stopped; attach waits for it.
  const restored = restoreControls(deps, runFor, log);

  const nsp = io.of("/terminal");
  nsp.use(guard);
  nsp.on("connection", (socket) => {
    // Read at each use: a role change replaces it (server/realtime/index.ts).
    const person = () => socket.data.actor as Actor;
    const attached = new Map<string, TerminalRun>();
    // How this person acts on each attached run: with their role in its team.
    const teamOf = new Map<string, string | null>();
    const actorOn = (runId: string) => actorInTeam(person(), teamOf.get(runId) ?? null);

    const withRun = <S extends z.ZodType<{ runId: string }>>(
      raw: unknown,
      schema: S,
      reply: Reply,
    ): { run: TerminalRun; input: z.infer<S> } | null => {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        reply(socketRefusal("INVALID_INPUT", "Invalid message for the terminal"));
        return null;
      }
      const run = attached.get(parsed.data.runId);
      if (!run) reply(socketRefusal("CONFLICT", `Attach to run ${parsed.data.runId} first`));
      return run ? { run, input: parsed.data } : null;
    };

    socket.on("attach", async (raw: unknown, ack?: unknown) => {
      const reply = typeof ack === "function" ? ack : () => {};
      const parsed = AttachInput.safeParse(raw);
      if (!parsed.success) return reply(socketRefusal("INVALID_INPUT", "attach needs {runId, cols?, rows?}"));
      const { runId, cols, rows } = parsed.data;
      let teamId: string | null;
      try {
        teamId = (await getRun(deps.db, runId, person())).teamId;
      } catch (err) {
        return reply(socketFailure(err));
      }
      await restored;
      if (!socket.connected) return;
      const run = runFor(runId);
      // A pod attached before this namespace existed (or missed): pick it up.
      const pod = deps.terminals.get(runId);
      if (pod && run.podId !== pod.id) run.attachPod(pod);
      attached.get(runId)?.removeViewer(socket.id);
      attached.set(runId, run);
      teamOf.set(runId, teamId);
      reply(run.addViewer(socket, actorOn(runId), { cols, rows }));
      run.greet(socket.id);
    });

    socket.on("detach", (raw: unknown) => {
      const parsed = RunRef.safeParse(raw);
      const run = parsed.success ? attached.get(parsed.data.runId) : undefined;
      if (!run) return;
      attached.delete(run.runId);
      teamOf.delete(run.runId);
      run.removeViewer(socket.id);
      forget(run);
    });

    socket.on("ack", (raw: unknown) => {
      const parsed = AckInput.safeParse(raw);
      if (parsed.success) attached.get(parsed.data.runId)?.ack(socket.id, parsed.data.seq);
    });

    socket.on("input", (raw: unknown, ack?: unknown) => {
      const reply = replyOf(ack);
      const found = withRun(raw, InputInput, reply);
      if (found) reply(found.run.input(actorOn(found.run.runId), found.input.data));
    });

    socket.on("resize", (raw: unknown) => {
      const parsed = ResizeInput.safeParse(raw);
      if (parsed.success) attached.get(parsed.data.runId)?.resize(actorOn(parsed.data.runId), parsed.data.cols, parsed.data.rows);
    });

    for (const action of ["takeover", "handback"] as const) {
      socket.on(action, async (raw: unknown, ack?: unknown) => {
        const reply = replyOf(ack);
        const found = withRun(raw, RunRef, reply);
        if (!found) return;
        try {
          const actor = actorOn(found.run.runId);
          reply(await (action === "takeover" ? found.run.takeover(actor) : found.run.handback(actor)));
        } catch (err) {
          log.error(`run ${found.run.runId}: ${action} failed`, err);
          reply(
            err instanceof DomainError
              ? socketFailure(err)
              : socketRefusal("INTERNAL_ERROR", `The ${action === "takeover" ? "take over" : "hand back"} failed; try again`),
          );
        }
      });
    }

    socket.on("disconnect", () => {
      attached.forEach((run) => {
        run.removeViewer(socket.id);
        forget(run);
      });
      attached.clear();
    });
  });
  return nsp;
}

async function restoreControls(
  deps: TerminalNamespaceDeps,
  runFor: (runId: string) => TerminalRun,
  log: { error(message: string, err?: unknown): void },
) {
  let saved: SavedControl[];
  try {
    saved = await savedControls({ db: deps.db, store: deps.kernel.store });
  } catch (err) {
    return log.error("could not read who controlled the terminals before the restart", err);
  }
  await Promise.all(
    saved.map(async (s) => {
      try {
        const run = runFor(s.runId);
        const { ready } = await run.restoreControl(s);
        // The pods went with the last server: the person gets a shell over the paused run's workspace
        // again. (A run still running gets its pod from the worker that recovers it.)
        if (ready && !run.podId && !deps.terminals.unavailable()) {
          const { pod, fromPool, startMs } = await deps.terminals.attach(s.runId, deps.kernel.deps.workspaceFor(s.runId).root);
          await deps.kernel.store.appendEvents(s.runId, [
            event("terminal.attached", { podId: pod.id, sandbox: pod.sandbox, fromPool, startMs: Math.round(startMs * 10) / 10 }),
          ]);
        }
      } catch (err) {
        log.error(`run ${s.runId}: could not give ${s.who.name} the terminal back after the restart`, err);
      }
    }),
  );
}
