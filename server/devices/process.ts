// The DeviceHub of this process (docs/devices.md#the-hub). server.ts installs
// it when it starts; the routers and REST routes read it to say which devices
// are online here and to close a revoked device's socket at once. Without a
// hub (a test, a worker process) devices read as offline, and a revocation
// still reaches their sockets through the heartbeat's check.
import type { DevicePresence } from "./devices";

let current: DevicePresence | null = null;

/** This process's hub, or with several machines what it and the other web processes hold (docs/devices.md#with-several-machines). */
export function processDeviceHub(): DevicePresence | null {
  return current;
}

/** Makes `hub` this process's hub; returns how to remove it again. */
export function installDeviceHub(hub: DevicePresence): () => void {
  current = hub;
  return () => {
    if (current === hub) current = null;
  };
}
