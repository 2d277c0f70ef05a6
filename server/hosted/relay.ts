// The shell relay (docs/hosted-agents.md#commands-in-the-terminal-tab): some
// agents run their commands themselves with `bash -c` instead of asking for
// an ACP terminal (Qwen Code does). For them Rein puts a `bash` of its own
// first on the program's PATH: given `-c SCRIPT`, it hands the script to Rein
// over a unix socket, and Rein runs it at the run's pod's prompt as it runs an
// ACP terminal's command, so it is decided by the policy and seen in the
// Terminal tab. Anything else it hands to the real bash. The relay is how
// Rein shows and decides an agent's commands, not its boundary: the program
// can still start a process of its own inside its sandbox.
import fs from "node:fs";
import net from "node:net";

/** Where the relay's `bash` and socket are inside the sandbox. */
export const RELAY_BIN = "/opt/rein-shell";
export const RELAY_SOCKET_AT = "/run/rein-shell/shell.sock";

/** The largest request (a script and its folder) and answer (the command's output) on the socket. */
export const MAX_RELAY_BYTES = 2 * 1024 * 1024;
/** Commands relayed at once; the pod runs them one after another anyway. */
const MAX_CONNECTIONS = 16;
/** How long a connection may take to send its request. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface RelayedCommand {
  /** What bash was given after its name: `-c SCRIPT`. */
  args: string[];
  /** The folder it was started in, inside the sandbox. */
  cwd: string;
}

export type RelayAnswer = { exitCode: number; output: string } | { error: string };

/**
 * The relay's `bash`, run by Rein's Node inside the sandbox. `-c SCRIPT` (and
 * nothing else) goes to Rein: its output comes back on stdout when it ends,
 * with its exit code; a signal to it (the agent canceling) closes the socket,
 * and Rein interrupts the command. Any other use runs the real bash.
 */
export function relayShim(node: string): string {
  return `#!${node}
"use strict";
const net = require("net");
const { spawnSync } = require("child_process");
const args = process.argv.slice(2);
if (args.length !== 2 || args[0] !== "-c") {
  const r = spawnSync("/bin/bash", args, { stdio: "inherit" });
  process.exit(r.status === null ? 128 : r.status);
}
const socket = net.connect(${JSON.stringify(RELAY_SOCKET_AT)});
const chunks = [];
let size = 0;
socket.on("data", (c) => {
  size += c.length;
  if (size > ${MAX_RELAY_BYTES} + 4096) { process.stderr.write("rein: the answer is too large\\n"); process.exit(70); }
  chunks.push(c);
});
socket.on("error", (e) => { process.stderr.write("rein: cannot reach Rein's terminal: " + e.message + "\\n"); process.exit(70); });
socket.on("end", () => {
  let answer;
  try { answer = JSON.parse(Buffer.concat(chunks).toString("utf8")); } catch { answer = { error: "no answer from Rein" }; }
  if (typeof answer.error === "string") { process.stderr.write("rein: " + answer.error + "\\n"); process.exit(126); }
  process.stdout.write(String(answer.output), () => process.exit(Number(answer.exitCode) || 0));
});
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => { socket.destroy(); process.exit(130); });
// Its side stays open while it waits: Rein reads its end as the agent no longer waiting, and interrupts the command.
socket.write(JSON.stringify({ args, cwd: process.cwd() }) + "\\n");
`;
}

/** Writes the relay's `bash` into a folder of Rein's, to be bound read-only at RELAY_BIN. */
export function writeRelayShim(dir: string, node: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.writeFileSync(`${dir}/bash`, relayShim(node), { mode: 0o755 });
  fs.chmodSync(`${dir}/bash`, 0o755);
}

/** A request as it came, checked: two strings, `-c` and a script, and a folder. */
export function parseRelayed(text: string): RelayedCommand {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error("The request is not JSON");
  }
  const { args, cwd } = (value ?? {}) as { args?: unknown; cwd?: unknown };
  if (!Array.isArray(args) || args.length !== 2 || args[0] !== "-c" || typeof args[1] !== "string")
    throw new Error("Rein relays only `bash -c SCRIPT`");
  if (typeof cwd !== "string" || !cwd.startsWith("/")) throw new Error("The command's folder must be an absolute path");
  return { args: args as string[], cwd };
}

/**
 * Serves the relay on a unix socket only this user may open: one request per
 * connection (its first line, or all it sends before it ends its side), read
 * up to MAX_RELAY_BYTES, then one answer. A connection that ends or closes
 * after its line and before the answer aborts its command.
 */
export async function listenRelay(
  socketPath: string,
  run: (command: RelayedCommand, signal: AbortSignal) => Promise<{ exitCode: number; output: string }>,
): Promise<{ close(): Promise<void> }> {
  const existing = await fs.promises.lstat(socketPath).catch(() => null);
  if (existing?.isSocket()) await fs.promises.rm(socketPath);
  const connections = new Set<net.Socket>();
  // Half open: the request ends the client's side, and the answer still goes back on the same connection.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    const gone = new AbortController();
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const answer = (a: RelayAnswer) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      let body = JSON.stringify(a);
      if (Buffer.byteLength(body) > MAX_RELAY_BYTES) body = JSON.stringify({ error: "The command's output is too large to relay" });
      socket.end(body);
    };
    const timer = setTimeout(() => answer({ error: "The request did not arrive in time" }), REQUEST_TIMEOUT_MS);
    // The request as it came; once it is whole, the client's end means it stopped waiting (a unix socket's
    // peer that closes is seen only as an end).
    let whole = false;
    const start = (text: string) => {
      whole = true;
      clearTimeout(timer);
      let command: RelayedCommand;
      try {
        command = parseRelayed(text);
      } catch (err) {
        answer({ error: (err as Error).message });
        return;
      }
      run(command, gone.signal).then(
        (r) => answer({ exitCode: r.exitCode, output: r.output }),
        (err: unknown) => answer({ error: err instanceof Error ? err.message : String(err) }),
      );
    };
    const stopped = () => {
      if (!answered) gone.abort(new Error("the agent stopped waiting for its command"));
    };
    socket.on("data", (c: Buffer) => {
      if (whole || answered) return;
      size += c.length;
      if (size > MAX_RELAY_BYTES) {
        answer({ error: `A relayed command may be ${MAX_RELAY_BYTES} bytes at most` });
        socket.destroy();
        return;
      }
      chunks.push(c);
      const newline = c.indexOf(0x0a);
      if (newline >= 0)
        start(
          Buffer.concat(chunks)
            .subarray(0, size - c.length + newline)
            .toString("utf8"),
        );
    });
    socket.on("end", () => {
      if (answered) return;
      if (whole) stopped();
      else start(Buffer.concat(chunks).toString("utf8"));
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      connections.delete(socket);
      clearTimeout(timer);
      stopped();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  await fs.promises.chmod(socketPath, 0o600);
  return {
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of connections) s.destroy();
      });
      await fs.promises.rm(socketPath, { force: true });
    },
  };
}
