// npm run bench:terminal — terminal pod figures:
//   pod start, cold and from the warm pool (p50/p99);
//   keystroke-to-echo and a command's burst of output, over socket.io against the same PTY directly;
//   sustained output throughput off the PTY itself and to one and to three connected,
//   acknowledging watchers, measured in alternating rounds, and their ratios. The pods
//   are given a secret that is in every line of that output: each reader's output is
//   checked line by line (all lines, each redacted, the value never seen).
// BENCH_BASELINE=<another checkout of Rein> runs its server too, in the same turns.
// Prints figures; asserts nothing, but exits non-zero when a reader got wrong output.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { DEFAULT_LIMITS, PodPool, PtyPod, probeSandbox } from "@/server/compute";
import { openDb } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { execFileSync } from "node:child_process";
import { freePort, spawnServer } from "../test/helpers/server-process";

const N = Number(process.env.BENCH_N ?? 40);
const THROUGHPUT_MB = Number(process.env.BENCH_MB ?? 100);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const BURST_BYTES = 8000;
/** How many watchers the busy figure has (one of them the person who took over). */
const WATCHERS = Math.max(1, Number(process.env.BENCH_WATCHERS ?? 3));
/** Another checkout of Rein (e.g. the main branch) to run as a second server, in turns with this one. */
const BASELINE = process.env.BENCH_BASELINE;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(2).padStart(7)} ms`;

/** Output as a watcher gets it: text, or UTF-8 bytes. */
type Chunk = string | Uint8Array;
/** A terminal the benchmark types into and reads: the PTY itself, or the server's watcher path. */
interface Shell {
  write(data: string): void;
  /** `resync`: a snapshot that replaced live output the watcher fell behind on (not counted as output). */
  onData(listener: (chunk: Chunk, resync?: boolean) => void): () => void;
}
const contains = (chunk: Chunk, text: string) =>
  typeof chunk === "string" ? chunk.includes(text) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes(text);

async function echoRtt(shell: Shell, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const ch = "abcdefghij"[i % 10];
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      const off = shell.onData((d) => {
        if (contains(d, ch)) {
          off();
          resolve();
        }
      });
      shell.write(ch);
    });
    samples.push(performance.now() - t0);
  }
  shell.write("\u0015"); // clear the line
  return samples;
}

/** Types `command` followed by an echo of a mark (split so its echo does not match); resolves with what came until the mark. */
function runToMark(shell: Shell, command: string, timeoutMs: number): Promise<{ chars: number; ms: number }> {
  const mark = `bench-done-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  let got = 0;
  let off = () => {};
  const t0 = performance.now();
  const finished = new Promise<{ chars: number; ms: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no end of output within ${timeoutMs / 1000} s`)), timeoutMs);
    off = shell.onData((d, resync) => {
      if (!resync) got += typeof d === "string" ? d.length : d.byteLength;
      if (contains(d, mark)) {
        clearTimeout(timer);
        resolve({ chars: got, ms: performance.now() - t0 });
      }
    });
  });
  shell.write(`${command}; echo ${mark.slice(0, 6)}""${mark.slice(6)}\r`);
  return finished.finally(() => off());
}

/** A command's output of a few kilobytes (an `ls`, a compiler error): from Enter to the last of it on screen. */
async function bursts(shell: Shell, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push((await runToMark(shell, `head -c ${BURST_BYTES} /dev/zero | tr '\\0' 'y'`, 30_000)).ms);
  return samples;
}

/** The secret the pods are given: it is in every line of the throughput command's output, and no reader may ever see it. */
const SECRET = { name: "DEPLOY_TOKEN", value: "dpl-7Hq2zX9vLm4K-s3cr3t-0042" };
/** A line of that output as the program prints it (200 characters) and as every reader must get it. */
const FILL = 86;
const SEEN_LINE = `${"x".repeat(FILL)}[secret:${SECRET.name}]${"y".repeat(FILL)}\r`;
const LINES = Math.round((THROUGHPUT_MB * 1e6) / (FILL * 2 + SECRET.value.length + 2));
/** The shell puts the value together, so the typed line never holds it. */
const SPLIT = 10;
const THROUGHPUT_COMMAND = `S=${SECRET.value.slice(0, SPLIT)}; yes "${"x".repeat(FILL)}\${S}${SECRET.value.slice(SPLIT)}${"y".repeat(FILL)}" | head -n ${LINES}`;

/** What one reader got of the throughput command's output, checked line by line as it comes. */
class OutputCheck {
  chars = 0;
  lines = 0;
  /** Lines of the output that are not the expected line (cut, mangled, or not redacted). */
  bad = 0;
  leaked = false;
  resyncs = 0;
  done = false;
  private partial = "";
  private readonly decoder = new TextDecoder();

  constructor(readonly mark: string) {}

  push(chunk: Chunk) {
    const data = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    this.chars += data.length;
    // The partial line carries the last characters over, so a value split between two chunks is seen too.
    const text = this.partial + data;
    if (text.includes(SECRET.value)) this.leaked = true;
    const lines = text.split("\n");
    this.partial = lines.pop()!.slice(-4096);
    for (const line of lines) {
      // The first line follows the shell's marker that a command started (an OSC ending in BEL).
      if (line === SEEN_LINE || (this.lines === 0 && line.endsWith(`\u0007${SEEN_LINE}`))) this.lines++;
      else if (line.startsWith("xxxxxxxxxx")) {
        this.bad++;
      } else if (line === `${this.mark}\r`) this.done = true;
    }
  }

  /** The reader fell behind and was sent the screen instead of the output it missed. */
  resync(screen: Chunk) {
    this.resyncs++;
    if (contains(screen, this.mark)) this.done = true;
  }

  problem(): string | null {
    if (this.leaked) return `the secret's value reached the reader`;
    if (this.resyncs) return `fell behind ${this.resyncs} times (got the screen instead of ${LINES - this.lines} lines)`;
    if (this.bad) return `${this.bad} lines were not the line printed, redacted`;
    if (this.lines !== LINES) return `${this.lines} of ${LINES} lines arrived`;
    return null;
  }
}

/**
 * Sustained output in MB/s: the throughput command typed through `write`, its output checked
 * in every reader; characters per reader over the time until the last reader got the end.
 */
async function throughput(write: (data: string) => void, readers: Shell[]): Promise<{ rate: number; problems: string[] }> {
  const mark = `bench-done-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const checks = readers.map(() => new OutputCheck(mark));
  const offs: Array<() => void> = [];
  const t0 = performance.now();
  const finished = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no end of output within 600 s")), 600_000);
    readers.forEach((reader, i) =>
      offs.push(
        reader.onData((d, resync) => {
          if (resync) checks[i].resync(d);
          else checks[i].push(d);
          if (checks.every((c) => c.done)) {
            clearTimeout(timer);
            resolve(performance.now() - t0);
          }
        }),
      ),
    );
  });
  write(`${THROUGHPUT_COMMAND}; echo ${mark.slice(0, 6)}""${mark.slice(6)}\r`);
  const ms = await finished.finally(() => offs.forEach((off) => off()));
  const problems = checks.flatMap((c, i) => {
    const p = c.problem();
    return p ? [`reader ${i + 1}: ${p}`] : [];
  });
  return { rate: Math.min(...checks.map((c) => c.chars)) / 1e6 / (ms / 1000), problems };
}

const median = (xs: number[]) => pct(xs, 50);
/** Linux's USER_HZ, the unit of CPU times in /proc/<pid>/stat. */
const CLOCK_TICKS = 100;
/** CPU time of this process (the reader of the PTY, or the watcher's socket.io client). */
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main() {
  const sandbox = probeSandbox();
  if (!sandbox.ok) throw new Error(sandbox.message);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-term-"));
  let server: WatcherPath | null = null;
  let baseline: WatcherPath | null = null;
  try {
    // 1. Cold start: a new sandbox and shell, until the first prompt.
    const cold: number[] = [];
    for (let i = 0; i < N; i++) {
      const dir = fs.mkdtempSync(path.join(tmp, "cold-"));
      const t0 = performance.now();
      const pod = await PtyPod.start({ workspaceDir: dir, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
      cold.push(performance.now() - t0);
      await pod.dispose();
    }

    // 2. From the pool: attach for a new run while warm pods wait.
    const pool = new PodPool({ dataDir: path.join(tmp, "pool"), size: 4, limits: DEFAULT_LIMITS, sandbox, allowUnsandboxed: false });
    await pool.start();
    const warm: number[] = [];
    for (let i = 0; i < N; i++) {
      while (pool.stats().warm < 1) await new Promise((r) => setTimeout(r, 5));
      const { startMs, fromPool } = await pool.attach(`run-${i}`, path.join(tmp, "ws", `run-${i}`));
      if (fromPool) warm.push(startMs);
      void pool.release(`run-${i}`);
    }
    console.log(`\nTerminal pods (bubblewrap, ${sandbox.limits.processes ? "cgroup limits" : "no cgroup limits"})`);
    console.log(`pod start, cold (sandbox + shell to first prompt)  ${fmt(cold)}   (n=${cold.length})`);
    console.log(`pod start, from the warm pool                      ${fmt(warm)}   (n=${warm.length})`);

    // 3. The same figures on a PTY read directly (the baseline) and through the server to a watcher.
    const { pod } = await pool.attach("direct", path.join(tmp, "ws", "direct"));
    // Given the secret as a run's command is: from then on everything the pod prints is redacted.
    await pod.exec("true", { timeoutMs: 10_000, env: { [SECRET.name]: SECRET.value } });
    const direct: Shell = { write: (d) => pod.write(d), onData: (l) => pod.onData(l) };
    try {
      server = await watcherPath(tmp, "server");
      if (BASELINE) baseline = await watcherPath(tmp, "baseline", BASELINE);
    } catch (err) {
      console.log(`(socket.io figures unavailable: ${(err as Error).message})`);
    }
    const directRtt = await echoRtt(direct, N * 5);
    const directBurst = await bursts(direct, N);
    console.log(`keystroke -> echo, PTY directly                    ${fmt(directRtt)}`);
    if (server) {
      const rtt = await echoRtt(server, N * 5);
      console.log(`keystroke -> echo, browser path (socket.io)        ${fmt(rtt)}`);
      console.log(`  network path adds p50 +${(pct(rtt, 50) - pct(directRtt, 50)).toFixed(2)} ms`);
    }
    console.log(`${`${BURST_BYTES / 1000} kB of command output, PTY directly`.padEnd(51)}${fmt(directBurst)}`);
    if (server) {
      const burst = await bursts(server, N);
      console.log(`${`${BURST_BYTES / 1000} kB of command output, to a watcher`.padEnd(51)}${fmt(burst)}`);
      console.log(`  network path adds p50 +${(pct(burst, 50) - pct(directBurst, 50)).toFixed(2)} ms`);
    }

    // 4. Throughput: rounds take turns between the PTY and each server with one and with WATCHERS
    // watchers, so all see the same machine load. CPU per MB does not depend on what else the
    // machine runs as the rates do.
    const paths: ThroughputPath[] = [{ label: "PTY directly", server: null, watchers: 0, rates: [], cpu: { server: 0, client: 0 } }];
    for (const [name, s] of [
      ["", server],
      ["baseline: ", baseline],
    ] as const) {
      if (!s) continue;
      for (const k of [1, WATCHERS]) {
        const label = `${name}to ${k} socket.io watcher${k > 1 ? "s" : ""}`;
        paths.push({ label, server: s, watchers: k, rates: [], cpu: { server: 0, client: 0 } });
      }
    }
    const problems: string[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const p of paths) {
        const readers = p.server ? await p.server.watch(p.watchers) : [direct];
        const write = p.server ? p.server.write : direct.write;
        const c0 = ownCpuMs();
        const s0 = p.server?.cpuMs() ?? 0;
        const { rate, problems: wrong } = await throughput(write, readers);
        p.cpu.client += ownCpuMs() - c0;
        p.cpu.server += (p.server?.cpuMs() ?? 0) - s0;
        p.rates.push(rate);
        problems.push(...wrong.map((w) => `${p.label}, round ${r + 1}, ${w}`));
      }
    }
    await pool.stop();
    const perMb = (ms: number) => (ms / (ROUNDS * THROUGHPUT_MB)).toFixed(1);
    const rounds = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    const pty = paths[0].rates;
    console.log(
      `output throughput: ${THROUGHPUT_MB} MB in ${LINES} lines, each with the secret (redacted to every reader), median of ${ROUNDS} rounds`,
    );
    for (const p of paths) {
      const ratios = p.rates.map((x, i) => x / pty[i]);
      console.log(
        `  ${p.label.padEnd(40)} ${median(p.rates).toFixed(1).padStart(5)} MB/s (${rounds(p.rates)})` +
          (p.server
            ? `  / PTY ${median(ratios).toFixed(2)} (per round: ${ratios.map((x) => x.toFixed(2)).join(" ")}); CPU per MB: server ${perMb(p.cpu.server)} ms, watchers' clients ${perMb(p.cpu.client)} ms`
            : `  reader CPU ${perMb(p.cpu.client)} ms/MB`),
      );
    }
    for (const s of [server, baseline]) {
      if (s) console.log(`  ${s.label}: RSS peak +${s.rssGrowthMb().toFixed(0)} MB over idle; watchers fell behind ${s.resyncs()} times`);
    }
    if (problems.length) {
      console.log(`CONTENT CHECK FAILED:\n  ${problems.join("\n  ")}`);
      process.exitCode = 1;
    } else {
      console.log(`  content: every reader got all ${LINES} lines, each redacted; the secret's value never reached one`);
    }
    console.log(
      `(for scale: OpenHands users report 15-30 s sandbox starts; aim: cold well under 200 ms, pool under 20 ms; ${WATCHERS} watchers at least 0.85 x the PTY)\n`,
    );
  } finally {
    await server?.close();
    await baseline?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

interface ThroughputPath {
  label: string;
  server: WatcherPath | null;
  watchers: number;
  rates: number[];
  cpu: { server: number; client: number };
}

interface WatcherPath extends Shell {
  label: string;
  /** Exactly `k` watchers attached and live (the one that types among them); their outputs. */
  watch(k: number): Promise<Shell[]>;
  rssGrowthMb(): number;
  /** CPU time the server process has used so far. */
  cpuMs(): number;
  /** Snapshots watchers needed because they fell behind. */
  resyncs(): number;
  close(): Promise<void>;
}

interface Watcher extends Shell {
  socket: Socket;
  /** Resolves with the next snapshot. */
  nextSnapshot(): Promise<void>;
  snapshots: number;
}

/**
 * Takes over a paused run's terminal through the server's /terminal namespace, as the browser
 * does; more watchers attach beside it. `cwd`: another checkout of Rein to run (the baseline).
 */
async function watcherPath(tmp: string, label: string, cwd?: string): Promise<WatcherPath> {
  const dataDir = path.join(tmp, label);
  fs.mkdirSync(dataDir);
  const url = `file:${path.join(dataDir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe", cwd });
  const db = await openDb(url);
  const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "admin" });
  const token = (await createApiToken(db, { userId, name: "bench" })).token;
  await db.$disconnect();
  const server = spawnServer({ REIN_DATA_DIR: dataDir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "400" }, undefined, cwd);
  const sockets: Socket[] = [];
  let sampler: NodeJS.Timeout | undefined;
  let runId = "";
  const close = async () => {
    clearInterval(sampler);
    const s = sockets[0];
    if (s?.connected) await new Promise((resolve) => s.emit("handback", { runId }, resolve));
    sockets.forEach((x) => x.close());
    await server.kill("SIGTERM");
  };
  const api = (route: string, body?: object) =>
    fetch(`${server.url}${route}`, {
      method: body ? "POST" : "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    }).then(async (r) => {
      if (!r.ok) throw new Error(`${route}: ${r.status} ${await r.text()}`);
      return r.json();
    });
  const connect = (): Watcher => {
    const s: Socket = io(`${server.url}/terminal`, { path: "/socket.io", transports: ["websocket"], auth: { token }, forceNew: true });
    sockets.push(s);
    const listeners = new Set<(d: Chunk, resync?: boolean) => void>();
    // Acknowledged as soon as it arrives: the figure is the server's and the wire's, not a browser's drawing.
    s.on("data", (m: { runId: string; seq: number; data: Chunk }) => {
      listeners.forEach((l) => l(m.data));
      s.emit("ack", { runId: m.runId, seq: m.seq });
    });
    let waiting: Array<() => void> = [];
    const w: Watcher = {
      socket: s,
      snapshots: 0,
      nextSnapshot: () => new Promise<void>((resolve) => waiting.push(resolve)),
      write: (d) => s.emit("input", { runId, data: d }),
      onData: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    s.on("snapshot", (m: { data: string }) => {
      w.snapshots++;
      listeners.forEach((l) => l(m.data, true));
      const ready = waiting;
      waiting = [];
      ready.forEach((r) => r());
    });
    return w;
  };
  const call = (s: Socket, ev: string, body: object) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to "${ev}" from the /terminal namespace`)), 10_000);
      s.emit(ev, body, (reply: unknown) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  try {
    await server.ready;
    await api("/api/v1/secrets", {
      name: SECRET.name,
      value: SECRET.value,
      scope: { agents: ["*"], teams: ["*"], callerCommands: true },
    });
    const created = await api("/api/v1/runs", {
      goal: "terminal benchmark",
      agent: "demo-coder",
      secrets: [SECRET.name],
      scenario: [
        { text: "warm up", toolCalls: [{ tool: "shell", args: { command: `echo "given: $${SECRET.name}"` } }] },
        // Turns enough for the take over to pause the run before it ends, however busy the machine.
        ...Array.from({ length: 50 }, () => ({
          text: "a long turn so the run can be paused between steps while the benchmark types into the shell",
          toolCalls: [{ tool: "shell", args: { command: "true" } }],
        })),
        { text: "done" },
      ],
    });
    runId = created.id;
    const controller = connect();
    // The pod knows the value once a command was given it: the warm-up's echo of it, redacted.
    const given = new Promise<void>((resolve, reject) => {
      setTimeout(() => reject(new Error("the run's warm-up never showed the secret, redacted")), 60_000).unref();
      let seen = "";
      const off = controller.onData((d) => {
        seen = (seen + (typeof d === "string" ? d : Buffer.from(d).toString())).slice(-4096);
        if (seen.includes(`given: [secret:${SECRET.name}]`)) {
          off();
          resolve();
        }
      });
    });
    for (let i = 0; i < 200; i++) {
      const a = await call(controller.socket, "attach", { runId, cols: 200, rows: 50 });
      if (a?.ok && a.podId) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await given;
    const taken = await call(controller.socket, "takeover", { runId });
    if (!taken?.ok) throw new Error(`takeover refused: ${JSON.stringify(taken)}`);
    for (let i = 0; ; i++) {
      const run = await api(`/api/v1/runs/${runId}`);
      if (run.status === "paused") break;
      if (i === 1200) throw new Error(`the run did not pause for the take over (${run.status})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const extra = Array.from({ length: WATCHERS - 1 }, connect);
    const attached = new Set<Watcher>();
    let attaches = 1;
    const watch = async (k: number) => {
      const want = extra.slice(0, k - 1);
      for (const w of extra) {
        if (want.includes(w) && !attached.has(w)) {
          const live = w.nextSnapshot();
          const a = await call(w.socket, "attach", { runId });
          if (!a?.ok) throw new Error(`attach refused: ${JSON.stringify(a)}`);
          await live;
          attached.add(w);
          attaches++;
        } else if (!want.includes(w) && attached.has(w)) {
          w.socket.emit("detach", { runId });
          attached.delete(w);
        }
      }
      return [controller, ...want];
    };
    const cpuMs = () => {
      const stat = fs.readFileSync(`/proc/${server.child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    };
    const snapshots0 = Math.max(1, controller.snapshots) - 1;
    const rss = () => Number(fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    const rss0 = rss();
    let peak = rss0;
    sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    return {
      label,
      write: controller.write,
      onData: controller.onData,
      watch,
      rssGrowthMb: () => peak - rss0,
      cpuMs,
      resyncs: () => [controller, ...extra].reduce((n, w) => n + w.snapshots, 0) - snapshots0 - attaches,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
