// Deferred writes on the direct SQLite connection: they ride the next
// transaction, in order; a transaction that fails gives them back for the next
// one; with no transaction coming they go alone; closing writes them first.
// And the ids rows written there get: they sort by time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { closeNativeSqlite, deferWrite, openNativeSqlite, timeOrderedId, withDeferredWrites, type NativeSqlite } from "./index";

let dir: string;
let db: NativeSqlite;
const rows = () =>
  (new Database(path.join(dir, "d.db"), { readonly: true }).prepare("SELECT v FROM t ORDER BY id").all() as Array<{ v: string }>).map(
    (r) => r.v,
  );

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-deferred-"));
  const setup = new Database(path.join(dir, "d.db"));
  setup.exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT NOT NULL)");
  setup.close();
  db = openNativeSqlite(`file:${path.join(dir, "d.db")}`);
});
afterEach(() => {
  closeNativeSqlite(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

it("rides the next transaction on the connection, before its own writes, in order", () => {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const step = withDeferredWrites(db, (v: string) => insert.run(v));
  deferWrite(db, () => insert.run("decision-1"));
  deferWrite(db, () => insert.run("decision-2"));
  expect(rows()).toEqual([]);
  step("step-1");
  expect(rows()).toEqual(["decision-1", "decision-2", "step-1"]);
  step("step-2");
  expect(rows()).toEqual(["decision-1", "decision-2", "step-1", "step-2"]);
});

it("a transaction that fails rolls them back and leaves them for the next one", () => {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const failing = withDeferredWrites(db, () => {
    throw new Error("fenced out");
  });
  const step = withDeferredWrites(db, (v: string) => insert.run(v));
  deferWrite(db, () => insert.run("decision"));
  expect(() => failing()).toThrow("fenced out");
  expect(rows()).toEqual([]);
  step("step");
  expect(rows()).toEqual(["decision", "step"]);
});

it("goes alone when no transaction comes, within a few milliseconds", async () => {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  deferWrite(db, () => insert.run("alone"));
  const deadline = Date.now() + 5_000;
  while (rows().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  expect(rows()).toEqual(["alone"]);
});

it("closing the connection writes what waits", () => {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  deferWrite(db, () => insert.run("at shutdown"));
  closeNativeSqlite(db);
  expect(rows()).toEqual(["at shutdown"]);
});

it("time-ordered ids are version 7 UUIDs that sort by the time they were made", () => {
  const ids = [timeOrderedId(1_700_000_000_000), timeOrderedId(1_700_000_000_001), timeOrderedId(1_800_000_000_000)];
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(Array.from({ length: 1000 }, () => timeOrderedId(1_700_000_000_000))).size).toBe(1000);
});
