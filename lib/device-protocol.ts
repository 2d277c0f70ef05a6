// The protocol between Rein and the device agent (docs/devices.md#the-protocol),
// shared by the server (server/devices) and the agent (packages/device). Types
// and constants only: the agent has no runtime dependencies, and the server
// validates every frame from a device with its own zod schemas.

/** Raised when a frame changes in a way an older peer would misread. */
export const DEVICE_PROTOCOL_VERSION = 1;

export const DEVICE_SOCKET_PATH = "/api/devices/socket";
export const DEVICE_PAIR_PATH = "/api/devices/pair";
/** The device agent as an npm tarball: `npx <rein>/api/devices/agent.tgz pair …`. */
export const DEVICE_AGENT_PATH = "/api/devices/agent.tgz";

/** Device tokens start with this; anything else is refused before it is hashed. */
export const DEVICE_TOKEN_PREFIX = "rdv_";
/** A token is the prefix and 32 random bytes in base64url (43 characters). */
export const DEVICE_TOKEN_LENGTH = DEVICE_TOKEN_PREFIX.length + 43;

/** The largest frame either side sends or accepts (1 MiB). */
export const DEVICE_MAX_FRAME_BYTES = 1 << 20;
/** The largest file a `files` read answers with: its base64 and the frame around it stay under DEVICE_MAX_FRAME_BYTES. */
export const DEVICE_MAX_FILE_BYTES = 640 * 1024;
/** The largest piece of terminal output in one shell.data frame. */
export const DEVICE_MAX_SHELL_CHUNK = 64 * 1024;
/** The hello must arrive within this long of the connection opening. */
export const DEVICE_HELLO_TIMEOUT_MS = 5_000;
/** The server pings every this often; the device answers with a pong. */
export const DEVICE_PING_MS = 15_000;
/** A device (or a server) silent for this long is gone. */
export const DEVICE_SILENT_MS = 45_000;

/** WebSocket close codes the server uses, and what the agent does about each. */
export const DEVICE_CLOSE = {
  /** No hello in time, or a token that is wrong or revoked: the agent stops and says to pair again. */
  unauthorized: 4401,
  /** The owner or an admin revoked the device. */
  revoked: 4403,
  /** The same device connected again; this older connection is closed. */
  replaced: 4409,
  /** A frame that is not the protocol (bad JSON, a field out of bounds, an answer to nothing asked). */
  protocol: 4400,
  /** Too many frames too fast. */
  flood: 4429,
  /** The server is stopping; the agent reconnects later. */
  stopping: 4503,
} as const;

export type DeviceCommands = "none" | "any";

/** What a device tells Rein about itself at each hello (docs/devices.md#capabilities). */
export interface DeviceCapabilities {
  os: string;
  arch: string;
  cpus: number;
  memoryMb: number;
  hostname: string;
  /** What the owner chose to expose with --expose (usb, gpu, …); nothing else is claimed. */
  hardware: string[];
  agentVersion: string;
  /** none: no terminal at all; any: a shell in the owner's folder. */
  commands: DeviceCommands;
  /** Whether that shell runs in a bubblewrap sandbox (system read-only, home hidden). */
  confined: boolean;
}

export interface ConsentParams {
  runId: string;
  agent: string;
  goal: string;
  team: { id: string; name: string };
  requester: string;
}
export interface ConsentResult {
  granted: boolean;
  by: "owner" | "auto";
}

/** The file service's operations a device serves (server/compute/files/program.ts); others are refused. */
export const DEVICE_FILE_OPS = ["stat", "read", "readLines", "write", "tree", "walk", "mkdir", "remove", "ensureLine"] as const;
export type DeviceFileOp = (typeof DEVICE_FILE_OPS)[number];

export interface FilesParams {
  op: DeviceFileOp;
  params: Record<string, unknown>;
}

export interface ShellOpenParams {
  session: string;
  cols: number;
  rows: number;
  /**
   * Variables for the shell, only of the names in DEVICE_SHELL_ENV_NAMES (how
   * Rein's terminal pods mark where a command starts and ends, docs/devices.md#the-terminal);
   * a device refuses any other name.
   */
  env?: Record<string, string>;
}

/** The variables Rein may set for a device's shell: its prompt and command markers, no pager. */
export const DEVICE_SHELL_ENV_NAMES = ["PS0", "PS1", "PROMPT_COMMAND", "HISTFILE", "PAGER", "GIT_PAGER"] as const;
/** The longest value of such a variable. */
export const DEVICE_SHELL_ENV_MAX = 512;

/** Each operation Rein asks of a device: its parameters and its answer. */
export interface DeviceOps {
  consent: { params: ConsentParams; result: ConsentResult };
  files: { params: FilesParams; result: unknown };
  "shell.open": { params: ShellOpenParams; result: { confined: boolean } };
  "shell.write": { params: { session: string; data: string }; result: Record<string, never> };
  "shell.resize": { params: { session: string; cols: number; rows: number }; result: { applied: boolean } };
  "shell.close": { params: { session: string }; result: Record<string, never> };
}
export type DeviceOp = keyof DeviceOps;
export const DEVICE_OPS: readonly DeviceOp[] = ["consent", "files", "shell.open", "shell.write", "shell.resize", "shell.close"];

/** Why a device refused or failed a request; the message is in words a person can act on. */
export interface DeviceFailure {
  code: string;
  message: string;
}

// Frames from the server to the device.
export type ServerFrame =
  | { t: "welcome"; deviceId: string; name: string; autoConsentTeamIds: string[]; pingMs: number }
  | { t: "settings"; autoConsentTeamIds: string[] }
  | { t: "req"; id: number; op: DeviceOp; params: unknown }
  | { t: "ping" };

// Frames from the device to the server.
export type DeviceFrame =
  | { t: "hello"; token: string; version: number; capabilities: DeviceCapabilities }
  | { t: "res"; id: number; ok: true; result: unknown }
  | { t: "res"; id: number; ok: false; error: DeviceFailure }
  | { t: "shell.data"; session: string; data: string }
  | { t: "shell.exit"; session: string; code: number | null }
  | { t: "pong" };

/** The body of POST /api/devices/pair, and its answer. */
export interface PairRequest {
  code: string;
  name: string;
  capabilities: DeviceCapabilities;
}
export interface PairAnswer {
  deviceId: string;
  token: string;
  name: string;
}

/** The pairing code's alphabet: no I, O, 0 or 1 to misread; 32 letters, so a random byte maps without bias. */
export const PAIRING_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A code as people type it (lower case, spaces, a missing dash) in the form it was issued: ABCD-EFGH. */
export function normalizePairingCode(text: string): string | null {
  const plain = text.toUpperCase().replace(/[\s-]/g, "");
  if (plain.length !== 8 || [...plain].some((c) => !PAIRING_ALPHABET.includes(c))) return null;
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}
