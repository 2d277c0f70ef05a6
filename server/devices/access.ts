// What T4 runs need of people's devices (docs/devices.md#with-several-machines):
// the DeviceHub of the process that holds the device's socket, or, on a worker
// of several machines, the relay to the web process that holds it.
import type { DeviceOp, DeviceOps } from "@/lib/device-protocol";
import type { DeviceShell, ShellHandlers } from "./shell";

export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type DeviceEvent = "online" | "offline";
export type DeviceListener = (device: { id: string; name: string }) => void;

/** The terminal asked for: its size and the few variables a device accepts (DEVICE_SHELL_ENV_NAMES). */
export interface ShellSize {
  cols: number;
  rows: number;
  env?: Record<string, string>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** The owner has 60 s to answer in the agent's terminal; the answer then still has to travel. */
export const CONSENT_TIMEOUT_MS = 90_000;

/** How long a request to a device waits for its answer unless told otherwise. */
export function requestTimeoutMs(op: DeviceOp): number {
  return op === "consent" ? CONSENT_TIMEOUT_MS : DEFAULT_TIMEOUT_MS;
}

export interface DeviceAccess {
  /** Whether the device is connected now (to this process, or to a web process a worker reaches). */
  isOnline(deviceId: string): boolean;
  /** One operation on a device: its answer, or a DeviceError whose message a person can act on. */
  request<O extends DeviceOp>(
    deviceId: string,
    op: O,
    params: DeviceOps[O]["params"],
    opts?: RequestOptions,
  ): Promise<DeviceOps[O]["result"]>;
  /** Opens a terminal on the device; output and exit arrive on the handlers. */
  openShell(deviceId: string, size: ShellSize, handlers: ShellHandlers, opts?: RequestOptions): Promise<DeviceShell>;
  /** Calls `listener` when a device comes online or goes offline; returns how to stop. */
  on(event: DeviceEvent, listener: DeviceListener): () => void;
}
