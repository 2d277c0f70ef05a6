// The desktop's browser: Chromium drawn on the desktop's display (not
// headless, so a watcher sees what the agent does), with its DevTools
// protocol on 127.0.0.1 at a port Chromium picks itself. With bubblewrap it
// runs in the browser sandbox (browser-sandbox.ts), in a network of its own.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { NETNS_HELPER, NETNS_PROXY_PORT } from "../egress/netns-helper";
import { jailNode } from "../files/jail";
import {
  CDP_SOCKET,
  EGRESS_SOCKET,
  SANDBOX_NET,
  SANDBOX_PROFILE,
  browserSandboxArgs,
  sandboxEnv,
  type BrowserFolders,
} from "./browser-sandbox";
import { describeExit, signalGroup, spawnGroup, type GroupProcess } from "./processes";
import { OutputTail } from "./output-tail";

export const CHROMIUM_BINARY = "chromium";

export function chromiumArgs(options: { profileDir: string; width: number; height: number; asRoot: boolean; netns?: boolean }): string[] {
  return [
    // Chromium's own sandbox needs user namespaces it does not get as root;
    // --test-type keeps the "unsupported command-line flag" bar off the watcher's screen.
    ...(options.asRoot ? ["--no-sandbox", "--test-type"] : []),
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--password-store=basic",
    "--hide-crash-restore-bubble",
    `--user-data-dir=${options.profileDir}`,
    `--window-size=${options.width},${options.height}`,
    "--window-position=0,0",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
    // In its own network namespace, every connection goes through Rein's egress proxy, loopback included.
    ...(options.netns ? [`--proxy-server=http://127.0.0.1:${NETNS_PROXY_PORT}`, "--proxy-bypass-list=<-loopback>"] : []),
    "about:blank",
  ];
}

/** The sandboxed browser's folders (its profile is startChromium's profileDir); its sockets are in netDir. */
export type BrowserSandbox = Omit<BrowserFolders, "profileDir">;

/** A port on the host's loopback relayed to the DevTools socket, so Playwright connects as to any Chromium. */
async function cdpRelay(cdpSocket: string): Promise<{ port: number; close(): void }> {
  const server = net.createServer((client) => {
    const upstream = net.connect(cdpSocket);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

export interface Browser {
  proc: GroupProcess;
  cdpEndpoint: string;
  tail: OutputTail;
}

/** Chromium in the browser sandbox, behind the network-namespace helper; bwrap's arguments go through fd 3. */
function spawnSandboxed(profileDir: string, sandbox: BrowserSandbox, args: string[], env: Record<string, string>): GroupProcess {
  const helperEnv = {
    ...sandboxEnv(env),
    REIN_EGRESS_SOCKET: path.posix.join(SANDBOX_NET, EGRESS_SOCKET),
    REIN_CDP_SOCKET: path.posix.join(SANDBOX_NET, CDP_SOCKET),
    REIN_DEVTOOLS_FILE: path.posix.join(SANDBOX_PROFILE, "DevToolsActivePort"),
  };
  const proc = spawnGroup("chromium", "bwrap", ["--args", "3", "--", jailNode(), "-e", NETNS_HELPER, CHROMIUM_BINARY, ...args], {
    env: helperEnv,
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  const argsPipe = proc.child.stdio[3] as NodeJS.WritableStream | null;
  argsPipe?.on("error", () => {}); // bwrap that failed to start closes it; its exit says why
  argsPipe?.end(
    browserSandboxArgs({ profileDir, ...sandbox })
      .map((a) => `${a}\0`)
      .join(""),
  );
  return proc;
}

/** Starts Chromium and waits until its DevTools endpoint answers. */
export async function startChromium(options: {
  profileDir: string;
  width: number;
  height: number;
  env: Record<string, string>;
  timeoutMs: number;
  onSpawn?: (pid: number) => void;
  sandbox?: BrowserSandbox;
}): Promise<Browser> {
  const portFile = path.join(options.profileDir, "DevToolsActivePort");
  // A restarted browser writes its new port here; the old one must not be read.
  fs.rmSync(portFile, { force: true });
  fs.mkdirSync(options.profileDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const { sandbox } = options;
  const args = chromiumArgs({ ...options, profileDir: sandbox ? SANDBOX_PROFILE : options.profileDir, asRoot, netns: !!sandbox });
  const proc = sandbox
    ? spawnSandboxed(options.profileDir, sandbox, args, options.env)
    : spawnGroup("chromium", CHROMIUM_BINARY, args, { env: options.env });
  options.onSpawn?.(proc.pid);
  const tail = new OutputTail(proc.child.stderr);
  const deadline = Date.now() + options.timeoutMs;
  let port = 0;
  while (!port) {
    if (!proc.alive()) {
      const exit = await proc.exited;
      throw new Error(`Chromium ${describeExit(exit)} while starting: ${tail.text() || "no output"}`);
    }
    if (Date.now() > deadline) {
      signalGroup(proc.pid, "SIGKILL");
      throw new Error(`Chromium did not open its DevTools port within ${options.timeoutMs / 1000} s: ${tail.text() || "no output"}`);
    }
    port = readDevToolsPort(portFile);
    if (!port) await new Promise((r) => setTimeout(r, 10));
  }
  if (!sandbox) return { proc, cdpEndpoint: `http://127.0.0.1:${port}`, tail };
  const relay = await cdpRelay(path.join(sandbox.netDir, CDP_SOCKET));
  void proc.exited.then(() => relay.close());
  return { proc, cdpEndpoint: `http://127.0.0.1:${relay.port}`, tail };
}

/** The port in DevToolsActivePort (first line), once Chromium has written the whole file. */
function readDevToolsPort(file: string): number {
  try {
    const text = fs.readFileSync(file, "utf8");
    if (!text.includes("\n")) return 0;
    const port = Number.parseInt(text, 10);
    return Number.isInteger(port) && port > 0 ? port : 0;
  } catch {
    return 0;
  }
}

/** "CDP answers": GET /json/version. Resolves with the browser's version string. */
export async function probeCdp(cdpEndpoint: string, timeoutMs = 2000): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${cdpEndpoint}/json/version`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(`Chromium's DevTools endpoint ${cdpEndpoint} does not answer: ${(err as Error).message}`);
  }
  if (!response.ok) throw new Error(`Chromium's DevTools endpoint ${cdpEndpoint} answered HTTP ${response.status}`);
  const body = (await response.json()) as { Browser?: string };
  return body.Browser ?? "unknown";
}
