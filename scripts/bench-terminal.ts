// npm run bench:terminal — terminal pod figures:
//   pod start, cold and from the warm pool (p50/p99);
//   keystroke-to-echo and a command's burst of output, over socket.io against the same PTY directly;
//   sustained output throughput off the PTY itself and to a connected,
//   acknowledging watcher, measured in alternating rounds, and their ratio.
// Prints figures; asserts nothing.
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

/** Sustained output in MB/s: characters as the reader got them, over the time until the last arrived. */
async function throughput(shell: Shell): Promise<number> {
  const { chars, ms } = await runToMark(shell, `head -c ${THROUGHPUT_MB * 1_000_000} /dev/zero | tr '\\0' 'x' | fold -w 200`, 600_000);
  return chars / 1e6 / (ms / 1000);
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
    const direct: Shell = { write: (d) => pod.write(d), onData: (l) => pod.onData(l) };
    try {
      server = await watcherPath(tmp);
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

    // 4. Throughput: rounds alternate between the PTY and the watcher, so both see the same machine load.
    // CPU per MB does not depend on what else the machine runs as the rates do.
    const directRates: number[] = [];
    const watcherRates: number[] = [];
    const cpu = { reader: 0, server: 0, client: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      let c0 = ownCpuMs();
      directRates.push(await throughput(direct));
      cpu.reader += ownCpuMs() - c0;
      if (!server) continue;
      c0 = ownCpuMs();
      const s0 = server.cpuMs();
      watcherRates.push(await throughput(server));
      cpu.client += ownCpuMs() - c0;
      cpu.server += server.cpuMs() - s0;
    }
    const perMb = (ms: number) => (ms / (ROUNDS * THROUGHPUT_MB)).toFixed(1);
    await pool.stop();
    const rounds = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" ");
    console.log(
      `output throughput, PTY directly                    ${median(directRates).toFixed(1)} MB/s (median of ${ROUNDS} x ${THROUGHPUT_MB} MB: ${rounds(directRates)}), reader CPU ${perMb(cpu.reader)} ms/MB`,
    );
    if (server) {
      console.log(
        `output throughput, to a socket.io watcher          ${median(watcherRates).toFixed(1)} MB/s (${rounds(watcherRates)}), server RSS peak +${server.rssGrowthMb().toFixed(0)} MB`,
      );
      console.log(
        `  CPU per MB: server ${perMb(cpu.server)} ms, watcher's socket.io client ${perMb(cpu.client)} ms; the watcher fell behind ${server.resyncs()} times`,
      );
      const ratios = watcherRates.map((w, i) => w / directRates[i]);
      console.log(
        `  watcher / PTY                                    ${median(ratios).toFixed(2)} (per round: ${ratios.map((x) => x.toFixed(2)).join(" ")})`,
      );
    }
    console.log(
      "(for scale: OpenHands users report 15-30 s sandbox starts; aim: cold well under 200 ms, pool under 20 ms; watcher at least 0.8 x the PTY)\n",
    );
  } finally {
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

interface WatcherPath extends Shell {
  rssGrowthMb(): number;
  /** CPU time the server process has used so far. */
  cpuMs(): number;
  /** Snapshots the watcher needed because it fell behind. */
  resyncs(): number;
  close(): Promise<void>;
}

/** Takes over a paused run's terminal through the server's /terminal namespace, as the browser does. */
async function watcherPath(tmp: string): Promise<WatcherPath> {
  const dataDir = path.join(tmp, "server");
  fs.mkdirSync(dataDir);
  const url = `file:${path.join(dataDir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const db = await openDb(url);
  const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" });
  const token = (await createApiToken(db, { userId, name: "bench" })).token;
  await db.$disconnect();
  const server = spawnServer({ REIN_DATA_DIR: dataDir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "400" });
  let socket: Socket | null = null;
  let sampler: NodeJS.Timeout | undefined;
  let runId = "";
  const close = async () => {
    clearInterval(sampler);
    if (socket?.connected) await new Promise((resolve) => socket!.emit("handback", { runId }, resolve));
    socket?.close();
    await server.kill("SIGTERM");
  };
  try {
    await server.ready;
    const created = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        goal: "terminal benchmark",
        agent: "demo-coder",
        scenario: [
          { text: "warm up", toolCalls: [{ tool: "shell", args: { command: "true" } }] },
          {
            text: "a long turn so the run can be paused between steps while the benchmark types into the shell",
            toolCalls: [{ tool: "shell", args: { command: "true" } }],
          },
          { text: "done" },
        ],
      }),
    }).then((r) => r.json());
    runId = created.id;
    const s: Socket = io(`${server.url}/terminal`, { path: "/socket.io", transports: ["websocket"], auth: { token }, forceNew: true });
    socket = s;
    const listeners = new Set<(d: Chunk, resync?: boolean) => void>();
    // Acknowledged as soon as it arrives: the figure is the server's and the wire's, not a browser's drawing.
    s.on("data", (m: { runId: string; seq: number; data: Chunk }) => {
      listeners.forEach((l) => l(m.data));
      s.emit("ack", { runId: m.runId, seq: m.seq });
    });
    // After the first one, a snapshot means the watcher fell behind and missed live data.
    let snapshots = 0;
    s.on("snapshot", (m: { data: string }) => {
      snapshots++;
      listeners.forEach((l) => l(m.data, true));
    });
    const call = (ev: string, body: object) =>
      new Promise<any>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to "${ev}" from the /terminal namespace`)), 10_000);
        s.emit(ev, body, (reply: unknown) => {
          clearTimeout(timer);
          resolve(reply);
        });
      });
    for (let i = 0; i < 200; i++) {
      const a = await call("attach", { runId, cols: 200, rows: 50 });
      if (a?.ok && a.podId) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const taken = await call("takeover", { runId });
    if (!taken?.ok) throw new Error(`takeover refused: ${JSON.stringify(taken)}`);
    for (let i = 0; i < 400; i++) {
      const run = await fetch(`${server.url}/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } }).then((r) =>
        r.json(),
      );
      if (run.status === "paused") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpuMs = () => {
      const stat = fs.readFileSync(`/proc/${server.child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    };
    const snapshots0 = Math.max(1, snapshots);
    const rss = () => Number(fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    const rss0 = rss();
    let peak = rss0;
    sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    return {
      write: (d) => s.emit("input", { runId, data: d }),
      onData: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      rssGrowthMb: () => peak - rss0,
      cpuMs,
      resyncs: () => snapshots - snapshots0,
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
