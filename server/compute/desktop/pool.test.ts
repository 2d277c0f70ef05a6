// The desktop pool with real desktops: a warm desktop for the first run, a
// cold one when none is warm, release and stop leave nothing running, and a
// host without the programs gets a clear reason instead of a desktop.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processGone, waitFor } from "@/test/helpers/wait";
import { DesktopPool, desktopPoolSizeFromEnv } from "./pool";
import { processesMentioning } from "./processes";
import { unattachedSegmentsOf } from "./shm";
import { checkDesktopPrograms, checkDesktopSandbox } from "./programs";
import { OperativeDesktop } from "./desktop";

let base: string;

beforeAll(() => {
  const missing = checkDesktopPrograms();
  if (missing) throw new Error(`These tests need the desktop's programs. ${missing}`);
  base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-desktop-pool-"));
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** Every process working in the pool's directory (all desktops' programs and helpers). */
const running = (dataDir: string) => processesMentioning(path.join(dataDir, "desktops") + "/");

/** Each desktop's x11vnc, its port, and the Xvfb of its display (the pid in the display's lock), from /proc. */
function vncAndX(dataDir: string): Array<{ vnc: number; port: number; display: string; x: number }> {
  return running(dataDir).flatMap((pid) => {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "x11vnc") return [];
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const display = args[args.indexOf("-display") + 1];
      const x = Number.parseInt(fs.readFileSync(`/tmp/.X${display.slice(1)}-lock`, "utf8"), 10);
      return [{ vnc: pid, port: Number(args[args.indexOf("-rfbport") + 1]), display, x }];
    } catch {
      return []; // exited while we looked
    }
  });
}

/** Kills and waits, without letting the event loop run: the pool cannot have noticed yet. */
function killUnnoticed(pid: number) {
  process.kill(pid, "SIGKILL");
  const deadline = Date.now() + 10_000;
  while (!processGone(pid)) if (Date.now() > deadline) throw new Error(`process ${pid} did not die`);
}

describe("DesktopPool", () => {
  it("gives the first run a warm desktop, starts one cold when none is warm, and stops a released one", { timeout: 90_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(base, "data-"));
    const pool = new DesktopPool({ dataDir, size: 1, width: 1024, height: 700 });
    const released: string[] = [];
    pool.onReleased((runId) => released.push(runId));
    try {
      expect(pool.unavailable()).toBeNull();
      await pool.start();
      await waitFor(() => pool.stats().warm === 1, "a warm desktop", { limitMs: 30_000 });

      const warm = await pool.attach("run-warm");
      expect(warm.fromPool).toBe(true);
      expect(pool.get("run-warm")).toBe(warm.desktop);
      await warm.desktop.probe();
      // Attaching again gives the run the desktop it has.
      expect((await pool.attach("run-warm")).desktop).toBe(warm.desktop);

      // No warm desktop: the next run's is started for it.
      pool.setSize(0);
      await waitFor(() => pool.stats().starting === 0, "the refill to settle", { limitMs: 30_000 });
      const [cold, same] = await Promise.all([pool.attach("run-cold"), pool.attach("run-cold")]);
      expect(cold.fromPool).toBe(false);
      expect(same.desktop).toBe(cold.desktop); // two calls at once: one desktop
      expect(cold.startMs).toBeGreaterThan(0);
      await cold.desktop.probe();
      expect(cold.desktop.display).not.toBe(warm.desktop.display);
      expect(cold.desktop.vncPort).not.toBe(warm.desktop.vncPort);
      expect(cold.desktop.vncPassword).not.toBe(warm.desktop.vncPassword);

      let exitReason = "";
      warm.desktop.onExit((r) => (exitReason = r));
      await pool.release("run-warm");
      expect(exitReason).toBe("the run no longer needs it");
      expect(released).toEqual(["run-warm"]);
      expect(pool.get("run-warm")).toBeUndefined();
      await expect(warm.desktop.probe()).rejects.toThrow();
      expect(pool.get("run-cold")).toBe(cold.desktop);

      // A run whose desktop ends by itself loses it too, and is told.
      const xvfb = (cold.desktop as OperativeDesktop).processes().find((p) => p.name === "Xvfb")!;
      process.kill(xvfb.pid, "SIGKILL");
      await waitFor(() => released.includes("run-cold"), "the pool to notice", { limitMs: 20_000 });
      expect(pool.get("run-cold")).toBeUndefined();
    } finally {
      await pool.stop();
    }
    expect(running(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, "desktops"))).toBe(false);
  });

  it("hands out no warm desktop whose X or VNC server died: the run gets a working one", { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(base, "data-"));
    const said: string[] = [];
    const pool = new DesktopPool({ dataDir, size: 2, width: 800, height: 600, log: { info: (m) => said.push(m), error: () => {} } });
    try {
      await pool.start();
      await waitFor(() => pool.stats().warm === 2 && vncAndX(dataDir).length === 2, "two warm desktops", { limitMs: 60_000 });
      const [a, b] = vncAndX(dataDir);
      // One loses its VNC server, the other its X server; attach() runs before their exits are noticed.
      killUnnoticed(a.vnc);
      killUnnoticed(b.x);
      const attached = await pool.attach("run-after-deaths");
      expect(attached.fromPool).toBe(false);
      await attached.desktop.probe();
      expect([a.display, b.display]).not.toContain(attached.desktop.display);
      expect([a.port, b.port]).not.toContain(attached.desktop.vncPort);
      const refused = said.filter((m) => m.startsWith("A warm desktop was not handed out"));
      expect(refused).toHaveLength(2);
      expect(refused.join("\n")).toMatch(/x11vnc is not running/);
      expect(refused.join("\n")).toMatch(/Xvfb is not running/);
      // Both dead ones are stopped; the pool starts others in their place.
      await waitFor(() => pool.stats().warm === 2, "the pool to refill", { limitMs: 60_000 });
      const live = vncAndX(dataDir).map((d) => d.display);
      expect(live).not.toContain(a.display);
      expect(live).not.toContain(b.display);
      expect(live).toContain(attached.desktop.display);
    } finally {
      await pool.stop();
    }
    expect(running(dataDir)).toEqual([]);
  });

  it(
    "probes warm desktops in full now and then: one whose VNC server hangs is replaced before a run gets it",
    { timeout: 120_000 },
    async () => {
      const dataDir = fs.mkdtempSync(path.join(base, "data-"));
      const said: string[] = [];
      const pool = new DesktopPool({
        dataDir,
        size: 1,
        width: 800,
        height: 600,
        probeIntervalMs: 200,
        log: { info: (m) => said.push(m), error: () => {} },
      });
      try {
        await pool.start();
        await waitFor(() => pool.stats().warm === 1 && vncAndX(dataDir).length === 1, "a warm desktop", { limitMs: 60_000 });
        const [hung] = vncAndX(dataDir);
        // Still running and its port still takes connections (the light check passes); it never greets.
        process.kill(hung.vnc, "SIGSTOP");
        await waitFor(
          () => said.find((m) => m.startsWith("A warm desktop was stopped: it stopped answering while warm")),
          "the pool to drop it",
          { limitMs: 30_000 },
        );
        expect(said.join("\n")).toMatch(/sent no RFB version/);
        await waitFor(() => pool.stats().warm === 1, "a new warm desktop", { limitMs: 60_000 });
        const attached = await pool.attach("run-after-hang");
        expect(attached.fromPool).toBe(true);
        expect(attached.desktop.display).not.toBe(hung.display);
        await attached.desktop.probe();
      } finally {
        await pool.stop();
      }
      expect(running(dataDir)).toEqual([]);
    },
  );

  it("stop() while desktops are still starting waits for them and leaves nothing running", { timeout: 60_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(base, "data-"));
    const pool = new DesktopPool({ dataDir, size: 2 });
    await pool.start();
    expect(pool.stats().starting).toBe(2);
    const attaching = pool.attach("run-during-stop");
    await pool.stop();
    await expect(attaching).rejects.toMatchObject({ code: "DESKTOP_UNAVAILABLE" });
    expect(running(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, "desktops"))).toBe(false);
    await expect(pool.attach("run-after-stop")).rejects.toThrow(/stopping/);
  });

  it(
    "after a server is killed with a desktop running: its programs die with it, and the next pool to start, in any data directory, cleans up after it",
    { timeout: 60_000 },
    async () => {
      const deadDataDir = fs.mkdtempSync(path.join(base, "data-"));
      const dir = path.join(deadDataDir, "desktops", "desk-left-behind");
      const server = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "__fixtures__", "hold-desktop.ts"), dir], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      server.stdout.on("data", (c: Buffer) => (out += c));
      server.stderr.on("data", (c: Buffer) => (err += c));
      const line = await waitFor(() => out.split("\n").find((l) => l.startsWith("{")), "the desktop in the stand-in server", {
        limitMs: 30_000,
      }).catch((e: Error) => {
        throw new Error(`${e.message}: ${err}`);
      });
      const left = JSON.parse(line) as { display: number; leaders: number[]; pids: number[] };
      const lock = `/tmp/.X${left.display}-lock`;
      const socket = `/tmp/.X11-unix/X${left.display}`;
      // A desktop of a server that is running (this one) must come through the clean-up untouched.
      const live = await OperativeDesktop.start({ dir: path.join(base, "live-desktop"), width: 800, height: 600 });
      server.kill("SIGKILL");
      // The parent-death signal: every program of the desktop dies with the server.
      await waitFor(() => left.pids.every((pid) => processGone(pid)), "the desktop's processes to die with the server", {
        limitMs: 15_000,
      });
      // What a killed Xvfb and x11vnc leave: the display's lock and socket, and shared memory.
      expect(fs.existsSync(lock)).toBe(true);
      expect(fs.existsSync(socket)).toBe(true);
      expect(unattachedSegmentsOf(left.pids).length).toBeGreaterThan(0);
      // Its data directory is gone too (a test's temporary one, say): the pool of another one cleans up.
      fs.rmSync(deadDataDir, { recursive: true, force: true });

      const pool = new DesktopPool({ dataDir: fs.mkdtempSync(path.join(base, "data-")), size: 0 });
      await pool.start();
      try {
        expect(fs.existsSync(lock)).toBe(false);
        expect(fs.existsSync(socket)).toBe(false);
        expect(unattachedSegmentsOf(left.pids)).toEqual([]);
        await live.probe();
        expect(live.alive()).toBe(true);
      } finally {
        await pool.stop();
        await live.stop();
      }
    },
  );

  it("says why there are no desktops when the programs are missing, and starts none", async () => {
    const dataDir = fs.mkdtempSync(path.join(base, "data-"));
    const pool = new DesktopPool({ dataDir, size: 1, searchPath: path.join(base, "no-programs-here") });
    expect(pool.unavailable()).toBe(
      "Desktops (T2) are unavailable: Xvfb, openbox, x11vnc, chromium, setpriv are not installed: apt-get install xvfb openbox x11vnc chromium util-linux",
    );
    await pool.start();
    expect(pool.stats()).toMatchObject({ warm: 0, starting: 0 });
    await expect(pool.attach("run-1")).rejects.toMatchObject({ code: "DESKTOP_UNAVAILABLE", message: pool.unavailable() });
    await pool.stop();
  });

  it("takes its size from REIN_DESKTOP_POOL_SIZE (default 1) and refuses bad sizes", () => {
    expect(desktopPoolSizeFromEnv(undefined)).toBe(1);
    expect(desktopPoolSizeFromEnv("3")).toBe(3);
    expect(desktopPoolSizeFromEnv("0")).toBe(0);
    for (const bad of ["-1", "1.5", "many", "17"])
      expect(() => desktopPoolSizeFromEnv(bad)).toThrow(/REIN_DESKTOP_POOL_SIZE must be a whole number from 0 to 16/);
    const pool = new DesktopPool({ dataDir: path.join(base, "unused"), size: 0 });
    expect(() => pool.setSize(-1)).toThrow(RangeError);
    expect(() => pool.setSize(2.5)).toThrow(RangeError);
  });
});

describe("checkDesktopSandbox", () => {
  it("makes desktops unavailable without bubblewrap, unless REIN_SANDBOX=none asked for no sandbox", () => {
    const why = "Terminal pods are unavailable: bubblewrap (bwrap) is not installed: apt-get install bubblewrap";
    expect(checkDesktopSandbox({ kind: "unavailable", why })).toBe(
      "Desktops (T2) are unavailable: the desktop's browser runs only in a sandbox, and bubblewrap (bwrap) is not installed: apt-get install bubblewrap (REIN_SANDBOX=none runs it without one, for development only)",
    );
    expect(checkDesktopSandbox({ kind: "none", why })).toBeNull();
    expect(checkDesktopSandbox({ kind: "bubblewrap" })).toBeNull();
  });
});
