// WAL checkpoints on a worker thread: the server's connection no longer
// checkpoints inside its commits, yet the log keeps reaching the database
// file; stopping the worker gives the connection its checkpoints back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openNativeSqlite, startWalCheckpointer, type NativeSqlite } from "./index";

let dir: string;
let file: string;
let db: NativeSqlite;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-wal-"));
  file = path.join(dir, "w.db");
  const setup = new Database(file);
  setup.pragma("journal_mode = WAL");
  setup.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  setup.close();
  db = openNativeSqlite(`file:${file}`);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(rows: number) {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  for (let i = 0; i < rows; i++) db.transaction(() => insert.run("x".repeat(4000)))();
}

async function until(check: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

it("the worker copies the log into the database file while the connection's commits never do", async () => {
  const checkpoints = startWalCheckpointer(db, `file:${file}`, { intervalMs: 20 });
  try {
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    const before = fs.statSync(file).size;
    write(300);
    // ~1.2 MB of rows: only a checkpoint moves them from the log into the file.
    expect(await until(() => fs.statSync(file).size > before + 1_000_000)).toBe(true);
  } finally {
    await checkpoints.stop();
  }
  expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
});

it("without the worker, a connection that does not checkpoint leaves everything in the log", async () => {
  db.pragma("wal_autocheckpoint = 0");
  const before = fs.statSync(file).size;
  write(300);
  await new Promise((r) => setTimeout(r, 200));
  expect(fs.statSync(file).size).toBe(before);
  expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
});
