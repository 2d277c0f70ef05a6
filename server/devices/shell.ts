// A terminal on a device (docs/devices.md#the-terminal): what the tier code
// holds once DeviceHub.openShell answered. Keystrokes and sizes go as
// requests; the output and the exit arrive on the handlers given to openShell.
import type { DeviceOp, DeviceOps } from "@/lib/device-protocol";

export interface ShellHandlers {
  onData(data: string): void;
  onExit(code: number | null): void;
}

interface Requester {
  request<O extends DeviceOp>(deviceId: string, op: O, params: DeviceOps[O]["params"]): Promise<DeviceOps[O]["result"]>;
}

export class DeviceShell {
  private open = true;

  constructor(
    private readonly hub: Requester,
    readonly deviceId: string,
    readonly session: string,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  /** Typed text, as the terminal sends it (control characters included). */
  async write(data: string): Promise<void> {
    await this.hub.request(this.deviceId, "shell.write", { session: this.session, data });
  }

  /** The terminal's new size; `applied` is false where the device cannot resize it (macOS's script). */
  resize(cols: number, rows: number): Promise<{ applied: boolean }> {
    return this.hub.request(this.deviceId, "shell.resize", { session: this.session, cols, rows });
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.hub.request(this.deviceId, "shell.close", { session: this.session });
  }

  /** Called by the hub when the device reported the shell's end (or the connection's). */
  exited(): void {
    this.open = false;
  }
}
