// A backup is a file a person brings from elsewhere: restore refuses one that is not a backup, one
// whose members name paths outside the data directory, and one a newer Rein made, before it writes
// anything (docs/operations.md#backup-and-restore).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { restore } from "@/server/backup";
import { makeTempDir } from "../helpers/db";

const work = makeTempDir("rein-backup-attack-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A backup's manifest, as server/backup writes it, with `extra` on top. */
const manifest = (extra: object) =>
  JSON.stringify({
    format: "rein-backup",
    version: 1,
    createdAt: "2026-01-01T00:00:00Z",
    database: "sqlite",
    migrations: [],
    keys: false,
    sealed: 0,
    ...extra,
  });

it("refuses a file that is not a backup, one that names paths outside the data directory, and one a newer Rein made", async () => {
  const databaseUrl = (dir: string) => `file:${path.join(dir, "rein.db")}`;
  const migrationsDir = path.resolve("prisma", "migrations");
  const attempt = (file: string, dir: string) => restore({ file, dataDir: dir, databaseUrl: databaseUrl(dir), migrationsDir });
  const src = makeTempDir("rein-backup-src-");

  const notOne = path.join(work, "not-a-backup.tar.gz");
  fs.writeFileSync(notOne, "plain text");
  await expect(attempt(notOne, path.join(work, "a"))).rejects.toThrow(/is not a Rein backup/);

  // ../outside.txt kept as it is (-P): extracted naively it would land beside the data directory.
  fs.writeFileSync(path.join(src, "rein-backup.json"), manifest({}));
  fs.mkdirSync(path.join(src, "inner"));
  fs.writeFileSync(path.join(src, "outside.txt"), "escaped");
  const escaping = path.join(work, "escaping.tar.gz");
  execFileSync("tar", ["-czPf", escaping, "-C", src, "rein-backup.json", "-C", path.join(src, "inner"), "../outside.txt"]);
  const target = path.join(work, "b", "data");
  await expect(attempt(escaping, target)).rejects.toThrow(/names a path outside the data directory \(\.\.\/outside\.txt\)/);
  expect(fs.existsSync(path.join(work, "b", "outside.txt"))).toBe(false);
  expect(fs.existsSync(target) ? fs.readdirSync(target) : []).toEqual([]);

  fs.writeFileSync(path.join(src, "rein-backup.json"), manifest({ migrations: ["29991231000000_from_a_later_rein"] }));
  const newer = path.join(work, "newer.tar.gz");
  execFileSync("tar", ["-czf", newer, "-C", src, "rein-backup.json"]);
  await expect(attempt(newer, path.join(work, "c"))).rejects.toThrow(/made by a newer Rein: .*29991231000000_from_a_later_rein/);
  fs.rmSync(src, { recursive: true, force: true });
});

it("writes nothing through a link the archive makes to a place outside, and leaves the directory empty when it fails", async () => {
  const src = makeTempDir("rein-backup-src-");
  const outside = makeTempDir("rein-backup-outside-");
  fs.writeFileSync(path.join(src, "rein-backup.json"), manifest({}));
  // workspaces/run -> a folder outside, then workspaces/run/pwned.txt: extracted naively, the file lands outside.
  fs.mkdirSync(path.join(src, "workspaces"));
  fs.symlinkSync(outside, path.join(src, "workspaces", "run"));
  const second = makeTempDir("rein-backup-src2-");
  fs.mkdirSync(path.join(second, "workspaces", "run"), { recursive: true });
  fs.writeFileSync(path.join(second, "workspaces", "run", "pwned.txt"), "written through the link");
  const file = path.join(work, "through-a-link.tar");
  execFileSync("tar", ["-cf", file, "-C", src, "rein-backup.json", "workspaces/run"]);
  execFileSync("tar", ["-rf", file, "-C", second, "workspaces/run/pwned.txt"]);
  execFileSync("gzip", [file]);
  const target = path.join(work, "d", "data");
  await expect(
    restore({
      file: `${file}.gz`,
      dataDir: target,
      databaseUrl: `file:${path.join(target, "rein.db")}`,
      migrationsDir: path.resolve("prisma", "migrations"),
    }),
  ).rejects.toThrow(/tar failed/);
  expect(fs.readdirSync(outside)).toEqual([]);
  expect(fs.readdirSync(target)).toEqual([]);
  for (const dir of [src, second, outside]) fs.rmSync(dir, { recursive: true, force: true });
});
