// A run's terminal on a person's device (docs/devices.md#a-run-on-a-device):
// the same terminal pod as T1 and T3 (markers, redaction of what is printed,
// exec, watchers, take over), its shell the device's terminal, opened through
// the hub over the device's socket, in the owner's folder, confined by the
// device's bubblewrap where it has one. The run's secrets never go to a
// person's device: a command that needs one is refused.
import { PodError, PtyPod, SHELL_ENV, type PodLimits, type PodTerminal, type SecretFile } from "@/server/compute";
import type { DeviceAccess } from "./access";

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
    const shell = await this.options.hub.openShell(
      this.options.deviceId,
      { cols, rows, env: { ...SHELL_ENV, HISTFILE: "/dev/null", PAGER: "cat", GIT_PAGER: "cat" } },
      {
        onData: (data) => (onData ? onData(data) : early.push(data)),
        onExit: (code) => {
          exitCode = code ?? 137;
          onExit?.(exitCode);
        },
      },
    );
    const ignore = () => undefined;
    const terminal: PodTerminal = {
      write: (data) => void shell.write(data).catch(ignore),
      resize: (c, r) => void shell.resize(c, r).catch(ignore),
      kill: () => void shell.close().catch(ignore),
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
    return { terminal, started: () => undefined };
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
