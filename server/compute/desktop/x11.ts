// The desktop's X server. Xvfb is started on a display number picked here,
// at random from a high range, and X's own lock file settles any clash: a
// server keeps its lock until its socket is gone. (With -displayfd, X picks
// the number but takes no lock, and a server shutting down removed the socket
// of one that had just taken the same number; seen on these machines.)
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import { describeExit, processRunning, signalGroup, spawnGroup, type GroupProcess } from "./processes";
import { OutputTail } from "./output-tail";

const X_SOCKET_DIR = "/tmp/.X11-unix";
/** Display numbers Rein uses: clear of the low ones people and other tools take. */
const FIRST_DISPLAY = 100;
const LAST_DISPLAY = 999;
const START_ATTEMPTS = 5;

export interface XServer {
  proc: GroupProcess;
  /** The display number: ":<n>". */
  number: number;
  tail: OutputTail;
  /** Its socket file, to tell it from one another server makes for the same number later. */
  socket: SocketIdentity;
}

class DisplayTaken extends Error {}

type XvfbOptions = { width: number; height: number; env: Record<string, string>; timeoutMs: number; onSpawn?: (pid: number) => void };

export async function startXvfb(options: XvfbOptions): Promise<XServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(pickDisplayNumber(), options);
    } catch (err) {
      if (!(err instanceof DisplayTaken) || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

function pickDisplayNumber(): number {
  for (let i = 0; i < 100; i++) {
    const n = crypto.randomInt(FIRST_DISPLAY, LAST_DISPLAY + 1);
    if (!fs.existsSync(lockPath(n)) && !fs.existsSync(xSocketPath(n))) return n;
  }
  throw new Error(`no free X display number between :${FIRST_DISPLAY} and :${LAST_DISPLAY}`);
}

async function startOn(number: number, options: XvfbOptions): Promise<XServer> {
  const proc = spawnGroup(
    "Xvfb",
    "Xvfb",
    [
      `:${number}`,
      "-screen",
      "0",
      `${options.width}x${options.height}x24`,
      "-nolisten",
      "tcp",
      "-nolisten",
      "local",
      "-noreset",
      "-dpi",
      "96",
    ],
    { env: options.env, stdio: ["ignore", "ignore", "pipe"] },
  );
  options.onSpawn?.(proc.pid);
  const tail = new OutputTail(proc.child.stderr);
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (!proc.alive()) {
      const exit = await proc.exited;
      const text = tail.text();
      if (/already active|server already running|Cannot establish any listening sockets/i.test(text))
        throw new DisplayTaken(`display :${number} is taken`);
      throw new Error(`Xvfb ${describeExit(exit)} while starting on :${number}: ${text || "no output"}`);
    }
    // Ready: the lock is ours (not another server's on this number) and the display answers.
    if (
      lockHolder(number) === proc.pid &&
      (await probeX(number, 1000).then(
        () => true,
        () => false,
      ))
    ) {
      return { proc, number, tail, socket: socketIdentity(number) };
    }
    if (Date.now() > deadline) {
      signalGroup(proc.pid, "SIGKILL");
      throw new Error(`Xvfb did not answer on :${number} within ${options.timeoutMs / 1000} s: ${tail.text() || "no output"}`);
    }
    await new Promise((r) => setTimeout(r, 15));
  }
}

function lockPath(display: number): string {
  return `/tmp/.X${display}-lock`;
}

/** The pid in the display's lock file (X writes it there), or null. */
function lockHolder(display: number): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockPath(display), "utf8"), 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function xSocketPath(display: number): string {
  return `${X_SOCKET_DIR}/X${display}`;
}

/**
 * "X answers": the X11 connection setup over the display's socket, without
 * any client library. Resolves when the server accepts a connection.
 */
export function probeX(display: number, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(xSocketPath(display));
    const timer = setTimeout(() => finish(new Error(`the X server on :${display} did not answer within ${timeoutMs} ms`)), timeoutMs);
    const finish = (err?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.once("connect", () => {
      // Little-endian, protocol 11.0, no authorisation.
      const setup = Buffer.alloc(12);
      setup[0] = 0x6c;
      setup.writeUInt16LE(11, 2);
      socket.write(setup);
    });
    socket.once("data", (reply: Buffer) => {
      // 1 = Success, 0 = Failed, 2 = Authenticate.
      if (reply[0] === 1) finish();
      else finish(new Error(`the X server on :${display} refused the connection (setup status ${reply[0]})`));
    });
    socket.once("error", (err) => finish(new Error(`the X server on :${display} does not answer: ${err.message}`)));
  });
}

/** Which file the display's socket is: a server that takes the number later makes a new one. */
export type SocketIdentity = { ino: number; birthtimeNs: bigint } | null;

export function socketIdentity(display: number): SocketIdentity {
  try {
    const st = fs.statSync(xSocketPath(display), { bigint: true });
    return { ino: Number(st.ino), birthtimeNs: st.birthtimeNs };
  } catch {
    return null;
  }
}

/**
 * After our Xvfb is gone: it removes its socket when it exits by itself, but
 * not when it is killed, and a socket left behind blocks the display number.
 * The socket is removed only if it is still the very file our Xvfb made:
 * another server may already have taken the number (bound, perhaps not yet
 * listening), and its socket must stay.
 */
export function removeDisplayFiles(display: number, xvfbPid: number, ours: SocketIdentity): void {
  const now = socketIdentity(display);
  if (ours && now && now.ino === ours.ino && now.birthtimeNs === ours.birthtimeNs) fs.rmSync(xSocketPath(display), { force: true });
  // The lock last: while it is there, no other server takes the number.
  if (lockHolder(display) === xvfbPid) fs.rmSync(lockPath(display), { force: true });
}

/**
 * The files of a display whose Xvfb died with a previous Rein: only while its
 * lock still names that (dead) Xvfb, so nothing of a server that has taken
 * the number since is touched.
 */
export function removeStaleDisplay(display: number, xvfbPid: number): void {
  if (lockHolder(display) !== xvfbPid || processRunning(xvfbPid)) return;
  fs.rmSync(xSocketPath(display), { force: true });
  fs.rmSync(lockPath(display), { force: true });
}
