// Tiers (docs/terminal-and-files.md#terminal-pods), T1: the terminal pod — a
// sandbox with a PTY over the run's workspace, which the agent works in and a
// person can watch.

export interface PodLimits {
  /** Memory of all the pod's processes together (cgroup), MiB. */
  memoryMb: number;
  /** Processes and threads at once (cgroup pids.max). */
  processes: number;
  /** CPU seconds per process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Largest file a process may write (RLIMIT_FSIZE), MiB. */
  fileSizeMb: number;
  /** Size of the workspace; past it the pod is stopped. MiB. */
  diskMb: number;
  /** Private /tmp size, MiB. */
  tmpMb: number;
  /** The pod is stopped after this long, seconds. */
  wallTimeSec: number;
  network: boolean;
}

export const DEFAULT_LIMITS: PodLimits = {
  memoryMb: 2048,
  processes: 256,
  cpuSeconds: 3600,
  fileSizeMb: 512,
  diskMb: 2048,
  tmpMb: 256,
  wallTimeSec: 4 * 3600,
  network: false,
};

export type SandboxKind = "bubblewrap" | "none";

export interface SandboxStatus {
  kind: SandboxKind;
  ok: boolean;
  /** What works and what does not, in words for the start-up log and the UI. */
  message: string;
  limits: { processes: boolean; memory: boolean; cpuWeight: boolean };
}

export interface ExecResult {
  exitCode: number;
  /** Output as plain text (escape sequences removed), tail kept when long. */
  output: string;
  truncatedChars: number;
}

export interface TerminalPod {
  readonly id: string;
  readonly sandbox: SandboxKind;
  /** The host directory bound at /workspace. */
  readonly workspaceDir: string;
  readonly startedAt: number;
  /**
   * Raw terminal output, as a terminal shows it. With `replay` the listener is
   * first called, at once, with what the pod printed before (its first prompt
   * included; see recent-output.ts), then with every chunk after it: nothing
   * missed, nothing twice.
   */
  onData(listener: (chunk: string) => void, options?: { replay?: boolean }): () => void;
  onExit(listener: (info: { exitCode: number; reason: string }) => void): () => void;
  /** Keystrokes from a person (take over). */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Runs a command at the prompt, visible to watchers; resolves with its exit code and output. */
  /** `spillPath`: all of the command's output, as plain text, is also written to this file. */
  /**
   * `env`: variables for this command only (a run's secrets). Their values are
   * never typed into the terminal, and are redacted from its output from then on.
   */
  exec(
    command: string,
    options: { timeoutMs: number; signal?: AbortSignal; spillPath?: string; env?: Record<string, string> },
  ): Promise<ExecResult>;
  alive(): boolean;
  dispose(reason?: string): Promise<void>;
  /** A serialized screen with the secret values this pod's commands were given redacted on what it shows. */
  redactScreen?(text: string): string;
  /** Every text of a secret value this pod's output is redacted for, with the secret's name. */
  secretForms?(): ReadonlyArray<{ form: string; name: string }>;
}

export class PodError extends Error {
  constructor(
    public readonly code:
      | "SANDBOX_UNAVAILABLE"
      | "POD_START_FAILED"
      | "POD_EXITED"
      | "TIMEOUT"
      | "ABORTED"
      | "BUSY"
      | "INVALID_COMMAND"
      | "SECRETS_NOT_ON_DEVICES",
    message: string,
  ) {
    super(message);
    this.name = "PodError";
  }
}
