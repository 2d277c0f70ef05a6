// Runs Rein's CLI (scripts/cli.ts) as a user would, against a server, and
// reads the server's SQLite database read-only while it runs.
import { spawn } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";

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
