// One operative desktop: Xvfb, openbox, Chromium on that display and x11vnc
// on loopback, each in its own process group, with its files under one
// directory that goes when the desktop does.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Browser as PwBrowser, Page } from "playwright-core";
import { EGRESS_SOCKET, SANDBOX_DOWNLOADS } from "./browser-sandbox";
import { probeCdp, startChromium, type Browser, type BrowserSandbox } from "./chromium";
import { startEgressProxy, type EgressProxy } from "../egress/proxy";
import { jailMode } from "../files/jail";
import {
  describeExit,
  groupMembers,
  killMentioningUntilGone,
  processRunning,
  processesMentioning,
  spawnGroup,
  stopGroup,
  type GroupProcess,
} from "./processes";
import { removeSharedMemoryOf } from "./shm";
import { DESKTOP_PATH } from "./programs";
import { forgetDesktop, recordDesktop } from "./stale";
import { DesktopError, type DesktopDownloads, type DesktopHandle, type DesktopStatus } from "./types";
import { freeLoopbackPort, probeRfb, randomVncPassword, startX11vnc, vncAccepts, type VncServer } from "./vnc";
import { probeX, removeDisplayFiles, startXvfb, type XServer } from "./x11";

const STEP_TIMEOUT_MS = 15_000;
/** Each probe's wait for an answer; generous, because a busy machine is not a dead desktop. */
const PROBE_TIMEOUT_MS = 5_000;
/**
 * How long a passed full probe vouches for a desktop: within it, check() only
 * makes sure the programs still run and X and VNC take a connection (x11vnc
 * takes 100-300 ms to greet a new client; the light check a few ms).
 */
export const PROBE_TRUSTED_MS = 30_000;
/** Waits before Chromium's first and second restart; a third crash ends the desktop. */
const BROWSER_RESTART_BACKOFF_MS = [500, 2000];
/** A browser that ran this long before crashing starts with a clean restart count. */
const BROWSER_STABLE_MS = 5 * 60_000;
const OPENBOX_RESTARTS = 3;

export interface DesktopStartOptions {
  /** The desktop's own directory (created; removed when it stops). */
  dir: string;
  width: number;
  height: number;
  id?: string;
}

/** Nothing of the server's environment (its secrets) reaches the desktop's programs. */
function desktopEnv(dir: string, display?: number): Record<string, string> {
  return {
    PATH: DESKTOP_PATH,
    HOME: dir,
    LANG: "C.UTF-8",
    XDG_CONFIG_HOME: path.join(dir, ".config"),
    XDG_CACHE_HOME: path.join(dir, ".cache"),
    ...(display === undefined ? {} : { DISPLAY: `:${display}` }),
  };
}

export class OperativeDesktop implements DesktopHandle {
  readonly id: string;
  readonly width: number;
  readonly height: number;
  readonly dir: string;
  readonly vncPassword = randomVncPassword();
  readyMs = 0;
  private x!: XServer;
  private vnc!: VncServer;
  private browser!: Browser;
  private egress: EgressProxy | null = null;
  private openbox: GroupProcess | null = null;
  private openboxRestarts = 0;
  private browserStartedAt = 0;
  private current: DesktopStatus = { state: "ready", browserRestarts: 0 };
  private restarting: Promise<void> | null = null;
  private connection: Promise<PwBrowser> | null = null;
  private agentPage: Page | null = null;
  private ending: Promise<void> | null = null;
  /** When the last full probe passed (performance.now()); 0 before the first. */
  private probedAt = 0;
  private readonly exitListeners = new Set<(reason: string) => void>();
  private readonly statusListeners = new Set<(status: DesktopStatus) => void>();
  /** Every program started, restarts included: a killed one's shared memory is removed at the end. */
  private readonly spawned: number[] = [];
  private readonly track = (pid: number) => {
    this.spawned.push(pid);
    this.record();
  };

  private constructor(options: DesktopStartOptions) {
    this.id = options.id ?? `desk-${crypto.randomBytes(6).toString("hex")}`;
    // Absolute: the directory also finds the desktop's processes by their command lines.
    this.dir = path.resolve(options.dir);
    this.width = options.width;
    this.height = options.height;
  }

  static async start(options: DesktopStartOptions): Promise<OperativeDesktop> {
    const desktop = new OperativeDesktop(options);
    const t0 = performance.now();
    try {
      await desktop.boot();
    } catch (err) {
      await desktop.stop("start failed");
      throw err instanceof DesktopError
        ? err
        : new DesktopError("DESKTOP_START_FAILED", `The desktop did not start: ${(err as Error).message}`);
    }
    desktop.readyMs = performance.now() - t0;
    return desktop;
  }

  get display() {
    return `:${this.x.number}`;
  }

  get vncPort() {
    return this.vnc.port;
  }

  get cdpEndpoint() {
    return this.browser.cdpEndpoint;
  }

  private get profileDir() {
    return path.join(this.dir, "profile");
  }

  /** The egress proxy's socket and the browser's DevTools socket: the only folder of Rein's the browser shares. */
  private get netDir() {
    return path.join(this.dir, "net");
  }

  get downloads(): DesktopDownloads {
    const hostDir = path.join(this.dir, "downloads");
    return { hostDir, browserDir: this.egress ? SANDBOX_DOWNLOADS : hostDir };
  }

  /** With bubblewrap, the browser runs in its sandbox, in a network of its own; without, as any program. */
  private sandbox(): BrowserSandbox | undefined {
    return this.egress ? { downloadsDir: this.downloads.hostDir, netDir: this.netDir, display: this.x.number } : undefined;
  }

  private async boot() {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.x = await startXvfb({
      width: this.width,
      height: this.height,
      env: desktopEnv(this.dir),
      timeoutMs: STEP_TIMEOUT_MS,
      onSpawn: this.track,
    });
    this.record();
    this.watch(this.x.proc, (exit) => void this.end(`the X server (Xvfb) ${describeExit(exit)}${tailOf(this.x.tail.text())}`));
    const env = desktopEnv(this.dir, this.x.number);
    this.startOpenbox(env);
    // The browser gets a network of its own whose only way out is Rein's egress proxy (no host loopback, no private ranges).
    fs.mkdirSync(this.downloads.hostDir, { mode: 0o700 });
    if (jailMode().kind === "bubblewrap") {
      fs.mkdirSync(this.netDir, { mode: 0o700 });
      this.egress = await startEgressProxy(path.join(this.netDir, EGRESS_SOCKET));
    }
    const [vnc, browser] = await Promise.allSettled([
      this.startVnc(env),
      startChromium({
        profileDir: this.profileDir,
        width: this.width,
        height: this.height,
        env,
        timeoutMs: STEP_TIMEOUT_MS,
        onSpawn: this.track,
        sandbox: this.sandbox(),
      }),
    ]);
    // Keep whichever started, so stop() ends it when the other did not.
    if (vnc.status === "fulfilled") {
      this.vnc = vnc.value;
      this.watch(vnc.value.proc, (exit) => void this.end(`the VNC server (x11vnc) ${describeExit(exit)}${tailOf(vnc.value.tail.text())}`));
    }
    if (browser.status === "fulfilled") this.adoptBrowser(browser.value);
    if (vnc.status === "rejected") throw vnc.reason;
    if (browser.status === "rejected") throw browser.reason;
    this.record();
    // All three answered once already; on a busy machine x11vnc may greet a little late, so ask until the deadline.
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      try {
        return await this.probe();
      } catch (err) {
        if (this.ending || Date.now() > deadline) throw err;
      }
    }
  }

  /** A port that was free a moment ago may be taken by the time x11vnc binds it: try another. */
  private async startVnc(env: Record<string, string>): Promise<VncServer> {
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      try {
        return await startX11vnc({
          display: this.x.number,
          port,
          password: this.vncPassword,
          dir: this.dir,
          env,
          timeoutMs: STEP_TIMEOUT_MS,
          onSpawn: this.track,
        });
      } catch (err) {
        if (attempt >= 3 || this.ending) throw err;
      }
    }
  }

  private startOpenbox(env: Record<string, string>) {
    const wm = spawnGroup("openbox", "openbox", ["--sm-disable"], { env });
    this.openbox = wm;
    this.track(wm.pid);
    // The desktop works without a window manager (windows lose their frames), so a crash ends nothing.
    this.watch(wm, () => {
      if (this.openboxRestarts++ < OPENBOX_RESTARTS) setTimeout(() => !this.ending && this.startOpenbox(env), 500);
    });
  }

  private adoptBrowser(browser: Browser) {
    this.browser = browser;
    this.browserStartedAt = Date.now();
    this.watch(browser.proc, (exit) => this.onBrowserExit(`Chromium ${describeExit(exit)}${tailOf(browser.tail.text())}`));
  }

  /** Calls `onExit` when the program ends by itself, not while the desktop is being stopped. */
  private watch(proc: GroupProcess, onExit: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void) {
    void proc.exited.then((exit) => {
      if (!this.ending) onExit(exit);
    });
  }

  /** What runs now, in the machine's registry, so a server started after this one is killed can clean up (stale.ts). */
  private record() {
    if (!this.x || this.ending) return;
    recordDesktop(
      this.id,
      this.dir,
      this.x.number,
      [this.x.proc, this.vnc?.proc, this.browser?.proc, this.openbox].filter((p): p is GroupProcess => !!p),
      this.spawned,
    );
  }

  private onBrowserExit(why: string) {
    if (this.ending || this.restarting) return;
    if (Date.now() - this.browserStartedAt > BROWSER_STABLE_MS) this.current.browserRestarts = 0;
    const attempt = this.current.browserRestarts;
    if (attempt >= BROWSER_RESTART_BACKOFF_MS.length) {
      void this.end(`${why}; it was restarted ${attempt} times already`);
      return;
    }
    this.setStatus({ state: "restarting_browser", reason: why, browserRestarts: attempt + 1 });
    this.dropConnection();
    const old = this.browser.proc;
    this.restarting = (async () => {
      await stopGroup(old); // its helpers too
      await new Promise((r) => setTimeout(r, BROWSER_RESTART_BACKOFF_MS[attempt]));
      if (this.ending) return;
      const env = desktopEnv(this.dir, this.x.number);
      const browser = await startChromium({
        profileDir: this.profileDir,
        width: this.width,
        height: this.height,
        env,
        timeoutMs: STEP_TIMEOUT_MS,
        onSpawn: this.track,
        sandbox: this.sandbox(),
      });
      if (this.ending) return void (await stopGroup(browser.proc));
      this.adoptBrowser(browser);
      this.record();
      this.setStatus({ state: "ready", reason: `Chromium was restarted after: ${why}`, browserRestarts: attempt + 1 });
    })()
      .catch((err) => void this.end(`${why}, and could not be restarted: ${(err as Error).message}`))
      .finally(() => (this.restarting = null));
  }

  private setStatus(status: DesktopStatus) {
    this.current = status;
    this.statusListeners.forEach((l) => l({ ...status }));
  }

  status(): DesktopStatus {
    return { ...this.current };
  }

  onStatus(cb: (status: DesktopStatus) => void) {
    this.statusListeners.add(cb);
    return () => void this.statusListeners.delete(cb);
  }

  onExit(cb: (reason: string) => void) {
    this.exitListeners.add(cb);
    return () => void this.exitListeners.delete(cb);
  }

  alive() {
    return !this.ending;
  }

  /** The desktop's programs now, each the leader of its own process group. */
  processes(): Array<{ name: string; pid: number }> {
    return [this.x?.proc, this.openbox, this.vnc?.proc, this.browser?.proc]
      .filter((p): p is GroupProcess => !!p && p.alive())
      .map((p) => ({ name: p.name, pid: p.pid }));
  }

  async probe(): Promise<void> {
    this.throwIfEnded();
    const started = performance.now();
    try {
      await Promise.all([
        probeX(this.x.number, PROBE_TIMEOUT_MS),
        probeRfb(this.vnc.port, PROBE_TIMEOUT_MS),
        this.restarting ? Promise.reject(new Error("Chromium is restarting")) : probeCdp(this.browser.cdpEndpoint, PROBE_TIMEOUT_MS),
      ]);
    } catch (err) {
      throw new DesktopError("DESKTOP_ENDED", `The desktop ${this.id} is not live: ${(err as Error).message}`);
    }
    this.throwIfEnded();
    this.probedAt = started;
  }

  async check(trustedMs = PROBE_TRUSTED_MS): Promise<void> {
    this.throwIfEnded();
    if (!this.probedAt || performance.now() - this.probedAt > trustedMs) return this.probe();
    try {
      if (this.restarting) throw new Error("Chromium is restarting");
      // Read from /proc: a program killed a moment ago is dead before its exit event reaches us.
      const gone = [this.x.proc, this.vnc.proc, this.browser.proc].find((p) => !p.alive() || !processRunning(p.pid));
      if (gone) throw new Error(`${gone.name} is not running`);
      await Promise.all([probeX(this.x.number, PROBE_TIMEOUT_MS), vncAccepts(this.vnc.port, PROBE_TIMEOUT_MS)]);
    } catch (err) {
      throw new DesktopError("DESKTOP_ENDED", `The desktop ${this.id} is not live: ${(err as Error).message}`);
    }
    this.throwIfEnded();
  }

  private throwIfEnded() {
    if (this.ending) throw new DesktopError("DESKTOP_ENDED", `The desktop has stopped: ${this.current.reason ?? "it was stopped"}`);
  }

  async page(): Promise<Page> {
    if (this.restarting) await this.restarting;
    if (this.ending) throw new DesktopError("DESKTOP_ENDED", `The desktop has stopped: ${this.current.reason ?? "it was stopped"}`);
    if (this.agentPage && !this.agentPage.isClosed()) return this.agentPage;
    const browser = await this.connect();
    const context = browser.contexts()[0];
    if (!context) throw new DesktopError("DESKTOP_ENDED", "Chromium on the desktop has no browser window");
    // The tab Chromium opened at start; a new one if a person closed it.
    const page = context.pages().find((p) => !p.isClosed()) ?? (await context.newPage());
    this.agentPage = page;
    return page;
  }

  private connect(): Promise<PwBrowser> {
    if (!this.connection) {
      const endpoint = this.browser.cdpEndpoint;
      const made = import("playwright-core").then(({ chromium }) => chromium.connectOverCDP(endpoint, { timeout: STEP_TIMEOUT_MS }));
      this.connection = made;
      made.then(
        (b) => b.on("disconnected", () => this.connection === made && this.dropConnection()),
        () => this.connection === made && this.dropConnection(),
      );
    }
    return this.connection;
  }

  private dropConnection() {
    const old = this.connection;
    this.connection = null;
    this.agentPage = null;
    // Only the connection: the browser itself is ended through its process group.
    void old?.then((b) => b.removeAllListeners("disconnected")).catch(() => {});
  }

  /** Ends the desktop and everything it started; removes its files. Waits until all of it is gone. */
  stop(reason = "it was stopped"): Promise<void> {
    return this.end(reason);
  }

  private end(reason: string): Promise<void> {
    if (this.ending) return this.ending;
    this.ending = (async () => {
      this.dropConnection();
      // Every process of the desktop, for the shared memory they may leave (shm.ts).
      const leaders = [this.browser?.proc, this.vnc?.proc, this.openbox, this.x?.proc].filter((p): p is GroupProcess => !!p);
      const pids = [...this.spawned, ...leaders.flatMap((p) => groupMembers(p.pid)), ...processesMentioning(this.dir + "/")];
      // x11vnc removes its shared memory when it may exit by itself.
      const vnc = this.vnc?.proc;
      await Promise.all([
        ...[this.browser?.proc, this.openbox].filter((p): p is GroupProcess => !!p).map((p) => stopGroup(p)),
        ...(vnc ? [stopGroup(vnc, { signal: "SIGTERM", graceMs: 2000 })] : []),
      ]);
      // Whatever left its group but still works in the desktop's directory (an unsandboxed Chromium's crash
      // handler), until it is gone. A sandboxed browser's processes end with its PID namespace.
      await killMentioningUntilGone(this.dir + "/");
      await this.egress?.close();
      if (this.x) {
        // SIGTERM lets Xvfb remove its own socket; whatever it leaves is removed after.
        await stopGroup(this.x.proc, { signal: "SIGTERM", graceMs: 3000 });
        removeDisplayFiles(this.x.number, this.x.proc.pid, this.x.socket);
      }
      await removeSharedMemoryOf(pids);
      fs.rmSync(this.dir, { recursive: true, force: true });
      forgetDesktop(this.id);
      this.setStatus({ state: "ended", reason, browserRestarts: this.current.browserRestarts });
      this.exitListeners.forEach((l) => l(reason));
      this.exitListeners.clear();
    })();
    return this.ending;
  }
}

function tailOf(text: string): string {
  const last = text.split("\n").slice(-3).join(" | ").trim();
  return last ? ` (${last.slice(-300)})` : "";
}
