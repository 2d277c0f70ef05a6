import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DiskWatch, duSizes } from "./disk-watch";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function folder(bytes: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-disk-watch-"));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, "data.bin"), Buffer.alloc(bytes));
  return dir;
}

describe("DiskWatch", () => {
  it("measures every watched workspace in one call and stops only those past their limit", async () => {
    const calls: string[][] = [];
    const sizes = new Map([
      ["/w/a", 10],
      ["/w/b", 500],
    ]);
    const watch = new DiskWatch(60_000, async (d) => (calls.push(d), sizes));
    const over: string[] = [];
    const stopA = watch.watch({ dir: () => "/w/a", limitBytes: 100, over: () => over.push("a") });
    watch.watch({ dir: () => "/w/b", limitBytes: 100, over: (bytes) => over.push(`b ${bytes}`) });
    await watch.check();
    expect(calls).toEqual([["/w/a", "/w/b"]]);
    expect(over).toEqual(["b 500"]);
    // A workspace no longer watched is not measured.
    stopA();
    expect(watch.size).toBe(1);
    await watch.check();
    expect(calls[1]).toEqual(["/w/b"]);
  });

  it("follows a workspace that moved, and measures a folder shared by two pods once", async () => {
    const calls: string[][] = [];
    const watch = new DiskWatch(60_000, async (d) => (calls.push(d), new Map()));
    let dir = "/pods/warm-1";
    watch.watch({ dir: () => dir, limitBytes: 1, over: () => {} });
    watch.watch({ dir: () => "/w/x", limitBytes: 1, over: () => {} });
    watch.watch({ dir: () => "/w/x", limitBytes: 1, over: () => {} });
    await watch.check();
    dir = "/workspaces/run-1";
    await watch.check();
    expect(calls).toEqual([
      ["/pods/warm-1", "/w/x"],
      ["/workspaces/run-1", "/w/x"],
    ]);
  });

  it("starts no second measurement while one is still going, and a failed one stops nothing", async () => {
    let release: (m: Map<string, number>) => void = () => {};
    let calls = 0;
    const watch = new DiskWatch(60_000, () => {
      calls++;
      return new Promise((r) => (release = r));
    });
    const over: number[] = [];
    watch.watch({ dir: () => "/w/a", limitBytes: 100, over: (b) => over.push(b) });
    const first = watch.check();
    await watch.check();
    expect(calls).toBe(1);
    release(new Map([["/w/a", 101]]));
    await first;
    expect(over).toEqual([101]);

    const failing = new DiskWatch(60_000, () => Promise.reject(new Error("du is gone")));
    failing.watch({ dir: () => "/w/a", limitBytes: 0, over: (b) => over.push(b) });
    await expect(failing.check()).resolves.toBeUndefined();
    expect(over).toEqual([101]);
  });
});

describe("duSizes", () => {
  it("gives each folder's size from one du, leaving out a folder that is gone", async () => {
    const small = folder(1_000);
    const big = folder(300_000);
    const gone = path.join(os.tmpdir(), `rein-disk-watch-gone-${process.pid}`);
    const sizes = await duSizes([small, gone, big]);
    expect(sizes.has(gone)).toBe(false);
    expect(sizes.get(small)).toBeGreaterThanOrEqual(1_000);
    expect(sizes.get(big)).toBeGreaterThanOrEqual(300_000);
    expect(sizes.get(big)!).toBeGreaterThan(sizes.get(small)!);
    expect(await duSizes([])).toEqual(new Map());
  });
});
