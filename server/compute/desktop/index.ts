// Tiers (docs/desktops-and-tiers.md#how-the-desktop-is-built), T2: the operative desktop and its pool.
export type { DesktopHandle, DesktopDownloads, DesktopStatus, DesktopErrorCode } from "./types";
export { DesktopError, DEFAULT_DESKTOP_SIZE } from "./types";
export { DesktopPool, desktopPoolSizeFromEnv, MAX_DESKTOP_POOL_SIZE, type DesktopPoolOptions, type DesktopAttachment } from "./pool";
export { OperativeDesktop, type DesktopStartOptions } from "./desktop";
export { checkDesktopPrograms } from "./programs";
