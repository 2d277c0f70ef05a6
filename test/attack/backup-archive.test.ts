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

it("refuses a file that is not a backup, one that names paths outside the data directory, and one a newer Rein made", async () => {
  const databaseUrl = (dir: string) => `file:${path.join(dir, "rein.db")}`;
  const migrationsDir = path.resolve("prisma", "migrations");
  const attempt = (file: string, dir: string) => restore({ file, dataDir: dir, databaseUrl: databaseUrl(dir), migrationsDir });
  const src = makeTempDir("rein-backup-src-");
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
