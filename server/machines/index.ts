// Remote machines for T3 (docs/desktops-and-tiers.md#t3-remote-machines):
// registering machines, pinning their host keys, their key pairs, the
// connection test, and connections (exec, PTY shell, SFTP) for what runs on
// them. Other code imports only this file.

export {
  listMachines,
  getMachine,
  registerMachine,
  updateMachine,
  contactMachine,
  confirmHostKey,
  testMachine,
  archiveMachine,
  openMachine,
  type MachineDeps,
  type MachineView,
  type HostKeyContact,
  type MachineTestResult,
} from "./service";
export {
  MachineConnection,
  MachineConnectError,
  connectMachine,
  fetchHostKey,
  hostKeyChanged,
  READY_TIMEOUT_MS,
  type ConnectProblem,
  type ExecOptions,
  type ExecResult,
  type MachineShell,
  type MachineTarget,
  type ShellOptions,
  type ConnectOptions,
  type PresentedHostKey,
} from "./ssh";
export { ed25519KeyPair, fingerprintOf } from "./keys";
export { parseFacts, confinementOf, type MachineFacts } from "./probe";
export {
  RegisterMachineInput,
  UpdateMachineInput,
  UpdateMachinePatch,
  MachineRef,
  ConfirmHostKeyInput,
  type Confinement,
  type MachineState,
} from "@/lib/machines";
export {
  pushWorkspace,
  pushInPlace,
  pullWorkspace,
  removeRunFolder,
  runFolder,
  SyncError,
  DEFAULT_SYNC_LIMITS,
  DEFAULT_PULL_TIMEOUT_MS,
  DEFAULT_PUSH_TIMEOUT_MS,
  type PullOptions,
  type SyncLimits,
  type SyncReport,
} from "./sync";
export { RemotePod, type RemotePodOptions, type RemoteConfinement } from "./remote-pod";
export { readyMachines, chooseMachine, type MachineCandidate, type MachineChoice } from "./placement";
