// WAL checkpoints off the run loop's thread. By default SQLite copies the
// write-ahead log back into the database file inside whichever commit takes
// the log past 1,000 pages: a few milliseconds with an fsync, every few
// hundred steps, which is the p99 of a step. The server's direct connection
// turns that off (and Prisma's, whose writes — the pruner's deletes among
// them — would otherwise pay for it) and a worker thread with a connection of
// its own checkpoints twice a second instead. PASSIVE checkpoints never block
// a writer. If the worker stops, the connections checkpoint for themselves again.
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { sqlitePathFromUrl } from "./index";
import type { NativeSqlite } from "./native";
import type { Db } from "./index";

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/** SQLite's own default: checkpoint inside the commit that takes the log past this many pages. */
const AUTO_PAGES = 1000;

const WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    // Busy or locked: the next turn tries again.
  }
}, workerData.intervalMs);
parentPort.postMessage("started");
`;

export function startWalCheckpointer(
  native: NativeSqlite,
  databaseUrl: string,
  opts: { intervalMs?: number; prisma?: Db } = {},
): WalCheckpointer {
  const autocheckpoint = (pages: number) =>
    opts.prisma?.$queryRawUnsafe(`PRAGMA wal_autocheckpoint = ${pages}`).catch(() => {
      /* closed: nothing left to checkpoint for */
    });
  const fallBack = () => {
    if (native.open) native.pragma(`wal_autocheckpoint = ${AUTO_PAGES}`);
    void autocheckpoint(AUTO_PAGES);
  };
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      module: createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3"),
      file: sqlitePathFromUrl(databaseUrl),
      intervalMs: opts.intervalMs ?? 500,
    },
  });
  worker.unref();
  worker.on("error", (err) => {
    console.error("the WAL checkpointer stopped; SQLite checkpoints inside commits again", err);
    fallBack();
  });
  worker.on("exit", fallBack);
  native.pragma("wal_autocheckpoint = 0");
  void autocheckpoint(0);
  // The log file keeps its largest size between checkpoints; past 64 MB it is cut back.
  native.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  return {
    async stop() {
      worker.off("exit", fallBack);
      await worker.terminate();
      fallBack();
    },
  };
}
