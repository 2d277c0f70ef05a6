// The DeviceHub of this process (docs/devices.md#the-hub). server.ts installs
// it when it starts; the routers and REST routes read it to say which devices
// are online here and to close a revoked device's socket at once. Without a
// hub (a test, a worker process) devices read as offline, and a revocation
// still reaches their sockets through the heartbeat's check.
import type { DeviceHub } from "./hub";

let current: DeviceHub | null = null;

export function processDeviceHub(): DeviceHub | null {
  return current;
}

/** Makes `hub` this process's hub; returns how to remove it again. */
export function installDeviceHub(hub: DeviceHub): () => void {
  current = hub;
  return () => {
    if (current === hub) current = null;
  };
}
