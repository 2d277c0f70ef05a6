// What a request to a device can end in (docs/devices.md#errors): a code the
// tier code branches on and words the person who sees it can act on.
export type DeviceErrorCode =
  /** The device is not connected to this process now. */
  | "DEVICE_OFFLINE"
  /** The device said no: its owner declined, its folder does not reach there, or it runs no commands. */
  | "DEVICE_REFUSED"
  /** The device did not answer in time. */
  | "TIMEOUT"
  /** Too many requests to the device are waiting for answers. */
  | "DEVICE_BUSY"
  /** The connection ended while the request waited. */
  | "DEVICE_DISCONNECTED"
  /** The caller gave up (its signal aborted). */
  | "ABORTED"
  /** The device was revoked. */
  | "DEVICE_REVOKED"
  /** The device failed in a way it could not describe as a refusal. */
  | "DEVICE_FAILED";

export class DeviceError extends Error {
  constructor(
    readonly code: DeviceErrorCode,
    message: string,
    /** The device's own code for a refusal or failure (the file service's OUTSIDE_WORKSPACE, NOT_FOUND, …). */
    readonly reason?: string,
  ) {
    super(message);
    this.name = "DeviceError";
  }
}
