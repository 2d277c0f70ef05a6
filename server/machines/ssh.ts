// SSH to a registered machine (docs/desktops-and-tiers.md#t3-remote-machines),
// with the ssh2 library (no `ssh` program): every connection is bounded in
// time, refuses any host key but the pinned one, and offers exec with streamed
// output and an exit code, a PTY shell and an SFTP handle. Failures become
// MachineConnectError with words a person can act on.
import type { Writable } from "node:stream";
import ssh2, { type ClientChannel, type SFTPWrapper } from "ssh2";
import { addressOf } from "@/lib/machines";
import { fingerprintOf, sameFingerprint } from "./keys";

export const READY_TIMEOUT_MS = 10_000;
const KEEPALIVE_MS = 15_000;
/** How long the machine may take to open an SFTP session. */
const SFTP_OPEN_TIMEOUT_MS = 30_000;
/** How long the machine may take to open a shell's channel. */
const SHELL_OPEN_TIMEOUT_MS = 30_000;
const KEEPALIVE_MAX = 3;
/** What exec keeps of each stream by default; onData still sees everything. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export interface MachineTarget {
  /** Shown in the words of errors. */
  name: string;
  host: string;
  port: number;
  user: string;
}

export type ConnectProblem =
  "refused" | "timeout" | "unknown-host" | "unreachable" | "reset" | "key-refused" | "host-key-changed" | "protocol";

export class MachineConnectError extends Error {
  constructor(
    readonly problem: ConnectProblem,
    message: string,
  ) {
    super(message);
    this.name = "MachineConnectError";
  }
}

/** The words for a machine whose host key is not the pinned one. */
export const hostKeyChanged = (expected: string, got: string) =>
  `The machine's host key changed: expected ${expected}, got ${got}; if the machine was reinstalled, an admin confirms the new key on its page`;

function problemOf(err: Error & { code?: string; level?: string }, target: MachineTarget, timeoutMs: number): MachineConnectError {
  const where = addressOf(target);
  const say = (p: ConnectProblem, words: string) => new MachineConnectError(p, words);
  if (err.level === "client-authentication")
    return say("key-refused", `The machine refused Rein's key: add this public key to ~${target.user}/.ssh/authorized_keys`);
  if (err.level === "client-timeout" || err.code === "ETIMEDOUT")
    return say("timeout", `Could not connect: no answer from ${where} within ${Math.round(timeoutMs / 1000)} s`);
  switch (err.code) {
    case "ECONNREFUSED":
      return say("refused", "Could not connect: connection refused");
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return say("unknown-host", `Could not connect: the name ${target.host} is not known`);
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return say("unreachable", `Could not connect: no route to ${target.host}`);
    case "ECONNRESET":
    case "EPIPE":
      return say("reset", "Could not connect: the connection was reset");
    default:
      break;
  }
  // What the peer said is not repeated: it may be anything, of any length.
  return say("protocol", `Could not connect: ${where} did not complete an SSH handshake`);
}

interface Handshake {
  client: ssh2.Client;
  hostKey: Buffer;
  fingerprint: string;
  connectMs: number;
}

/**
 * One SSH connection. `pinned` null: only learn the host key (the handshake
 * stops there, before any login); else refuse every other key and log in.
 */
function handshake(
  target: MachineTarget,
  opts: { pinned: string | null; privateKey?: string; timeoutMs: number; signal?: AbortSignal },
): Promise<Handshake> {
  const started = Date.now();
  const client = new ssh2.Client();
  let hostKey: Buffer | null = null;
  return new Promise<Handshake>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      if (err) {
        client.removeAllListeners("ready");
        client.end();
        client.destroy();
        return reject(err);
      }
      resolve({ client, hostKey: hostKey!, fingerprint: fingerprintOf(hostKey!), connectMs: Date.now() - started });
    };
    const onAbort = () => finish(new MachineConnectError("timeout", "Could not connect: stopped"));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    client.on("ready", () => finish(null));
    client.on("error", (err) => {
      if (hostKey && opts.pinned === null) return finish(null);
      if (hostKey && opts.pinned && !sameFingerprint(fingerprintOf(hostKey), opts.pinned))
        return finish(new MachineConnectError("host-key-changed", hostKeyChanged(opts.pinned, fingerprintOf(hostKey))));
      finish(problemOf(err, target, opts.timeoutMs));
    });
    client.on("close", () => {
      if (hostKey && opts.pinned === null) return finish(null);
      finish(new MachineConnectError("reset", "Could not connect: the connection was closed"));
    });
    try {
      client.connect({
        host: target.host,
        port: target.port,
        username: target.user,
        privateKey: opts.privateKey,
        readyTimeout: opts.timeoutMs,
        keepaliveInterval: KEEPALIVE_MS,
        keepaliveCountMax: KEEPALIVE_MAX,
        // No password, keyboard-interactive or agent: Rein's key or nothing.
        tryKeyboard: false,
        hostVerifier: (key: Buffer) => {
          hostKey = Buffer.from(key);
          if (opts.pinned === null) return false;
          return sameFingerprint(fingerprintOf(hostKey), opts.pinned);
        },
      });
    } catch (err) {
      finish(
        new MachineConnectError("protocol", `Could not connect: ${err instanceof Error ? err.message.slice(0, 200) : "bad settings"}`),
      );
    }
  });
}

export interface PresentedHostKey {
  /** SHA256:…, as ssh-keygen -lf prints it. */
  fingerprint: string;
  /** The key's wire form, base64: what is pinned. */
  hostKey: string;
}

/** First contact: the host key the machine presents now, without logging in. */
export async function fetchHostKey(
  target: MachineTarget,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<PresentedHostKey> {
  const hs = await handshake(target, { pinned: null, timeoutMs: opts.timeoutMs ?? READY_TIMEOUT_MS, signal: opts.signal });
  hs.client.destroy();
  return { fingerprint: hs.fingerprint, hostKey: hs.hostKey.toString("base64") };
}

export interface ExecOptions {
  signal?: AbortSignal;
  /** Every chunk as it arrives, stdout and stderr apart. */
  onData?: (chunk: Buffer, stream: "stdout" | "stderr") => void;
  /** What is kept of each stream in the result (default 1 MiB); the rest is dropped and `truncated` says so. */
  maxOutputBytes?: number;
}

export interface ExecResult {
  /** null when the command ended by a signal or the channel closed without a status. */
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  term?: string;
  /** Run this command at the PTY instead of the user's login shell. */
  command?: string;
  /** How long the machine may take to open the shell's channel; default 30 s. */
  timeoutMs?: number;
}

/** A command's output as a stream (MachineConnection.execStream). */
export interface MachineExecStream {
  /** The command's stdin: end() sends end of file. */
  stdin: Writable;
  stdout: AsyncIterable<Buffer>;
  done: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  close(): void;
}

/** A PTY on the machine. */
export interface MachineShell {
  write(data: string | Buffer): void;
  resize(cols: number, rows: number): void;
  onData(listener: (chunk: Buffer) => void): void;
  /** Resolves when the shell ends. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  close(): void;
}

class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  add(chunk: Buffer) {
    const room = this.max - this.size;
    if (room <= 0) return void (this.truncated = true);
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text() {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

const clampDim = (n: number, max: number) => Math.max(1, Math.min(max, Math.floor(Number.isFinite(n) ? n : 1)));

/** A logged-in connection to a machine whose host key is the pinned one. */
export class MachineConnection {
  private closed = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly client: ssh2.Client,
    readonly target: MachineTarget,
    /** The host key fingerprint the machine presented (the pinned one). */
    readonly fingerprint: string,
    /** How long connecting and logging in took. */
    readonly connectMs: number,
  ) {
    client.on("close", () => {
      this.closed = true;
      for (const l of this.closeListeners.splice(0)) l();
    });
    // Errors after login (a dropped connection) end it; 'close' follows.
    client.on("error", () => undefined);
  }

  get isClosed() {
    return this.closed;
  }

  onClose(listener: () => void) {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  /** Runs a command through the user's shell on the machine; resolves with its exit code and output. */
  exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const max = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    return new Promise<ExecResult>((resolve, reject) => {
      if (opts.signal?.aborted) return reject(abortError());
      if (this.closed) return reject(new MachineConnectError("reset", "The connection to the machine is closed"));
      // The signal bounds the wait for the machine to open the command's channel too.
      let gaveUp = false;
      const onEarlyAbort = () => {
        gaveUp = true;
        reject(abortError());
      };
      opts.signal?.addEventListener("abort", onEarlyAbort, { once: true });
      this.client.exec(command, (err, stream) => {
        opts.signal?.removeEventListener("abort", onEarlyAbort);
        if (gaveUp) return void (err ? undefined : stream.close());
        if (err) return reject(new MachineConnectError("protocol", `The machine did not run the command: ${err.message.slice(0, 200)}`));
        const out = new Capture(max);
        const errOut = new Capture(max);
        let code: number | null = null;
        let signal: string | null = null;
        const onAbort = () => {
          try {
            stream.signal("KILL");
          } catch {
            /* not every server takes signals; closing the channel ends it */
          }
          stream.close();
        };
        opts.signal?.addEventListener("abort", onAbort, { once: true });
        stream.on("data", (chunk: Buffer) => {
          out.add(chunk);
          opts.onData?.(chunk, "stdout");
        });
        stream.stderr.on("data", (chunk: Buffer) => {
          errOut.add(chunk);
          opts.onData?.(chunk, "stderr");
        });
        stream.on("exit", (c: number | null, s?: string) => {
          code = typeof c === "number" ? c : null;
          signal = typeof s === "string" ? s.slice(0, 32) : null;
        });
        stream.on("close", () => {
          opts.signal?.removeEventListener("abort", onAbort);
          if (opts.signal?.aborted) return reject(abortError());
          resolve({ code, signal, stdout: out.text(), stderr: errOut.text(), truncated: out.truncated || errOut.truncated });
        });
      });
    });
  }

  /**
   * Runs a command whose stdout is read as a stream, paced by the SSH
   * channel's window (nothing piles up here when the reader is slow); stderr
   * is kept up to `maxOutputBytes`. `close()` kills the command and closes the
   * channel; `done` resolves when the channel closed.
   */
  execStream(command: string, opts: { maxOutputBytes?: number } = {}): Promise<MachineExecStream> {
    return new Promise<MachineExecStream>((resolve, reject) => {
      if (this.closed) return reject(new MachineConnectError("reset", "The connection to the machine is closed"));
      this.client.exec(command, (err, stream) => {
        if (err) return reject(new MachineConnectError("protocol", `The machine did not run the command: ${err.message.slice(0, 200)}`));
        const errOut = new Capture(opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
        let code: number | null = null;
        let signal: string | null = null;
        stream.stderr.on("data", (chunk: Buffer) => errOut.add(chunk));
        stream.on("error", () => undefined);
        stream.on("exit", (c: number | null, s?: string) => {
          code = typeof c === "number" ? c : null;
          signal = typeof s === "string" ? s.slice(0, 32) : null;
        });
        const done = new Promise<{ code: number | null; signal: string | null; stderr: string }>((settle) =>
          stream.on("close", () => settle({ code, signal, stderr: errOut.text() })),
        );
        resolve({
          stdin: stream,
          stdout: stream as AsyncIterable<Buffer>,
          done,
          close: () => {
            try {
              stream.signal("KILL");
            } catch {
              /* not every server takes signals; closing the channel ends it */
            }
            stream.close();
          },
        });
      });
    });
  }

  /** A PTY running the user's login shell, or `command`. */
  shell(opts: ShellOptions): Promise<MachineShell> {
    const cols = clampDim(opts.cols, 1000);
    const rows = clampDim(opts.rows, 1000);
    const term = /^[A-Za-z0-9._-]{1,32}$/.test(opts.term ?? "") ? opts.term! : "xterm-256color";
    const timeoutMs = opts.timeoutMs ?? SHELL_OPEN_TIMEOUT_MS;
    return new Promise<MachineShell>((resolve, reject) => {
      if (this.closed) return reject(new MachineConnectError("reset", "The connection to the machine is closed"));
      // A machine that answers its keepalives and never opens the channel does not hold the pod's start for good.
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(new MachineConnectError("timeout", `The machine did not open a shell within ${Math.round(timeoutMs / 100) / 10} s`));
      }, timeoutMs);
      const opened = (err: Error | undefined, stream: ClientChannel) => {
        clearTimeout(timer);
        if (gaveUp) return void (err ? undefined : stream.close());
        if (err) return reject(new MachineConnectError("protocol", `The machine did not open a shell: ${err.message.slice(0, 200)}`));
        let status: { code: number | null; signal: string | null } = { code: null, signal: null };
        const exited = new Promise<{ code: number | null; signal: string | null }>((done) => {
          stream.on("exit", (c: number | null, s?: string) => {
            status = { code: typeof c === "number" ? c : null, signal: typeof s === "string" ? s.slice(0, 32) : null };
          });
          stream.on("close", () => done(status));
        });
        resolve({
          write: (data) => void stream.write(data),
          resize: (c, r) => stream.setWindow(clampDim(r, 1000), clampDim(c, 1000), 0, 0),
          onData: (listener) => {
            stream.on("data", listener);
            stream.stderr.on("data", listener);
          },
          exited,
          close: () => stream.close(),
        });
      };
      if (opts.command !== undefined) this.client.exec(opts.command, { pty: { term, cols, rows } }, opened);
      else this.client.shell({ term, cols, rows }, opened);
    });
  }

  /** The machine's SFTP subsystem, if the machine opens it within `timeoutMs`. */
  sftp(timeoutMs = SFTP_OPEN_TIMEOUT_MS): Promise<SFTPWrapper> {
    return new Promise<SFTPWrapper>((resolve, reject) => {
      if (this.closed) return reject(new MachineConnectError("reset", "The connection to the machine is closed"));
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(new MachineConnectError("timeout", `The machine did not open SFTP within ${Math.round(timeoutMs / 100) / 10} s`));
      }, timeoutMs);
      this.client.sftp((err, sftp) => {
        clearTimeout(timer);
        if (gaveUp) return void (err ? undefined : sftp.end());
        if (err) reject(new MachineConnectError("protocol", `The machine has no SFTP: ${err.message.slice(0, 200)}`));
        else resolve(sftp);
      });
    });
  }

  close() {
    this.client.end();
  }
}

function abortError() {
  const err = new Error("The command was stopped");
  err.name = "AbortError";
  return err;
}

export interface ConnectOptions {
  /** OpenSSH-format private key. */
  privateKey: string;
  /** The pinned host key fingerprint: any other key is refused before logging in. */
  pinnedFingerprint: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Connects and logs in; throws MachineConnectError with the words of what failed. */
export async function connectMachine(target: MachineTarget, opts: ConnectOptions): Promise<MachineConnection> {
  const hs = await handshake(target, {
    pinned: opts.pinnedFingerprint,
    privateKey: opts.privateKey,
    timeoutMs: opts.timeoutMs ?? READY_TIMEOUT_MS,
    signal: opts.signal,
  });
  return new MachineConnection(hs.client, target, hs.fingerprint, hs.connectMs);
}
