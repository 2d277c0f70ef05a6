// A stdio MCP server in the file sandbox (issue 18): bubblewrap with nothing
// but the server's own folder (read-write, at /workspace), the system and
// Rein's packages (read-only), no network unless the admin grants it, a clean
// environment, and its own process group. Closing kills the whole group; a
// pid file per server lets the next start kill what a killed Rein left behind.
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseJSONRPCMessage, serializeMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { jailNode, spawnInJail } from "@/server/compute";
import { BoundedLineReader, sniffId, type OversizedLine } from "./lines";
import { ANSWER_TOO_LARGE, MAX_MCP_MESSAGE_BYTES, checkContentItems, tooComplexMessage, tooLargeMessage } from "./limits";
import { parseMessage, type Parsed } from "./parse";

/** Rein's own packages, as a sandboxed server sees them: bundled servers start from here. */
export const MCP_PACKAGES_DIR = "/opt/rein/node_modules";
/** What a server may print on stderr that Rein keeps (its tail). */
export const STDERR_TAIL_CHARS = 8 * 1024;

export interface StdioLaunch {
  /** "node" or a program under /usr, then its arguments. */
  command: string;
  args: string[];
  /** The variables the server gets, and nothing else of Rein's environment. */
  env: Record<string, string>;
  /** The server's own folder on the host; it sees it at /workspace. */
  dir: string;
  network: boolean;
  /** Host folder of Rein's node_modules. */
  packages: string;
  /** Where the pid file goes (one per server), for cleaning up after a crash. */
  pidFile: string;
}

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | null = null;
  private readonly lines = new BoundedLineReader(
    MAX_MCP_MESSAGE_BYTES,
    (line) => this.enqueue(line),
    (line) => this.enqueue(line),
  );
  /** Lines read and not yet handled, in order: while one is parsed off the event loop, the server's output waits. */
  private readonly queue: (Buffer | OversizedLine)[] = [];
  private draining = false;
  /** Requests Rein sent and the server has not answered: an oversized answer to one of them fails just that call. */
  private readonly pending = new Set<string>();
  // `stderr` and `pid` are also how the SDK tells a stdio transport from HTTP: a stdio server silent on
  // `server/discover` is then taken for a 2025 one instead of a server that is down (docs/mcp.md#revisions).
  private stderr = "";
  private closed = false;

  constructor(private readonly launch: StdioLaunch) {}

  /** The protocol revision the handshake agreed on (the client tells every transport; the server page shows it). */
  protocolVersion?: string;

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** The last characters the server wrote to stderr. */
  get stderrTail(): string {
    return this.stderr;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("This transport is already started");
    const { launch } = this;
    fs.mkdirSync(launch.dir, { recursive: true, mode: 0o700 });
    const argv = [launch.command === "node" ? jailNode() : launch.command, ...launch.args];
    const child = spawnInJail(launch.dir, argv, {
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      readOnly: [{ host: launch.packages, at: MCP_PACKAGES_DIR }],
      network: launch.network,
    });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    if (child.pid) writePidFile(launch.pidFile, child.pid);
    child.on("error", (err) => this.onerror?.(err));
    child.on("close", (code, signal) => {
      removePidFile(launch.pidFile, child.pid);
      if (!this.closed) {
        const why = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
        this.onerror?.(new Error(`The server ${why}${this.stderr ? `: ${lastLine(this.stderr)}` : ""}`));
      }
      this.closed = true;
      this.onclose?.();
    });
    child.stdin!.on("error", (err) => this.onerror?.(err));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (!this.closed) this.lines.push(chunk);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
  }

  /** The bytes held for a line under way (never much more than the limit). */
  get bufferedBytes(): number {
    return this.lines.buffered;
  }

  private enqueue(line: Buffer | OversizedLine) {
    this.queue.push(line);
    if (!this.draining) void this.drain();
  }

  private async drain() {
    this.draining = true;
    try {
      for (let line = this.queue.shift(); line && !this.closed; line = this.queue.shift()) {
        if (!Buffer.isBuffer(line)) {
          this.refuse(line, tooLargeMessage(line.bytes));
          continue;
        }
        const parsing = parseMessage(line);
        // Parsed off the event loop: nothing more is read from the server until it is done.
        this.child?.stdout?.pause();
        this.read(line, await parsing);
      }
    } finally {
      this.draining = false;
      // Closed too: what is left must flow (and is dropped) for the process's end to be seen.
      this.child?.stdout?.resume();
    }
  }

  private read(line: Buffer, parsed: Parsed) {
    if (this.closed) return;
    if (!parsed.ok && parsed.tooComplex) {
      this.refuse(
        { bytes: line.length, head: line.subarray(0, 1024).toString("utf8"), tail: line.subarray(-1024).toString("utf8") },
        tooComplexMessage(parsed.message),
      );
      return;
    }
    let message: JSONRPCMessage;
    try {
      if (!parsed.ok) throw new Error(parsed.message);
      message = checkContentItems(parsed.value) ?? parseJSONRPCMessage(parsed.value);
    } catch (err) {
      // A line that is not JSON-RPC ends the connection: the server cannot be trusted to be in step.
      this.onerror?.(new Error(`The server sent something that is not an MCP message: ${(err as Error).message.slice(0, 300)}`));
      void this.close();
      return;
    }
    if ("id" in message && message.id !== undefined && !("method" in message)) this.pending.delete(idKey(message.id));
    this.onmessage?.(message);
  }

  /**
   * A line over the limits is not read. If it answers a request Rein is
   * waiting on, that call fails with a clear error and the connection goes
   * on; if nothing says what it was, the server is out of step: it is closed
   * (the next call starts it again).
   */
  private refuse(line: OversizedLine, why: string) {
    if (this.closed) return;
    const id = sniffId(line);
    if (id !== null && this.pending.delete(idKey(id))) {
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: ANSWER_TOO_LARGE, message: why } });
      return;
    }
    this.onerror?.(new Error(`The server sent a message that is too large and answers no request of Rein's: ${why}`));
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed) throw new Error("The server is not running");
    if ("method" in message && "id" in message && message.id !== undefined) this.pending.add(idKey(message.id));
    if ("method" in message && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") this.pending.delete(idKey(requestId));
    }
    await new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Kills the server's whole process group and waits for it to be gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.closed = true;
      return;
    }
    this.closed = true;
    const gone = new Promise<void>((resolve) => child.once("close", () => resolve()));
    killGroup(child.pid!);
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5_000))]);
  }
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

const idKey = (id: string | number) => `${typeof id}:${id}`;

const lastLine = (text: string) => text.trim().split("\n").pop()!.slice(0, 300);

/** The process's start time (clock ticks since boot), which tells a reused pid apart. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Records a server's process group leader, so a later start can stop it if Rein dies first. */
export function writePidFile(file: string, pid: number) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ pid, start: startTimeOf(pid) }));
}

function removePidFile(file: string, pid: number | undefined) {
  try {
    const recorded = JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number };
    if (recorded.pid === pid) fs.rmSync(file, { force: true });
  } catch {
    // none, or another launch's
  }
}

/**
 * Kills the process groups of servers a previous Rein started and did not
 * stop (it was killed): each pid file names a group leader and its start time,
 * so a pid the system has since given to another process is left alone.
 * Returns how many groups were killed.
 */
export function killLeftoverServers(pidDir: string): number {
  let killed = 0;
  let files: string[];
  try {
    files = fs.readdirSync(pidDir).filter((f) => f.endsWith(".pid"));
  } catch {
    return 0;
  }
  for (const f of files) {
    const file = path.join(pidDir, f);
    try {
      const { pid, start } = JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number; start: string | null };
      if (Number.isInteger(pid) && pid > 1 && start && startTimeOf(pid) === start) {
        killGroup(pid);
        killed++;
      }
    } catch {
      // unreadable: nothing to kill by it
    }
    fs.rmSync(file, { force: true });
  }
  return killed;
}
