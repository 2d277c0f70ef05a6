// Taking a download out of the browser's folder: a regular file is copied; a
// link to a host file, a FIFO or a folder the browser put there is refused
// without reading what it points to, and without waiting.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOWNLOAD_ID, removeDownload, takeDownload } from "./downloads";

let dir: string;
let saved: string;
let kept: string;
let secret: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-downloads-"));
  saved = path.join(dir, "browser");
  kept = path.join(dir, "kept");
  fs.mkdirSync(saved);
  fs.mkdirSync(kept);
  secret = path.join(dir, "secret.key");
  fs.writeFileSync(secret, "host secret");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("takeDownload", () => {
  it("copies a regular file", async () => {
    fs.writeFileSync(path.join(saved, "a"), "report");
    await takeDownload(path.join(saved, "a"), path.join(kept, "a"));
    expect(fs.readFileSync(path.join(kept, "a"), "utf8")).toBe("report");
  });

  it("refuses a link to a host file, a FIFO and a folder, copying nothing", async () => {
    fs.symlinkSync(secret, path.join(saved, "link"));
    execFileSync("mkfifo", [path.join(saved, "fifo")]);
    fs.mkdirSync(path.join(saved, "folder"));
    for (const name of ["link", "fifo", "folder"]) {
      await expect(takeDownload(path.join(saved, name), path.join(kept, name)), name).rejects.toThrow();
      expect(fs.existsSync(path.join(kept, name)), name).toBe(false);
    }
  });

  it("never overwrites what is already at the destination", async () => {
    fs.writeFileSync(path.join(saved, "b"), "new");
    fs.writeFileSync(path.join(kept, "b"), "old");
    await expect(takeDownload(path.join(saved, "b"), path.join(kept, "b"))).rejects.toThrow(/EEXIST/);
    expect(fs.readFileSync(path.join(kept, "b"), "utf8")).toBe("old");
  });

  it("removes a link, not what it points to", async () => {
    fs.symlinkSync(secret, path.join(saved, "link2"));
    await removeDownload(path.join(saved, "link2"));
    expect(fs.existsSync(path.join(saved, "link2"))).toBe(false);
    expect(fs.readFileSync(secret, "utf8")).toBe("host secret");
  });

  it("takes only ids that name a file in the folder", () => {
    expect(DOWNLOAD_ID.test("3f1c9a52-7d4e-4b7a-9c1e-2a5b6c7d8e9f")).toBe(true);
    for (const id of ["../secret.key", "a/b", "", ".", "..", "x".repeat(65)]) expect(DOWNLOAD_ID.test(id), id).toBe(false);
  });
});
