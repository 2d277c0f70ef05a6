// Runs Rein's CLI (scripts/cli.ts) as a user would, against a server, and
// reads the server's SQLite database read-only while it runs.
import { spawn } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import { createApiToken, createUser, type Role } from "@/server/identity";
import { createTestDb, type TestDb } from "./db";
import { freePort, spawnServer, type ServerProcess } from "./server-process";

const TSX = path.resolve("node_modules/.bin/tsx");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run rein -- ...args` with REIN_URL and REIN_TOKEN set; `input` goes to its standard input. */
export function runCli(server: { url: string }, token: string, args: string[], input?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(TSX, ["scripts/cli.ts", ...args], { env: { ...process.env, REIN_URL: server.url, REIN_TOKEN: token } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

/** Rows of a query on the data directory's database, opened read-only for the one query. */
export function queryDataDir<T>(dataDir: string, sql: string, ...args: unknown[]): T[] {
  const db = new Database(path.join(dataDir, "rein.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}

export interface CliServer {
  t: TestDb;
  server: ServerProcess;
  /** The API token of the person the CLI runs as. */
  token: string;
  cli(args: string[], input?: string): Promise<CliResult>;
  query<T>(sql: string, ...args: unknown[]): T[];
  stop(): Promise<void>;
}

/**
 * A real server on a fresh data directory, and the CLI as one person of the
 * given role (admin@rein.test, approver@rein.test, …). `env` adds to the
 * server's environment (REIN_UI=off and no warm pods unless it says otherwise).
 */
export async function startCliServer(role: Role, env: Record<string, string> = {}): Promise<CliServer> {
  const t = await createTestDb();
  const userId = await createUser(t.db, { email: `${role}@rein.test`, password: "password-123", role });
  const token = (await createApiToken(t.db, { userId, name: "cli" })).token;
  await t.db.$disconnect();
  const server = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_UI: "off", REIN_POD_POOL_SIZE: "0", ...env });
  await server.ready;
  return {
    t,
    server,
    token,
    cli: (args, input) => runCli(server, token, args, input),
    query: (sql, ...args) => queryDataDir(t.dir, sql, ...args),
    async stop() {
      await server.kill();
      await t.cleanup();
    },
  };
}
