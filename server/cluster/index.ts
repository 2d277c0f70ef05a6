// Several machines (docs/several-machines.md#how-it-fits-together): PostgreSQL
// decides who executes a run (leases with epochs that fence every write),
// BullMQ on Redis hands the work out, and every process registers itself for
// /api/health and System.
export {
  RunLeases,
  LOCK_NAMESPACE,
  DEFAULT_LEASE_TTL_MS,
  type LeaseHolder,
  type TakenLease,
  type Orphan,
  type OrphanReason,
} from "./leases";
export { ProcessRegistry, listProcesses, HEARTBEAT_MS, type ProcessRole, type ProcessStats, type ProcessView } from "./processes";
export { RunQueue, runJobId, sweepJobId, SWEEP_JOB_WINDOW_MS, type RunJob } from "./queue";
export { connectRedis, channelsFor, readMessage, type Redis } from "./redis";
export { ClusterWorker, type ClusterWorkerOptions, type ControlMessage, type WorkerFigures } from "./worker";
export { EventTail, RelayBus, type RelayChannels } from "./relay";
export { joinCluster, type Cluster, type ClusterOptions } from "./join";
export {
  describeDeployment,
  packageVersion,
  stateOf,
  type DeploymentMode,
  type DeploymentOverview,
  type ProcessRow,
  type ProcessState,
} from "./overview";
export { PodExporter, RemotePods, podWorkerOf, terminalChannels, type TerminalChannels } from "./terminals";
export {
  DesktopExporter,
  RemoteDesktops,
  desktopChannels,
  desktopWorkerOf,
  signTunnel,
  verifyTunnel,
  TUNNEL_PATH,
  TUNNEL_TOKEN_TTL_MS,
  type DesktopChannels,
  type ExportedDesktop,
  type ExportedDesktops,
  type RunLeaseOf,
} from "./desktops";
export { DeviceHost, deviceChannels, MAX_RELAY_MESSAGE, type DeviceChannels } from "./devices";
export { RelayedDevices, type RelayLimits } from "./relayed-devices";
