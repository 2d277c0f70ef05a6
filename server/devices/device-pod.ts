// A run's terminal on a person's device (docs/devices.md#a-run-on-a-device):
// the same terminal pod as T1 and T3 (markers, redaction of what is printed,
// exec, watchers, take over), its shell the device's terminal, opened through
// the hub over the device's socket, in the owner's folder, confined by the
// device's bubblewrap where it has one. The run's secrets never go to a
// person's device: a command that needs one is refused.
import { PodError, PtyPod, SHELL_ENV, type PodLimits, type PodTerminal, type SecretFile } from "@/server/compute";
import type { DeviceAccess } from "./access";
import type { DeviceShell } from "./shell";

/** What a device's terminal may print before its first prompt (a shell's banner is a few lines). */
export const BOOT_MAX_CHARS = 1 << 20;

export interface DevicePodOptions {
  hub: DeviceAccess;
  deviceId: string;
  /** Shown in words. */
  deviceName: string;
  /** The run's workspace on Rein's host (the pod's bookkeeping; the shell works in the owner's folder). */
  workspaceDir: string;
  /** The device's shell runs in bubblewrap (it says so in its capabilities). */
  confined: boolean;
  limits: PodLimits;
  cols?: number;
  rows?: number;
}

export class DevicePod extends PtyPod {
  private constructor(private readonly options: DevicePodOptions) {
    super(options.workspaceDir, options.confined ? "bubblewrap" : "none", options.limits);
  }

  /** Opens a terminal on the device and waits for its first prompt. */
  static async open(options: DevicePodOptions): Promise<DevicePod> {
    const pod = new DevicePod(options);
    await pod.boot(options.cols ?? 120, options.rows ?? 32);
    return pod;
  }

  get deviceId(): string {
    return this.options.deviceId;
  }

  protected override async openTerminal(cols: number, rows: number): Promise<{ terminal: PodTerminal; started(): void }> {
    // Output may come before the pod listens (the first prompt): kept until it does.
    let early: string[] = [];
    let onData: ((chunk: string) => void) | null = null;
    let onExit: ((code: number) => void) | null = null;
    let exitCode: number | null = null;
    // Until its first prompt the pod keeps all the terminal prints (for the words of a failed start), and so does
    // `early`: a hostile device printing without end there would grow both for 30 s, past what a string can hold
    // (a RangeError thrown on the socket's message handler). Past BOOT_MAX_CHARS the terminal is ended instead.
    let booting = true;
    let bootChars = 0;
    let overflowed = false;
    let shell: DeviceShell | null = null;
    const exited = (code: number | null) => {
      if (exitCode !== null) return;
      exitCode = code ?? 137;
      onExit?.(exitCode);
    };
    shell = await this.options.hub.openShell(
      this.options.deviceId,
      { cols, rows, env: { ...SHELL_ENV, HISTFILE: "/dev/null", PAGER: "cat", GIT_PAGER: "cat" } },
      {
        onData: (data) => {
          if (overflowed || exitCode !== null) return;
          if (booting && (bootChars += data.length) > BOOT_MAX_CHARS) {
            overflowed = true;
            early = [];
            void shell?.close().catch(() => undefined);
            return exited(137);
          }
          if (onData) onData(data);
          else early.push(data);
        },
        onExit: exited,
      },
    );
    if (overflowed) {
      void shell.close().catch(() => undefined);
      throw new PodError(
        "POD_START_FAILED",
        `The terminal on ${this.options.deviceName} printed more than ${BOOT_MAX_CHARS} characters before its first prompt`,
      );
    }
    const opened = shell;
    const ignore = () => undefined;
    const terminal: PodTerminal = {
      write: (data) => void opened.write(data).catch(ignore),
      resize: (c, r) => void opened.resize(c, r).catch(ignore),
      kill: () => void opened.close().catch(ignore),
      onData: (listener) => {
        onData = listener;
        const kept = early;
        early = [];
        for (const chunk of kept) listener(chunk);
      },
      onExit: (listener) => {
        onExit = listener;
        if (exitCode !== null) listener(exitCode);
      },
    };
    return {
      terminal,
      started: () => {
        booting = false;
        // Past its first prompt, what the shell prints is bounded by the pod (a command's output, the recent screen).
        if (overflowed) void opened.close().catch(ignore);
      },
    };
  }

  /** The owner's folder is theirs: Rein does not watch its size. */
  protected override watchDisk(): null {
    return null;
  }

  protected override storeSecretFile(): SecretFile {
    throw new PodError(
      "SECRETS_NOT_ON_DEVICES",
      `A run's secrets are not given to commands on a person's device (${this.options.deviceName}): run this command on T1 or T3`,
    );
  }
}
