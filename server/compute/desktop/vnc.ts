// The desktop's VNC server: x11vnc on 127.0.0.1 only, with a password of its
// own per desktop that never appears on a command line (a file x11vnc reads
// and removes). Rein's websocket proxy is the only client meant to reach it.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describeExit, signalGroup, spawnGroup, type GroupProcess } from "./processes";
import { OutputTail } from "./output-tail";

/** VNC authentication uses the first 8 characters of a password (a DES key). */
export const VNC_PASSWORD_LENGTH = 8;
const PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

export function randomVncPassword(): string {
  let out = "";
  while (out.length < VNC_PASSWORD_LENGTH) {
    // Rejection sampling: no bias toward the alphabet's first characters.
    const byte = crypto.randomBytes(1)[0];
    if (byte < Math.floor(256 / PASSWORD_ALPHABET.length) * PASSWORD_ALPHABET.length)
      out += PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length];
  }
  return out;
}

/** A port free on 127.0.0.1 right now (x11vnc binds it a moment later; a clash is retried by the caller). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface VncServer {
  proc: GroupProcess;
  port: number;
  tail: OutputTail;
}

export async function startX11vnc(options: {
  display: number;
  port: number;
  password: string;
  dir: string;
  env: Record<string, string>;
  timeoutMs: number;
  onSpawn?: (pid: number) => void;
}): Promise<VncServer> {
  const passwordFile = path.join(options.dir, "vnc-password");
  fs.writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
  const args = [
    "-display",
    `:${options.display}`,
    "-rfbport",
    String(options.port),
    // Loopback only, IPv4 only: nothing outside the machine can reach the port.
    "-localhost",
    "-no6",
    "-noipv6",
    "-forever",
    "-shared",
    "-passwdfile",
    `rm:${passwordFile}`,
    // No remote-control channel over X properties and no external commands.
    "-safer",
    "-nocmds",
    "-norc",
    // Chromium's pages change often; poll a little more often than the default 20 ms.
    "-wait",
    "10",
    "-defer",
    "10",
  ];
  const proc = spawnGroup("x11vnc", "x11vnc", args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  options.onSpawn?.(proc.pid);
  const tail = new OutputTail(proc.child.stderr);
  let out = "";
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`x11vnc did not listen within ${options.timeoutMs / 1000} s: ${tail.text() || "no output"}`)),
      options.timeoutMs,
    );
    // x11vnc prints PORT=<n> on stdout once it listens.
    proc.child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (/PORT=\d+/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void proc.exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`x11vnc ${describeExit(exit)} while starting: ${tail.text() || "no output"}`));
    });
  });
  try {
    await listening;
  } catch (err) {
    signalGroup(proc.pid, "SIGKILL");
    throw err;
  }
  const reported = Number(/PORT=(\d+)/.exec(out)?.[1]);
  if (reported !== options.port) {
    signalGroup(proc.pid, "SIGKILL");
    throw new Error(`x11vnc listens on port ${reported}, not the port it was given (${options.port})`);
  }
  return { proc, port: options.port, tail };
}

/** "The VNC port accepts a connection and sends an RFB version string." Resolves with the version. */
export function probeRfb(port: number, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let data = Buffer.alloc(0);
    const timer = setTimeout(
      () => finish(new Error(`the VNC server on 127.0.0.1:${port} sent no RFB version within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = (err: Error | null, version?: string) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(version!);
    };
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (data.length < 12) return;
      const version = data.subarray(0, 12).toString("latin1");
      if (/^RFB \d{3}\.\d{3}\n$/.test(version)) finish(null, version.trim());
      else finish(new Error(`the VNC server on 127.0.0.1:${port} sent ${JSON.stringify(version)}, not an RFB version`));
    });
    socket.once("error", (err) => finish(new Error(`the VNC server on 127.0.0.1:${port} does not answer: ${err.message}`)));
  });
}

/** "The VNC port takes a connection": the light check; x11vnc's greeting is what probeRfb waits for. */
export function vncAccepts(port: number, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    const timer = setTimeout(
      () => finish(new Error(`the VNC server on 127.0.0.1:${port} took no connection within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.once("connect", () => finish());
    socket.once("error", (err) => finish(new Error(`the VNC server on 127.0.0.1:${port} does not answer: ${err.message}`)));
  });
}
