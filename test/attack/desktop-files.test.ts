// Attack suite, issue class 14: the desktop's browser reads the host's files.
// A person who takes the desktop over types file:///… into the address bar
// (and an agent has a keyboard too); Chromium ran with the host's whole file
// system, as the server's user, so Rein's data directory (secret.key seals
// every secret), other runs' workspaces and the system's own secrets were one
// URL away. Canaries in a data directory around the desktop, in two runs'
// workspaces, beside /etc/shadow and in the home directory must never show in
// any page, nor the names of their folders in a listing, nor the host's
// other folders (other desktops' displays, the machine's devices); the
// browser's processes name no host folder. The desktop still works: an
// allowed http page loads, text renders in a real font, and a download lands
// in the run's workspace.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OperativeDesktop, configureEgress, probeSandbox } from "@/server/compute";
import { joinWorkspace } from "@/server/tiers";
import { Workspace } from "@/server/tools";
import { waitFor } from "@/test/helpers/wait";

const token = () => crypto.randomBytes(8).toString("hex");
const CANARY = {
  secretKey: `secret-key-${token()}`,
  linkKeys: `link-keys-${token()}`,
  otherRun: `other-run-${token()}`,
  thisRun: `this-run-${token()}`,
  etc: `etc-${token()}`,
  home: `home-${token()}`,
};
const sandboxed = probeSandbox().ok;

let base: string;
let dataDir: string;
let desktop: OperativeDesktop;
let browser: Browser;
let page: Page;
let site: http.Server;
let siteUrl: string;
let workspace: Workspace;
/** Files the test put outside its own folder, removed at the end. */
const planted: string[] = [];

function plant(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode: 0o600 });
}

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), `rein-attack-files-${token()}-`));
  // A data directory as the server keeps it, the desktop's own folder inside it as the pool makes it.
  dataDir = path.join(base, "data");
  plant(path.join(dataDir, "secret.key"), CANARY.secretKey);
  plant(path.join(dataDir, "link-keys.json"), JSON.stringify({ key: CANARY.linkKeys }));
  plant(path.join(dataDir, "workspaces", "other-run", "notes.txt"), CANARY.otherRun);
  workspace = new Workspace(path.join(dataDir, "workspaces", "this-run"));
  if (sandboxed) await workspace.ensure();
  plant(path.join(workspace.root, "plan.txt"), CANARY.thisRun);
  // Beside the machine's own secrets, and in the home directory of the server's user.
  const etcFile = `/etc/rein-canary-${token()}`;
  const homeFile = path.join(os.homedir(), `rein-canary-${token()}`);
  for (const [file, text] of [
    [etcFile, CANARY.etc],
    [homeFile, CANARY.home],
  ]) {
    try {
      plant(file, text);
      planted.push(file);
    } catch {
      /* not writable for this user: the other canaries stand */
    }
  }

  site = http.createServer((req, res) => {
    if (req.url === "/report.txt") {
      res.writeHead(200, { "content-type": "text/plain", "content-disposition": 'attachment; filename="report.txt"' });
      return res.end("quarterly report: 42 stickers\n");
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<!doctype html><title>Shop</title><p id="greeting" style="font: 40px sans-serif">Welcome to the shop</p><a id="dl" href="/report.txt" download>Report</a>`,
    );
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  const port = (site.address() as AddressInfo).port;
  siteUrl = `http://127.0.0.1:${port}`;
  configureEgress({ allow: [{ host: "127.0.0.1", port }] });
  if (!sandboxed) return;
  desktop = await OperativeDesktop.start({ dir: path.join(dataDir, "desktops", "desk-attack"), width: 1024, height: 700 });
  browser = await chromium.connectOverCDP(desktop.cdpEndpoint, { timeout: 20_000 });
  page = browser.contexts()[0].pages()[0] ?? (await browser.contexts()[0].newPage());
  // As a run on T2 has it: what the browser downloads is copied into the run's workspace.
  await joinWorkspace(page, workspace, desktop.downloads);
}, 90_000);

afterAll(async () => {
  await browser?.close().catch(() => {});
  await desktop?.stop();
  configureEgress({ allow: [] });
  site?.close();
  for (const file of planted) fs.rmSync(file, { force: true });
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/**
 * What the page shows for `url`: the file, the folder listing or the error
 * page. A file Chromium does not show (secret.key) it saves as a download,
 * into the run's workspace: that the download started is said too.
 */
async function visit(url: string): Promise<string> {
  // A tab of its own, so a load that fails shows nothing of the page before.
  const tab = await browser.contexts()[0].newPage();
  try {
    const failure = await tab.goto(url, { timeout: 10_000 }).then(
      () => "",
      (err: Error) => err.message,
    );
    const text = await tab.evaluate(() => document.body?.innerText ?? "").catch(() => "");
    return /download is starting/i.test(failure) ? `${text}\n(download started)` : text;
  } finally {
    await tab.close().catch(() => {});
  }
}

/** Entries a folder listing shows (Chromium's "Index of" page), or [] when it is no listing. */
async function listing(url: string): Promise<string[]> {
  const text = await visit(url);
  const lines = text.split("\n");
  const header = lines.findIndex((line) => line.startsWith("Name\tSize"));
  if (!text.startsWith("Index of") || header < 0) return [];
  return lines
    .slice(header + 1)
    .map((line) => line.split("\t")[0].trim().replace(/\/$/, ""))
    .filter(Boolean);
}

describe.skipIf(!sandboxed)("a desktop's browser and the host's files", () => {
  it("never shows a file of the data directory, of a workspace, of /etc or of the home directory", async () => {
    const shadow = (() => {
      try {
        return fs.readFileSync("/etc/shadow", "utf8").split("\n")[0];
      } catch {
        return "";
      }
    })();
    const urls = [
      path.join(dataDir, "secret.key"),
      path.join(dataDir, "link-keys.json"),
      path.join(dataDir, "workspaces", "other-run", "notes.txt"),
      path.join(workspace.root, "plan.txt"),
      ...planted,
      "/etc/shadow",
      // Through another process's view of the file system.
      `/proc/${process.pid}/root${path.join(dataDir, "workspaces", "other-run", "notes.txt")}`,
      `/proc/1/root${path.join(dataDir, "workspaces", "other-run", "notes.txt")}`,
    ].map((p) => `file://${p}`);
    const seen: string[] = [];
    for (const url of urls) {
      const text = await visit(url);
      for (const [name, canary] of Object.entries(CANARY)) if (text.includes(canary)) seen.push(`${url} shows the ${name} canary`);
      if (text.endsWith("(download started)")) seen.push(`${url} is saved as a download`);
      if (shadow && text.includes(shadow)) seen.push(`${url} shows /etc/shadow`);
    }
    expect(seen).toEqual([]);
  });

  it("lists none of the host's folders: not the data directory, the temp folder, the home directory or /", async () => {
    // Of the host's entries, a folder's listing may show only these: what a browser needs.
    const mayShow: Record<string, string[]> = {
      "/": ["bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "sys", "tmp", "usr", "var"],
      "/etc/": ["alternatives", "ca-certificates", "chromium", "chromium.d", "fonts", "ld.so.cache", "localtime", "mime.types", "ssl"],
      "/var/": ["cache"],
      "/var/cache/": ["fontconfig"],
      "/dev/": ["core", "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout", "tty", "urandom", "zero"],
      "/tmp/": [".X11-unix"],
      // Other desktops' displays are not this browser's.
      "/tmp/.X11-unix/": [`X${desktop.display.slice(1)}`],
      "/var/lib/": [],
      "/run/": [],
      "/home/": [],
      "/root/": [],
      [`${os.homedir()}/`]: [],
      [`${os.tmpdir()}/`]: [".X11-unix"],
      [`${base}/`]: [],
      [`${dataDir}/`]: [],
    };
    const seen: string[] = [];
    for (const [dir, allowed] of Object.entries(mayShow)) {
      let host: string[];
      try {
        host = fs.readdirSync(dir);
      } catch {
        continue; // not on this machine, or not readable for this user
      }
      const hostOnly = new Set(host.filter((e) => !allowed.includes(e)));
      for (const e of await listing(`file://${dir}`)) if (hostOnly.has(e)) seen.push(`${dir} lists ${e}`);
    }
    expect(seen).toEqual([]);
  });

  it("runs processes whose command lines and environments name no host folder", () => {
    // The sandbox's own processes: those in the PID namespace of the browser's bwrap.
    const nsOf = (pid: string | number) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/ns/pid`);
      } catch {
        return null;
      }
    };
    const leader = desktop.processes().find((p) => p.name === "chromium")!.pid;
    const pids = fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e));
    const parentOf = (pid: string) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      } catch {
        return 0;
      }
    };
    const inner = pids.find((pid) => parentOf(pid) === leader && nsOf(pid) !== nsOf("self"));
    expect(inner, "the browser runs in a PID namespace of its own").toBeDefined();
    const inside = pids.filter((pid) => nsOf(pid) === nsOf(inner!));
    expect(inside.length).toBeGreaterThan(2); // bwrap, the network helper, Chromium and its helpers
    const seen = inside.flatMap((pid) => {
      const read = (f: string) => {
        try {
          return fs.readFileSync(`/proc/${pid}/${f}`, "utf8").replace(/\0/g, " ");
        } catch {
          return "";
        }
      };
      const text = `${read("cmdline")}\n${read("environ")}`;
      return [dataDir, path.basename(base), desktop.dir]
        .filter((hostPath) => text.includes(hostPath))
        .map((hostPath) => `${pid} names ${hostPath}`);
    });
    expect(seen).toEqual([]);
  });

  it("still loads an allowed http page and renders its text in a real font", async () => {
    await page.goto(`${siteUrl}/shop`, { timeout: 20_000 });
    expect(await page.evaluate(() => document.body.innerText)).toContain("Welcome to the shop");
    // Drawn glyphs, not empty boxes: a font was found and text leaves ink on a canvas.
    const ink = await page.evaluate(() => {
      const canvas = document.createElement("canvas");
      canvas.width = 200;
      canvas.height = 60;
      const ctx = canvas.getContext("2d")!;
      ctx.font = "40px sans-serif";
      ctx.fillText("Rein", 5, 45);
      const pixels = ctx.getImageData(0, 0, 200, 60).data;
      let n = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 128) n++;
      return { n, width: ctx.measureText("Rein").width };
    });
    expect(ink.width).toBeGreaterThan(20);
    expect(ink.n).toBeGreaterThan(100);
  });

  it("still saves a download into the run's workspace", async () => {
    await page.goto(`${siteUrl}/shop`, { timeout: 20_000 });
    await page.click("#dl");
    const saved = path.join(workspace.root, "report.txt");
    await waitFor(
      () => fs.existsSync(saved) && fs.readFileSync(saved, "utf8") === "quarterly report: 42 stickers\n",
      "the download in the workspace",
      { limitMs: 30_000, intervalMs: 50 },
    );
  });
});
