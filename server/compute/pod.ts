// A terminal pod: bash in a PTY inside the sandbox, over the run's workspace.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as pty from "node-pty";
import { TerminalRedactor } from "@/server/secrets";
import { createPodCgroup, type PodCgroup } from "./cgroups";
import { DiskWatch } from "./disk-watch";
import { MARK_END_PREFIX, MarkerScanner, SECRET_NAMES_VAR, SHELL_ENV, plainText } from "./markers";
import { RecentOutput } from "./recent-output";
import { POD_SECRETS_DIR, POD_WORKDIR, bwrapArgs } from "./sandbox";
import { PodError, type ExecResult, type PodLimits, type SandboxKind, type TerminalPod } from "./types";

const MAX_OUTPUT_CHARS = 100_000;
/**
 * How long a pod's shell may take to print its first prompt. On a host where
 * dozens of pods and other work share two cores, bash has taken over 10 s to
 * start, and the run failed for it (docs/performance.md#many-runs-at-once).
 */
const READY_TIMEOUT_MS = 30_000;
const INTERRUPT_GRACE_MS = 2_000;
const DISK_CHECK_MS = 5_000;
/** One watchdog for every pod of this process: one `du` for all their workspaces (disk-watch.ts). */
const diskWatch = new DiskWatch(DISK_CHECK_MS);
/**
 * How long output that may begin a secret value is held back when nothing
 * follows it: a few characters briefly (a person's typing stays quick), a
 * longer start of a value for longer (a value printed in slow pieces).
 */
const REDACTION_HOLD_MS = 300;
const REDACTION_LONG_HOLD_MS = 5_000;
const LONG_PREFIX = 4;

interface PendingExec {
  phase: "echo" | "output";
  raw: string;
  spill?: fs.WriteStream;
  dropped: number;
  resolve(result: ExecResult): void;
  reject(err: Error): void;
}

/**
 * What a pod's shell runs at: a PTY here (node-pty, in the sandbox) or one on
 * a remote machine over SSH (docs/desktops-and-tiers.md#a-runs-terminal-on-a-machine).
 * Everything above it (markers, redaction, exec, watchers) is the same.
 */
export interface PodTerminal {
  write(data: string): void;
  resize(cols: number, rows: number): void;
  kill(): void;
  onData(listener: (chunk: string) => void): void;
  onExit(listener: (exitCode: number) => void): void;
}

/** One command's secret variables in a file the shell sources: `source` is what is typed, `remove` runs when the command ends. */
export interface SecretFile {
  source: string;
  remove(): void;
}

export interface StartOptions {
  workspaceDir: string;
  limits: PodLimits;
  sandbox: SandboxKind;
  cols?: number;
  rows?: number;
  /** Where the pod's directory of per-command secret files is made (default: the system's temporary directory). */
  secretsParent?: string;
}

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Control characters a command may not hold: all but tab and newline (an escape would also end a bracketed paste early). */
const TYPED_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

export class PtyPod implements TerminalPod {
  readonly id = `pod-${crypto.randomBytes(6).toString("hex")}`;
  readonly startedAt = Date.now();
  private proc!: PodTerminal;
  private cgroup: PodCgroup | null = null;
  private readonly scanner = new MarkerScanner();
  private readonly recent = new RecentOutput();
  private readonly dataListeners = new Set<(chunk: string) => void>();
  private readonly exitListeners = new Set<(info: { exitCode: number; reason: string }) => void>();
  private pending: PendingExec | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private exited = false;
  private stopReason: string | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unwatchDisk: (() => void) | null = null;
  private readyResolve: (() => void) | null = null;
  /** Secret values this pod's commands were given: redacted from everything it prints, from then on. */
  private readonly redaction = new TerminalRedactor([], (control) => control.startsWith(MARK_END_PREFIX));
  private redactionTimer: NodeJS.Timeout | null = null;
  /** This pod's own directory (0700) for per-command secret files; never inside the workspace. */
  private secretsDir = "";
  protected secretFiles = 0;

  protected constructor(
    public workspaceDir: string,
    readonly sandbox: SandboxKind,
    protected readonly limits: PodLimits,
    private readonly secretsParent: string = os.tmpdir(),
  ) {}

  static async start(options: StartOptions): Promise<PtyPod> {
    const pod = new PtyPod(options.workspaceDir, options.sandbox, options.limits, options.secretsParent ?? os.tmpdir());
    await pod.boot(options.cols ?? 120, options.rows ?? 32);
    return pod;
  }

  /** The local shell: bash at a node-pty PTY, in bubblewrap (or under prlimit only), in its cgroup. */
  protected async openTerminal(cols: number, rows: number): Promise<{ terminal: PodTerminal; started(): void }> {
    this.secretsDir = fs.mkdtempSync(path.join(this.secretsParent, "rein-pod-secrets-"));
    const env: Record<string, string> = {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: POD_WORKDIR,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      HISTFILE: "/tmp/.bash_history",
      // An agent's command must never wait in a pager; people can still run less.
      PAGER: "cat",
      GIT_PAGER: "cat",
      GIT_AUTHOR_NAME: "Rein agent",
      GIT_AUTHOR_EMAIL: "agent@rein.local",
      GIT_COMMITTER_NAME: "Rein agent",
      GIT_COMMITTER_EMAIL: "agent@rein.local",
      ...SHELL_ENV,
    };
    const shell = ["/usr/bin/bash", "--noprofile", "--norc", "-i"];
    // The process waits for one line before it becomes the sandbox, so it is
    // inside its cgroup before it can start anything.
    const gate = ["-c", 'read -r _ && exec "$@"', "rein-pod"];
    let command: string[];
    let argsFile: string | null = null;
    if (this.sandbox === "bubblewrap") {
      // bwrap reads its options (host paths among them) from a file of the pod's own on fd 3, so the
      // sandbox's /proc/1/cmdline shows none of them; only the command comes on the command line.
      const all = bwrapArgs(this.workspaceDir, this.limits, env, this.secretsDir);
      const at = all.indexOf("/usr/bin/prlimit");
      argsFile = `${this.secretsDir}.bwrap-args`;
      fs.writeFileSync(
        argsFile,
        all
          .slice(0, at)
          .map((a) => `${a}\0`)
          .join(""),
        { mode: 0o600 },
      );
      command = ["-c", 'read -r _ && exec /usr/bin/bwrap --args 3 -- "$@" 3<"$REIN_BWRAP_ARGS"', "rein-pod", ...all.slice(at), ...shell];
    } else {
      command = [
        ...gate,
        "/usr/bin/prlimit",
        `--cpu=${this.limits.cpuSeconds}`,
        `--fsize=${this.limits.fileSizeMb * 1024 * 1024}`,
        "--",
        ...shell,
      ];
    }
    const proc = pty.spawn("/bin/sh", command, {
      name: "xterm-256color",
      cols,
      rows,
      // The sandbox starts in /workspace (bwrap --chdir); nothing of the host's folders is its working directory.
      cwd: this.sandbox === "bubblewrap" ? "/" : this.workspaceDir,
      env: this.sandbox === "bubblewrap" ? { PATH: "/usr/bin:/bin", REIN_BWRAP_ARGS: argsFile! } : { ...env, HOME: this.workspaceDir },
    });
    try {
      this.cgroup = createPodCgroup(this.id, this.limits);
      this.cgroup.add(proc.pid);
    } catch (err) {
      this.cgroup = null;
      void err; // limits not enforced here; probeSandbox() says so at start
    }
    const terminal: PodTerminal = {
      write: (data) => proc.write(data),
      resize: (c, r) => proc.resize(c, r),
      kill: () => proc.kill("SIGKILL"),
      onData: (listener) => void proc.onData(listener),
      onExit: (listener) => void proc.onExit(({ exitCode }) => listener(exitCode)),
    };
    return { terminal, started: () => argsFile && fs.rmSync(argsFile, { force: true }) };
  }

  /** Starts the shell and waits for its first prompt. */
  protected async boot(cols: number, rows: number) {
    let boot = "";
    const ready = new Promise<void>((resolve) => (this.readyResolve = resolve));
    let opened: Awaited<ReturnType<PtyPod["openTerminal"]>>;
    try {
      opened = await this.openTerminal(cols, rows);
    } catch (err) {
      this.exited = true;
      this.cleanup();
      throw err instanceof PodError ? err : new PodError("POD_START_FAILED", `The terminal did not start: ${(err as Error).message}`);
    }
    this.proc = opened.terminal;
    this.proc.onData((chunk) => {
      if (this.readyResolve) boot += chunk;
      this.onPtyData(chunk);
    });
    this.proc.onExit((exitCode) => this.onPtyExit(exitCode));
    this.proc.write("\r");
    let timer: NodeJS.Timeout | undefined;
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new PodError(
              "POD_START_FAILED",
              `The terminal did not start within ${READY_TIMEOUT_MS / 1000} s: ${plainText(boot).trim().slice(-500)}`,
            ),
          ),
        READY_TIMEOUT_MS,
      );
      this.exitListeners.add(() =>
        reject(
          new PodError("POD_START_FAILED", `The terminal exited while starting: ${plainText(boot).trim().slice(-500) || "no output"}`),
        ),
      );
    });
    try {
      await Promise.race([ready, failed]);
    } catch (err) {
      await this.dispose("start failed");
      throw err;
    } finally {
      clearTimeout(timer);
      this.exitListeners.clear();
      opened.started();
    }
    this.timers.push(
      setTimeout(
        () => void this.dispose(`it ran longer than its wall time of ${this.limits.wallTimeSec} s`),
        this.limits.wallTimeSec * 1000,
      ),
    );
    if (this.exited) return;
    this.unwatchDisk = this.watchDisk();
  }

  /** Stops the pod when its workspace grows past its disk limit. */
  protected watchDisk(): (() => void) | null {
    return diskWatch.watch({
      dir: () => this.workspaceDir,
      limitBytes: this.limits.diskMb * 1024 * 1024,
      over: () => void this.dispose(`the workspace grew past its disk limit of ${this.limits.diskMb} MiB`),
    });
  }

  /** Everything the terminal prints passes here first, so a secret value never reaches a result, the screen or a watcher. */
  private onPtyData(raw: string) {
    const chunk = this.redaction.push(raw);
    if (chunk) this.deliver(chunk);
    if (this.redactionTimer) clearTimeout(this.redactionTimer);
    this.redactionTimer = null;
    // A tail that may begin a value waits for the next chunk, but not for long.
    if (this.redaction.holding) {
      const hold = this.redaction.heldPrefix >= LONG_PREFIX ? REDACTION_LONG_HOLD_MS : REDACTION_HOLD_MS;
      this.redactionTimer = setTimeout(() => this.releaseHeld(), hold);
    }
  }

  private releaseHeld() {
    this.redactionTimer = null;
    const rest = this.redaction.flush();
    if (rest) this.deliver(rest);
  }

  private deliver(chunk: string) {
    const booting = this.readyResolve !== null;
    for (const piece of this.scanner.push(chunk)) {
      if ("text" in piece) {
        const p = this.pending;
        if (p?.phase === "output") {
          p.raw += piece.text;
          p.spill?.write(plainText(piece.text));
          if (p.raw.length > MAX_OUTPUT_CHARS * 2) {
            p.dropped += p.raw.length - MAX_OUTPUT_CHARS;
            p.raw = p.raw.slice(p.raw.length - MAX_OUTPUT_CHARS);
          }
        }
      } else if (piece.kind === "start") {
        if (this.pending) this.pending.phase = "output";
      } else {
        if (this.readyResolve) {
          this.readyResolve();
          this.readyResolve = null;
        }
        const p = this.pending;
        // The pod is being stopped (its wall time, its disk limit): the command ended because of that,
        // even when the shell printed its end before it died, and fails with the reason.
        if (p?.phase === "output" && this.stopReason) {
          this.pending = null;
          p.reject(new PodError("POD_EXITED", `The terminal stopped: ${this.stopReason}`));
        } else if (p?.phase === "output") {
          this.pending = null;
          const text = plainText(p.raw);
          const keep = text.length > MAX_OUTPUT_CHARS ? text.slice(text.length - MAX_OUTPUT_CHARS) : text;
          const dropped = p.dropped + (text.length - keep.length);
          const result = {
            exitCode: piece.exitCode,
            output: dropped ? `[${dropped} earlier characters dropped]\n${keep}` : keep,
            truncatedChars: dropped,
          };
          if (p.spill) p.spill.end(() => p.resolve(result));
          else p.resolve(result);
        }
      }
    }
    if (!booting) this.recent.push(chunk);
    else if (!this.readyResolve) {
      // The screen starts at the first prompt, without the echo of the line that started the shell.
      const at = chunk.lastIndexOf(MARK_END_PREFIX);
      this.recent.push(at >= 0 ? chunk.slice(at) : chunk);
    }
    this.dataListeners.forEach((l) => l(chunk));
  }

  private onPtyExit(exitCode: number) {
    if (this.exited) return;
    if (this.redactionTimer) clearTimeout(this.redactionTimer);
    this.releaseHeld();
    this.exited = true;
    const reason = this.stopReason ?? (this.cgroup?.oomKilled() ? "it went over its memory limit" : `its shell exited (code ${exitCode})`);
    this.pending?.reject(new PodError("POD_EXITED", `The terminal stopped: ${reason}`));
    this.pending = null;
    this.cleanup();
    this.exitListeners.forEach((l) => l({ exitCode, reason }));
  }

  /** A screen as the terminal would show it (a snapshot, the last screen), with every value it was given redacted. */
  redactScreen(text: string): string {
    return this.redaction.redactAll(text);
  }

  secretForms(): ReadonlyArray<{ form: string; name: string }> {
    return this.redaction.knownForms();
  }

  onData(listener: (chunk: string) => void, options?: { replay?: boolean }) {
    if (options?.replay) {
      const before = this.recent.text();
      if (before) listener(before);
    }
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  onExit(listener: (info: { exitCode: number; reason: string }) => void) {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  write(data: string) {
    if (!this.exited) this.proc.write(data);
  }

  resize(cols: number, rows: number) {
    if (!this.exited && cols > 0 && rows > 0) this.proc.resize(Math.min(cols, 500), Math.min(rows, 200));
  }

  alive() {
    return !this.exited;
  }

  exec(
    command: string,
    options: { timeoutMs: number; signal?: AbortSignal; spillPath?: string; env?: Record<string, string> },
  ): Promise<ExecResult> {
    const run = () => this.execNow(command, options);
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }

  private async execNow(
    command: string,
    { timeoutMs, signal, spillPath, env }: { timeoutMs: number; signal?: AbortSignal; spillPath?: string; env?: Record<string, string> },
  ): Promise<ExecResult> {
    if (this.exited) return Promise.reject(new PodError("POD_EXITED", `The terminal stopped: ${this.stopReason ?? "its shell exited"}`));
    if (signal?.aborted) return Promise.reject(new PodError("ABORTED", "The command was not started because the run was canceled"));
    // The command is typed at the shell's line editor, which acts on control characters (Ctrl-U kills the line, a carriage
    // return runs what follows) that the policy read as text: what ran would not be what was checked (docs/security.md#terminal-pods-t1).
    if (TYPED_CONTROL.test(command))
      return Promise.reject(new PodError("INVALID_COMMAND", "A command may not hold control characters other than newlines and tabs"));
    const secrets = env && Object.keys(env).length ? await this.writeSecretFile(env) : null;
    if (this.exited) {
      secrets?.remove();
      throw new PodError("POD_EXITED", `The terminal stopped: ${this.stopReason ?? "its shell exited"}`);
    }
    return new Promise<ExecResult>((resolve, reject) => {
      let settled = false;
      const spill = spillPath ? fs.createWriteStream(spillPath) : undefined;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        secrets?.remove();
        if (spill && !spill.writableEnded) spill.end();
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        fn();
      };
      const interrupt = (code: "TIMEOUT" | "ABORTED", message: string) => {
        // Ctrl-C first; if the prompt does not come back, the pod is stopped.
        this.proc.write("\u0003");
        const grace = setTimeout(() => {
          if (this.pending) void this.dispose(message);
        }, INTERRUPT_GRACE_MS);
        const pending = this.pending;
        if (pending) {
          pending.resolve = () => {
            clearTimeout(grace);
            finish(() => reject(new PodError(code, message)));
          };
          pending.reject = () => {
            clearTimeout(grace);
            finish(() => reject(new PodError(code, message)));
          };
        }
      };
      const timer = setTimeout(
        () => interrupt("TIMEOUT", `The command ran longer than ${timeoutMs / 1000} s and was interrupted`),
        timeoutMs,
      );
      const onAbort = () => interrupt("ABORTED", "The command was interrupted because the run was canceled");
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        phase: "echo",
        raw: "",
        spill,
        dropped: 0,
        resolve: (r) => finish(() => resolve(r)),
        reject: (e) => finish(() => reject(e)),
      };
      // One line at the prompt; a multi-line command arrives as one bracketed paste.
      const line = (secrets?.source ?? "") + command;
      // A tab typed outside a paste would ask the line editor to complete a word.
      const text = /[\n\t]/.test(command) ? `\u001b[200~${line}\u001b[201~\r` : `${line}\r`;
      this.proc.write(text);
    });
  }

  /**
   * One command's secret variables, in a file (0600) in this pod's own
   * directory, outside the workspace and read-only in the sandbox. The line
   * typed at the prompt sources it, so only its path is ever typed;
   * PROMPT_COMMAND unsets the variables when the command ends, and the file
   * is removed then.
   */
  private writeSecretFile(env: Record<string, string>): SecretFile | Promise<SecretFile> {
    const names = Object.keys(env);
    const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
    if (bad) throw new RangeError(`"${bad}" is not a name for an environment variable`);
    this.redaction.remember(names.map((name) => ({ name, value: env[name] })));
    const base = `c${++this.secretFiles}`;
    const lines = names.map((n) => `export ${n}=${shellQuote(env[n])}`);
    lines.push(`${SECRET_NAMES_VAR}=${shellQuote(names.join(" "))}`);
    return this.storeSecretFile(base, lines.join("\n") + "\n");
  }

  /** Writes one command's secret file where the shell can source it (here: the pod's own directory, /run/rein in the sandbox). */
  protected storeSecretFile(base: string, content: string): SecretFile | Promise<SecretFile> {
    const file = path.join(this.secretsDir, base);
    fs.writeFileSync(file, content, { mode: 0o600, flag: "wx" });
    const seen = this.sandbox === "bubblewrap" ? `${POD_SECRETS_DIR}/${base}` : file;
    return { source: `. ${shellQuote(seen)}; `, remove: () => fs.rmSync(file, { force: true }) };
  }

  /** What the pod leaves behind when it ends. */
  protected cleanup() {
    this.timers.forEach((t) => clearTimeout(t));
    this.timers = [];
    this.unwatchDisk?.();
    this.unwatchDisk = null;
    if (this.secretsDir) fs.rmSync(this.secretsDir, { recursive: true, force: true });
    this.cgroup?.remove();
    this.cgroup = null;
  }

  async dispose(reason = "it was stopped") {
    if (this.exited) return;
    this.stopReason = reason;
    const gone = new Promise<void>((resolve) => this.exitListeners.add(() => resolve()));
    try {
      this.proc.kill();
    } catch {
      /* already gone */
    }
    this.cgroup?.remove();
    await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
    if (!this.exited) this.onPtyExit(137);
  }
}
