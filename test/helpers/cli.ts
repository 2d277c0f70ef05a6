// Runs Rein's CLI against a server, and reads the server's SQLite database
// read-only while it runs. runCli runs the CLI's commands (scripts/cli-commands.ts)
// inside the test's process, as scripts/cli.ts does in its own: one `tsx` per
// call costs seconds of compiling; runCliBinary runs the real `scripts/cli.ts`.
import { spawn } from "node:child_process";
import path from "node:path";
import { format } from "node:util";
import Database from "better-sqlite3";
import { createApiToken, createUser, type Role } from "@/server/identity";
import { main } from "@/scripts/cli-commands";
import { errorOutput } from "@/scripts/cli-error";
import { stdin } from "@/scripts/cli-input";
import { createTestDb, type TestDb } from "./db";
import { freePort, spawnServer, type ServerProcess } from "./server-process";

const TSX = path.resolve("node_modules/.bin/tsx");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `npm run rein -- ...args` as a process of its own, with REIN_URL and REIN_TOKEN set and `env` on top;
 * `input` goes to its standard input.
 */
export function runCliBinary(
  server: { url: string },
  token: string,
  args: string[],
  input?: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(TSX, ["scripts/cli.ts", ...args], { env: { ...process.env, REIN_URL: server.url, REIN_TOKEN: token, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

let running = false;

/**
 * The same command in this process: what scripts/cli.ts does with
 * REIN_URL, REIN_TOKEN and `input` piped to it (its standard input is never a
 * terminal), with console output, standard output and the exit code captured.
 * One at a time: the captures are the process's own.
 */
export async function runCli(server: { url: string }, token: string, args: string[], input?: string): Promise<CliResult> {
  if (running) throw new Error("runCli runs one command at a time; use runCliBinary for commands that overlap");
  running = true;
  let stdout = "";
  let stderr = "";
  const saved = {
    log: console.log,
    error: console.error,
    write: process.stdout.write,
    read: stdin.read,
    isTTY: stdin.isTTY,
    exitCode: process.exitCode,
    url: process.env.REIN_URL,
    token: process.env.REIN_TOKEN,
    fetch: globalThis.fetch,
  };
  // A connection per request: one kept alive from an earlier command (which a
  // process of its own never has) may be closed by the server as it is reused.
  globalThis.fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("connection", "close");
    return saved.fetch(input, { ...init, headers });
  };
  console.log = (...a: unknown[]) => void (stdout += `${format(...a)}\n`);
  console.error = (...a: unknown[]) => void (stderr += `${format(...a)}\n`);
  process.stdout.write = ((chunk: string | Uint8Array) => (
    (stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")),
    true
  )) as typeof process.stdout.write;
  stdin.read = () => input ?? "";
  stdin.isTTY = () => false;
  process.exitCode = undefined;
  process.env.REIN_URL = server.url;
  process.env.REIN_TOKEN = token;
  let code: number;
  try {
    await main(args);
    code = Number(process.exitCode ?? 0);
  } catch (err) {
    console.error(errorOutput(err));
    code = 1;
  } finally {
    Object.assign(console, { log: saved.log, error: saved.error });
    globalThis.fetch = saved.fetch;
    process.stdout.write = saved.write;
    Object.assign(stdin, { read: saved.read, isTTY: saved.isTTY });
    process.exitCode = saved.exitCode;
    restoreEnv("REIN_URL", saved.url);
    restoreEnv("REIN_TOKEN", saved.token);
    running = false;
  }
  return { code, stdout, stderr };
}

function restoreEnv(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
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
  /** The same through the real `scripts/cli.ts` process. */
  binary(args: string[], input?: string): Promise<CliResult>;
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
    binary: (args, input) => runCliBinary(server, token, args, input),
    query: (sql, ...args) => queryDataDir(t.dir, sql, ...args),
    async stop() {
      await server.kill();
      await t.cleanup();
    },
  };
}
