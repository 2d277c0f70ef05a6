// Tiers (docs/desktops-and-tiers.md#the-tiers). T1: terminal pods on bubblewrap with a PTY; T2: operative desktops.
export type { TerminalPod, PodLimits, ExecResult, SandboxStatus, SandboxKind } from "./types";
export { DEFAULT_LIMITS, PodError } from "./types";
export { probeSandbox, bwrapArgs, POD_WORKDIR, POD_SECRETS_DIR } from "./sandbox";
export { PtyPod, shellQuote, type PodTerminal, type SecretFile } from "./pod";
export { SHELL_ENV } from "./markers";
export { PodPool, type PodPoolOptions, type TerminalProvider, type Attachment } from "./pool";
export { plainText, MarkerScanner } from "./markers";
export { RecentOutput, RECENT_OUTPUT_CHARS } from "./recent-output";
export {
  DesktopPool,
  DesktopError,
  OperativeDesktop,
  checkDesktopPrograms,
  desktopPoolSizeFromEnv,
  DEFAULT_DESKTOP_SIZE,
  MAX_DESKTOP_POOL_SIZE,
  type DesktopHandle,
  type DesktopDownloads,
  type DesktopStatus,
  type DesktopErrorCode,
  type DesktopPoolOptions,
  type DesktopAttachment,
} from "./desktop";
export { FileService, FileServices, FileServiceError, fileServices } from "./files/service";
export {
  JAIL_ROOT,
  JailUnavailableError,
  configureJail,
  jailMode,
  jailNode,
  runInJail,
  spawnInJail,
  type JailRunResult,
  type JailSpawnOptions,
} from "./files/jail";
export { configureEgress, decideEgress, isOwnAddress, isPrivateAddress, type EgressAllowance } from "./egress/policy";
