// The device's file service (docs/devices.md#files): Rein's own file-service
// program (server/compute/files/program.ts, the one its pods run) as a child
// process whose root is the owner's folder. It refuses every path outside
// that folder, symlinks included, whatever Rein asks; this side only picks
// the operations a device serves and bounds what they may return.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
// The very program Rein's pods run, taken from the server's source when the agent is built (build.ts).
import { FILE_SERVICE_PROGRAM } from "rein:file-service-program";
import { DEVICE_FILE_OPS, DEVICE_MAX_FILE_BYTES, type DeviceFailure, type DeviceFileOp } from "../../../lib/device-protocol";

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_TREE_ENTRIES = 5_000;

export class FileRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: FileRefusal): void;
  timer: NodeJS.Timeout;
}

export class DeviceFiles {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(readonly folder: string) {}

  private start(): ChildProcess {
    const child = spawn(process.execPath, ["--max-old-space-size=192", "-e", FILE_SERVICE_PROGRAM], {
      cwd: this.folder,
      // Nothing of the agent's own environment (its token is not there, but keep it that way).
      env: { REIN_FS_ROOT: this.folder, PATH: process.env.PATH ?? "/usr/bin:/bin" } as Record<string, string> as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child = child;
    child.stdin!.on("error", () => {});
    readline.createInterface({ input: child.stdout!, crlfDelay: Infinity }).on("line", (line) => this.onLine(line));
    const gone = () => {
      if (this.child !== child) return;
      this.child = null;
      for (const [, p] of this.pending) {
        clearTimeout(p.timer);
        p.reject(new FileRefusal("FILE_SERVICE_EXITED", "The device's file service stopped; try again"));
      }
      this.pending.clear();
    };
    child.on("exit", gone);
    child.on("error", gone);
    return child;
  }

  private onLine(line: string) {
    let msg: { id: number; result?: unknown; error?: DeviceFailure };
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new FileRefusal(msg.error.code, msg.error.message));
    else p.resolve(msg.result);
  }

  private ask(op: string, params: Record<string, unknown>): Promise<unknown> {
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new FileRefusal("TIMEOUT", "The device's file service did not answer within 30 s"));
        this.stop();
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin!.write(`${JSON.stringify({ ...params, id, op })}\n`);
    });
  }

  /** One operation of the file-service contract, bounded for a device. */
  async request(op: unknown, params: unknown): Promise<unknown> {
    if (typeof op !== "string" || !(DEVICE_FILE_OPS as readonly string[]).includes(op))
      throw new FileRefusal("UNKNOWN_OP", `A device serves only these file operations: ${DEVICE_FILE_OPS.join(", ")}`);
    if (!params || typeof params !== "object" || Array.isArray(params))
      throw new FileRefusal("BAD_REQUEST", "The file operation's parameters must be an object");
    const q: Record<string, unknown> = { ...(params as Record<string, unknown>) };
    switch (op as DeviceFileOp) {
      case "stat":
        // Followed, so the path is resolved by the program's checks, never lstat'ed through a link.
        delete q.follow;
        break;
      case "read":
      case "readLines":
        q.maxBytes = bounded(q.maxBytes, DEVICE_MAX_FILE_BYTES);
        if (op === "readLines" && typeof q.start !== "number") q.start = 1;
        break;
      case "tree":
      case "walk":
        q.limit = bounded(q.limit, MAX_TREE_ENTRIES);
        break;
      case "remove": {
        // The program removes by the lexical path; the folder it is in is resolved first, and refused outside the root.
        if (typeof q.path !== "string") throw new FileRefusal("BAD_PATH", "remove needs a path");
        await this.ask("stat", { path: path.posix.dirname(q.path) });
        break;
      }
      default:
        break;
    }
    return this.ask(op, q);
  }

  stop(): void {
    this.child?.kill("SIGKILL");
  }
}

const bounded = (value: unknown, max: number) => (typeof value === "number" && value >= 0 && value < max ? Math.floor(value) : max);
