// Configuration by environment, validated once at start (Foundation issue).
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { z } from "zod";

export { acquireDataDirLock, DataDirLockedError, type DataDirLock } from "./lock";
export { failpoint, type FailpointName } from "./failpoints";

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(1, "PORT must be 1-65535").max(65535, "PORT must be 1-65535").default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  REIN_DATA_DIR: z.string().min(1).default("./data"),
  REIN_ADMIN_EMAIL: z.email("REIN_ADMIN_EMAIL must be an email address").optional(),
  REIN_ADMIN_PASSWORD: z.string().min(8, "REIN_ADMIN_PASSWORD must have at least 8 characters").optional(),
  REIN_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
  REIN_SCRIPTED_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(40),
  REIN_UI: z.enum(["on", "off"]).default("on"),
  REIN_POD_POOL_SIZE: z.coerce.number().int().min(0).max(32).default(2),
  REIN_SANDBOX: z.enum(["bubblewrap", "none"], { message: 'REIN_SANDBOX must be "bubblewrap" or "none"' }).default("bubblewrap"),
  REIN_PUBLIC_URL: z.url("REIN_PUBLIC_URL must be a URL such as http://localhost:3000").optional(),
  DATABASE_URL: z.string().optional(),
  NEXTAUTH_SECRET: z.string().min(32, "NEXTAUTH_SECRET must have at least 32 characters").optional(),
});

export interface ReinConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  adminEmail?: string;
  adminPassword?: string;
  workers: number;
  scriptedDelayMs: number;
  ui: boolean;
  podPoolSize: number;
  /** "none" runs agent shells without a sandbox (explicit opt-in for hosts without bubblewrap). */
  sandbox: "bubblewrap" | "none";
  publicUrl: string;
  authSecret: string;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Rein cannot start: the configuration is invalid.\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Reads and validates the environment; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ReinConfig {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.REIN_ADMIN_PASSWORD && !e.REIN_ADMIN_EMAIL) {
    throw new ConfigError(["REIN_ADMIN_PASSWORD is set but REIN_ADMIN_EMAIL is not; set both or neither"]);
  }
  const dataDir = path.resolve(e.REIN_DATA_DIR);
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (err) {
    throw new ConfigError([`REIN_DATA_DIR: cannot write to ${dataDir} (${(err as Error).message})`]);
  }
  const databaseUrl = e.DATABASE_URL ?? `file:${path.join(dataDir, "rein.db")}`;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    adminEmail: e.REIN_ADMIN_EMAIL,
    adminPassword: e.REIN_ADMIN_PASSWORD,
    workers: e.REIN_WORKERS,
    scriptedDelayMs: e.REIN_SCRIPTED_DELAY_MS,
    ui: e.REIN_UI === "on",
    podPoolSize: e.REIN_POD_POOL_SIZE,
    sandbox: e.REIN_SANDBOX,
    publicUrl: e.REIN_PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    authSecret: e.NEXTAUTH_SECRET ?? readOrCreateKeyFile(path.join(dataDir, "auth-secret.key")),
  };
}

/** A random secret kept in the data directory so sessions survive restarts. */
export function readOrCreateKeyFile(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  const secret = crypto.randomBytes(32).toString("base64url");
  fs.writeFileSync(file, secret + "\n", { mode: 0o600, flag: "wx" });
  return secret;
}
