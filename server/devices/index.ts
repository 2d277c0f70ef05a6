// T4 devices (docs/devices.md): pairing, the device socket and its hub, and
// the services tRPC, REST v1 and the CLI share.
export { DeviceHub, DEFAULT_HUB_LIMITS, type DeviceHubDeps, type DeviceHubLimits, type OnlineDevice } from "./hub";
export {
  CONSENT_TIMEOUT_MS,
  requestTimeoutMs,
  type DeviceAccess,
  type DeviceEvent,
  type DeviceListener,
  type RequestOptions,
  type ShellSize,
} from "./access";
export { offline as deviceOffline } from "./connection";
export { DeviceShell, type ShellHandlers } from "./shell";
export { DeviceError, type DeviceErrorCode } from "./errors";
export {
  CreatePairingInput,
  MAX_OPEN_PAIRINGS,
  MAX_PAIRING_ATTEMPTS,
  PAIRING_TTL_MS,
  createPairingCode,
  pairDevice,
  type DeviceActing,
  type PairingCode,
} from "./pairing";
export {
  DeviceRef,
  ListDevicesInput,
  SetAutoConsentInput,
  listDevices,
  revokeDevice,
  setAutoConsent,
  type DevicePresence,
  type DeviceState,
  type DeviceView,
} from "./devices";
export { AGENT_TARBALL, attachDeviceSocket, createDeviceEndpoints, isDevicePath } from "./http";
export { installDeviceHub, processDeviceHub } from "./process";
export { DeviceCapabilitiesSchema, PairBody } from "./schemas";
export { DevicePod, type DevicePodOptions } from "./device-pod";
