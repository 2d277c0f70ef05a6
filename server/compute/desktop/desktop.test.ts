// One operative desktop with real programs: Xvfb, openbox, Chromium and
// x11vnc start, answer their probes and leave nothing behind when stopped;
// VNC listens on loopback only and wants the password; a crashed Chromium is
// restarted, and a desktop whose Xvfb or x11vnc dies ends with the reason;
// check() trusts a recent full probe for the light one, and only then.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { processGone, waitFor } from "@/test/helpers/wait";
import { SECURITY_NONE, SECURITY_VNC_AUTH, readScreen, rfbConnect, rfbLogin } from "@/test/helpers/rfb";
import { listenersOn, unixSocketAnswers } from "@/test/helpers/listeners";
import { OperativeDesktop } from "./desktop";
import { groupMembers, processesMentioning } from "./processes";
import { checkDesktopPrograms } from "./programs";
import { unattachedSegmentsOf } from "./shm";
import { xSocketPath } from "./x11";

let base: string;
const started: OperativeDesktop[] = [];

async function start(): Promise<OperativeDesktop> {
  const desktop = await OperativeDesktop.start({ dir: fs.mkdtempSync(path.join(base, "desk-")), width: 1024, height: 700 });
  started.push(desktop);
  return desktop;
}

/** Processes whose environment says they draw on this display. */
function onDisplay(display: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .flatMap((pid) => {
      try {
        const env = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        return env.includes(`DISPLAY=${display}`) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z" ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

/**
 * The processes of the browser's sandbox: its own PID namespace, which the
 * crash handler stays in when it leaves the browser's process group.
 */
function inBrowserSandbox(d: OperativeDesktop): number[] {
  const nsOf = (pid: number | string) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/ns/pid`);
    } catch {
      return null;
    }
  };
  const leader = d.processes().find((p) => p.name === "chromium")!.pid;
  const ns = groupMembers(leader)
    .map(nsOf)
    .find((n) => n && n !== nsOf("self"));
  if (!ns) return [];
  return fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e) && nsOf(e) === ns)
    .map(Number);
}

/** Every process of the desktop now (its programs and their helpers). */
const pidsOf = (d: OperativeDesktop) => [
  ...new Set([
    ...d.processes().flatMap((p) => [p.pid, ...groupMembers(p.pid)]),
    ...processesMentioning(d.dir + "/"),
    ...inBrowserSandbox(d),
  ]),
];

/** Nothing of the desktop runs any more and its files are gone, shared memory included. */
async function expectNothingLeft(d: OperativeDesktop, groups: number[], number: number, pids: number[] = groups) {
  await waitFor(() => groups.every((g) => groupMembers(g).length === 0), "the desktop's process groups to be empty", { limitMs: 10_000 });
  // x11vnc's MIT-SHM segments, which a killed x11vnc leaves and which would fill the machine's limit.
  expect(unattachedSegmentsOf(pids)).toEqual([]);
  expect(processesMentioning(d.dir + "/")).toEqual([]);
  expect(onDisplay(`:${number}`)).toEqual([]);
  expect(fs.existsSync(d.dir)).toBe(false);
  expect(fs.existsSync(`/tmp/.X${number}-lock`)).toBe(false);
  // No stale socket: one that exists now belongs to another server that took the number, and answers.
  if (fs.existsSync(xSocketPath(number))) expect(await unixSocketAnswers(xSocketPath(number))).toBe(true);
}

beforeAll(() => {
  const missing = checkDesktopPrograms();
  if (missing) throw new Error(`These tests need the desktop's programs. ${missing}`);
  base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-desktop-"));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((d) => d.stop()));
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe("OperativeDesktop", () => {
  it("starts Xvfb, openbox, Chromium and x11vnc, answers all probes, and stopping leaves nothing behind", { timeout: 60_000 }, async () => {
    const d = await start();
    expect(d.display).toMatch(/^:\d+$/);
    const number = Number(d.display.slice(1));
    expect(d.readyMs).toBeGreaterThan(0);
    expect(d.vncPassword).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(d.cdpEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await d.probe();
    expect(fs.existsSync(xSocketPath(number))).toBe(true);
    // The password file was read and removed; the password is on no command line.
    expect(fs.existsSync(path.join(d.dir, "vnc-password"))).toBe(false);
    const names = d
      .processes()
      .map((p) => p.name)
      .sort();
    expect(names).toEqual(["Xvfb", "chromium", "openbox", "x11vnc"]);
    for (const p of d.processes()) expect(fs.readFileSync(`/proc/${p.pid}/cmdline`, "utf8")).not.toContain(d.vncPassword);
    // Chromium draws on the desktop's display, with its DevTools on loopback.
    const version = (await (await fetch(`${d.cdpEndpoint}/json/version`)).json()) as { Browser: string };
    expect(version.Browser).toMatch(/Chrome/);
    const chromium = d.processes().find((p) => p.name === "chromium")!;
    expect(fs.readFileSync(`/proc/${chromium.pid}/environ`, "utf8").split("\0")).toContain(`DISPLAY=${d.display}`);
    // The page the agent works in is in that browser.
    const page = await d.page();
    await page.setContent("<h1>on the desktop</h1>");
    expect(await page.textContent("h1")).toBe("on the desktop");
    expect(await d.page()).toBe(page);

    const groups = d.processes().map((p) => p.pid);
    const helpers = [...new Set([...processesMentioning(d.dir + "/"), ...inBrowserSandbox(d)])];
    const pids = pidsOf(d);
    expect(helpers.length).toBeGreaterThan(groups.length); // Chromium's helpers too
    let exitReason = "";
    d.onExit((r) => (exitReason = r));
    await d.stop("the test is over");
    expect(exitReason).toBe("the test is over");
    expect(d.status()).toMatchObject({ state: "ended", reason: "the test is over" });
    expect(d.alive()).toBe(false);
    await expect(d.probe()).rejects.toThrow(/stopped/);
    await expect(d.page()).rejects.toMatchObject({ code: "DESKTOP_ENDED" });
    await expectNothingLeft(d, groups, number, pids);
    expect(helpers.filter((pid) => !processGone(pid))).toEqual([]);
  });

  it("listens for VNC on 127.0.0.1 only and demands the password (VNC authentication, not None)", { timeout: 60_000 }, async () => {
    const d = await start();
    expect(listenersOn(d.vncPort)).toEqual([{ address: "127.0.0.1", family: 4 }]);
    // Not reachable at the machine's other addresses.
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === "IPv4" && !i.internal);
    if (external) await expect(rfbConnect(d.vncPort, external.address)).rejects.toThrow(/ECONNREFUSED/);
    const conn = await rfbConnect(d.vncPort);
    expect(conn.version).toBe("RFB 003.008");
    expect(conn.securityTypes).toContain(SECURITY_VNC_AUTH);
    expect(conn.securityTypes).not.toContain(SECURITY_NONE);
    conn.socket.destroy();
    const wrong = d.vncPassword.split("").reverse().join("") === d.vncPassword ? "wrong-pw" : d.vncPassword.split("").reverse().join("");
    await expect(rfbLogin(d.vncPort, wrong)).rejects.toThrow(/authentication failed/);
    const session = await rfbLogin(d.vncPort, d.vncPassword);
    expect({ width: session.width, height: session.height }).toEqual({ width: 1024, height: 700 });
    // What the agent's page shows is on the screen VNC serves: Chromium draws on the desktop's display.
    const page = await d.page();
    await page.setContent("<body style='margin:0;background:#ff00ff'></body>");
    await waitFor(
      async () => {
        const rgb = await readScreen(session);
        let magenta = 0;
        for (let i = 0; i < rgb.length; i += 3) if (rgb[i] === 255 && rgb[i + 1] === 0 && rgb[i + 2] === 255) magenta++;
        return magenta > 0.5 * session.width * session.height;
      },
      "the page's colour on the VNC screen",
      { limitMs: 10_000, intervalMs: 100 },
    );
    session.socket.destroy();
  });

  it("restarts a crashed Chromium (reported in its status) and ends the desktop when it keeps crashing", { timeout: 90_000 }, async () => {
    const d = await start();
    const statuses: string[] = [];
    d.onStatus((s) => statuses.push(`${s.state}:${s.browserRestarts}`));
    const firstEndpoint = d.cdpEndpoint;
    const first = d.processes().find((p) => p.name === "chromium")!;
    process.kill(first.pid, "SIGKILL");
    await waitFor(() => d.status().state === "ready" && d.status().browserRestarts === 1, "Chromium to be restarted", { limitMs: 30_000 });
    expect(statuses).toEqual(["restarting_browser:1", "ready:1"]);
    expect(d.status().reason).toMatch(/Chromium was restarted after: Chromium killed by SIGKILL/);
    expect(groupMembers(first.pid)).toEqual([]); // the old browser's helpers went with it
    await d.probe();
    expect(d.cdpEndpoint).not.toBe(firstEndpoint);
    // The agent's page is in the new browser.
    const page = await d.page();
    await page.setContent("<p>after the crash</p>");
    expect(await page.textContent("p")).toBe("after the crash");

    let reason = "";
    d.onExit((r) => (reason = r));
    process.kill(d.processes().find((p) => p.name === "chromium")!.pid, "SIGKILL");
    await waitFor(() => d.status().browserRestarts === 2 && d.status().state === "ready", "the second restart", { limitMs: 30_000 });
    const groups = d.processes().map((p) => p.pid);
    const number = Number(d.display.slice(1));
    process.kill(d.processes().find((p) => p.name === "chromium")!.pid, "SIGKILL");
    await waitFor(() => reason, "the desktop to end", { limitMs: 30_000 });
    expect(reason).toMatch(/^Chromium killed by SIGKILL.*; it was restarted 2 times already$/);
    expect(d.status().state).toBe("ended");
    await expectNothingLeft(d, groups, number);
  });

  it(
    "check(): after a recent full probe only the light one (programs run, X answers, VNC takes a connection); the full probe after that",
    { timeout: 60_000 },
    async () => {
      const d = await start(); // its start ended with a full probe
      const vnc = d.processes().find((p) => p.name === "x11vnc")!;
      // Hung: still running, its port still takes connections, it never greets.
      process.kill(vnc.pid, "SIGSTOP");
      try {
        await d.check();
        await expect(d.check(0)).rejects.toMatchObject({ code: "DESKTOP_ENDED", message: expect.stringMatching(/sent no RFB version/) });
      } finally {
        process.kill(vnc.pid, "SIGCONT");
      }
      await d.check(0);
      // Dead, before the desktop has noticed (the event loop has not run since): the light check says so.
      process.kill(vnc.pid, "SIGKILL");
      const deadline = Date.now() + 10_000;
      while (!processGone(vnc.pid)) if (Date.now() > deadline) throw new Error("x11vnc did not die");
      expect(d.alive()).toBe(true);
      await expect(d.check()).rejects.toMatchObject({ code: "DESKTOP_ENDED", message: expect.stringMatching(/x11vnc is not running/) });
    },
  );

  it.each([
    { name: "Xvfb", reason: /^the X server \(Xvfb\) killed by SIGKILL/ },
    { name: "x11vnc", reason: /^the VNC server \(x11vnc\) killed by SIGKILL/ },
  ])("ends the desktop, with the reason, when $name dies", { timeout: 60_000 }, async ({ name, reason }) => {
    const d = await start();
    const groups = d.processes().map((p) => p.pid);
    const pids = pidsOf(d);
    const number = Number(d.display.slice(1));
    let why = "";
    d.onExit((r) => (why = r));
    process.kill(d.processes().find((p) => p.name === name)!.pid, "SIGKILL");
    await waitFor(() => why, "the desktop to end", { limitMs: 20_000 });
    expect(why).toMatch(reason);
    // A killed Xvfb cannot remove its socket, nor a killed x11vnc its shared memory; the desktop does.
    await expectNothingLeft(d, groups, number, pids);
  });
});
