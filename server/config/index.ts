// Configuration by environment, validated once at start (Foundation issue).
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import os from "node:os";
import { StartEnvSchema } from "./env";

export { acquireDataDirLock, DataDirLockedError, processAlive, type DataDirLock } from "./lock";
export { failpoint, type FailpointName } from "./failpoints";
export { ENV, ENV_VARIABLES, type EnvGroup, type EnvName, type EnvVariable } from "./env";
export {
  DEFAULT_LADDER,
  LinkKeysFile,
  MAX_DESKTOP_POOL_SIZE,
  desktopPoolSizeFromEnv,
  ladderFromEnv,
  parseDuration,
  parseLinkKeys,
  parseSecretKey,
  rpsFromEnv,
  type TtlLadder,
} from "./parsers";

export interface ReinConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  adminEmail?: string;
  adminPassword?: string;
  workers: number;
  /** Free space a run's next step needs in the data directory (bytes). */
  diskReserveBytes: number;
  /** How long a run's dropped machine connection is retried before the run pauses. */
  machineGraceMs: number;
  scriptedDelayMs: number;
  ui: boolean;
  podPoolSize: number;
  /** "none" runs agent shells without a sandbox (explicit opt-in for hosts without bubblewrap). */
  sandbox: "bubblewrap" | "none";
  publicUrl: string;
  authSecret: string;
  /** all: one process; web or worker: one of several processes (several machines, REDIS_URL set). */
  role: "all" | "web" | "worker";
  /** Several machines: the Redis of the run queue and the live streams. */
  redisUrl?: string;
  /** Several machines: the prefix of Rein's Redis keys and channels. */
  redisPrefix: string;
  /** Several machines: where web processes reach this worker (its desktops). */
  internalUrl: string;
  /** Several machines: how long a worker's hold on a run lasts without renewal. */
  leaseTtlMs: number;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Rein cannot start: the configuration is invalid.\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** "NAME: problem" (a message that begins with the name already says it once). */
function problem(name: string, message: string): string {
  const said = message.startsWith(`${name}: `) ? `${name}: ` : message.startsWith(`${name} `) ? `${name} ` : "";
  return `${name}: ${message.slice(said.length)}`;
}

/** The data directory, made when missing and checked writable, and the database in it unless DATABASE_URL names another. */
function dataPlace(dataDirVariable: string, databaseUrlVariable: string | undefined): { dataDir: string; databaseUrl: string } {
  const dataDir = path.resolve(dataDirVariable);
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (err) {
    throw new ConfigError([`REIN_DATA_DIR: cannot write to ${dataDir} (${(err as Error).message})`]);
  }
  return { dataDir, databaseUrl: databaseUrlVariable ?? `file:${path.join(dataDir, "rein.db")}` };
}

const DataEnvSchema = StartEnvSchema.pick({ REIN_DATA_DIR: true, DATABASE_URL: true });

/**
 * Where Rein's data is (REIN_DATA_DIR, DATABASE_URL), for the CLI commands that open the database
 * themselves: only those two variables are checked. The server's other checks (a process's role
 * beside REDIS_URL, its port) concern a server, not an operator's shell on one of its machines.
 */
export function loadDataConfig(env: Record<string, string | undefined> = process.env): { dataDir: string; databaseUrl: string } {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = DataEnvSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => problem(i.path.join("."), i.message)));
  return dataPlace(parsed.data.REIN_DATA_DIR, parsed.data.DATABASE_URL);
}

/**
 * Reads and validates the environment (every variable of the server group in
 * ./env.ts, and the others marked atStart); throws ConfigError listing every problem.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ReinConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = StartEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => problem(i.path.join("."), i.message)));
  }
  const e = parsed.data;
  if (e.REIN_ADMIN_PASSWORD && !e.REIN_ADMIN_EMAIL) {
    throw new ConfigError(["REIN_ADMIN_PASSWORD is set but REIN_ADMIN_EMAIL is not; set both or neither"]);
  }
  const { dataDir, databaseUrl } = dataPlace(e.REIN_DATA_DIR, e.DATABASE_URL);
  const role = e.REIN_ROLE;
  if (e.REDIS_URL && databaseUrl.startsWith("file:")) {
    throw new ConfigError([
      "REDIS_URL: several machines need PostgreSQL; set DATABASE_URL to a postgresql:// URL (or unset REDIS_URL to run in one process)",
    ]);
  }
  if (e.REDIS_URL && role === "all") {
    throw new ConfigError(['REIN_ROLE: with REDIS_URL set, each process is either "web" (npm start) or "worker" (npm run worker)']);
  }
  if (!e.REDIS_URL && role !== "all") {
    throw new ConfigError([
      `REIN_ROLE: a ${role} process needs the others: set REDIS_URL (and a postgresql:// DATABASE_URL), or leave REIN_ROLE unset to run everything in one process`,
    ]);
  }
  return {
    role,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REIN_REDIS_PREFIX,
    internalUrl: e.REIN_INTERNAL_URL ?? defaultInternalUrl(e.HOST, e.PORT),
    leaseTtlMs: e.REIN_LEASE_TTL_MS,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    adminEmail: e.REIN_ADMIN_EMAIL,
    adminPassword: e.REIN_ADMIN_PASSWORD,
    workers: e.REIN_WORKERS,
    diskReserveBytes: e.REIN_DISK_RESERVE_MB * 1024 * 1024,
    machineGraceMs: e.REIN_MACHINE_GRACE_SEC * 1000,
    scriptedDelayMs: e.REIN_SCRIPTED_DELAY_MS,
    ui: e.REIN_UI === "on",
    podPoolSize: e.REIN_POD_POOL_SIZE,
    sandbox: e.REIN_SANDBOX,
    publicUrl: e.REIN_PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    authSecret: e.NEXTAUTH_SECRET ?? readOrCreateKeyFile(path.join(dataDir, "auth-secret.key")),
  };
}

/** A random secret kept in the data directory so sessions survive restarts. */
/**
 * Where other machines reach this process when REIN_INTERNAL_URL is unset:
 * its HOST, or, when it listens on every address, this machine's name (a
 * container's name resolves on its compose network).
 */
export function defaultInternalUrl(host: string, port: number, hostname = os.hostname()): string {
  const name = host === "0.0.0.0" || host === "::" ? hostname : host;
  return `http://${name.includes(":") ? `[${name}]` : name}:${port}`;
}

export function readOrCreateKeyFile(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const secret = crypto.randomBytes(32).toString("base64url");
  fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
  return secret;
}
