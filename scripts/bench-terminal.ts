// npm run bench:terminal — terminal pod figures:
//   pod start, cold and from the warm pool (p50/p99);
//   keystroke-to-echo round trip over socket.io against the same PTY directly;
//   sustained output throughput to a connected, acknowledging client (MB/s).
// Prints figures; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io, type Socket } from "socket.io-client";
import { DEFAULT_LIMITS, PodPool, PtyPod, probeSandbox, type TerminalPod } from "@/server/compute";
import { openDb } from "@/server/db";
import { createApiToken, createUser } from "@/server/identity";
import { execFileSync } from "node:child_process";
import { freePort, spawnServer } from "../test/helpers/server-process";

const N = Number(process.env.BENCH_N ?? 40);
const THROUGHPUT_MB = Number(process.env.BENCH_MB ?? 100);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(2).padStart(7)} ms`;

async function echoRtt(write: (d: string) => void, onData: (l: (d: string) => void) => () => void, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const ch = "abcdefghij"[i % 10];
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      const off = onData((d) => {
        if (d.includes(ch)) {
          off();
          resolve();
        }
      });
      write(ch);
    });
    samples.push(performance.now() - t0);
  }
  write("\u0015"); // clear the line
  return samples;
}

async function main() {
  const sandbox = probeSandbox();
  if (!sandbox.ok) throw new Error(sandbox.message);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-term-"));
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

    // 3a. Keystroke echo on the PTY itself (the baseline).
    const direct = await pool.attach("echo-direct", path.join(tmp, "ws", "echo-direct"));
    const directRtt = await echoRtt((d) => direct.pod.write(d), (l) => direct.pod.onData(l), N * 5);

    // 4a. Throughput straight off the PTY.
    const directMbps = await throughput(direct.pod);
    await pool.stop();

    console.log(`\nTerminal pods (bubblewrap, ${sandbox.limits.processes ? "cgroup limits" : "no cgroup limits"})`);
    console.log(`pod start, cold (sandbox + shell to first prompt)  ${fmt(cold)}   (n=${cold.length})`);
    console.log(`pod start, from the warm pool                      ${fmt(warm)}   (n=${warm.length})`);

    // 3b/4b. Over socket.io through the real server.
    const overSocket = await throughServer(tmp);
    console.log(`keystroke -> echo, PTY directly                    ${fmt(directRtt)}`);
    if (overSocket) {
      console.log(`keystroke -> echo, browser path (socket.io)        ${fmt(overSocket.rtt)}`);
      console.log(`  network path adds p50 +${(pct(overSocket.rtt, 50) - pct(directRtt, 50)).toFixed(2)} ms`);
    }
    console.log(`output throughput, PTY directly                    ${directMbps.toFixed(1)} MB/s (${THROUGHPUT_MB} MB)`);
    if (overSocket) console.log(`output throughput, to a socket.io client           ${overSocket.mbps.toFixed(1)} MB/s, server RSS peak +${overSocket.rssGrowthMb.toFixed(0)} MB`);
    console.log("(for scale: OpenHands users report 15-30 s sandbox starts; aim: cold well under 200 ms, pool under 20 ms)\n");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function throughput(pod: TerminalPod): Promise<number> {
  const bytes = THROUGHPUT_MB * 1_000_000;
  let got = 0;
  const off = pod.onData((d) => (got += d.length));
  const t0 = performance.now();
  await pod.exec(`head -c ${bytes} /dev/zero | tr '\\0' 'x' | fold -w 200`, { timeoutMs: 600_000 });
  const secs = (performance.now() - t0) / 1000;
  off();
  return got / 1e6 / secs;
}

/** Takes over a paused run's terminal through the server's /terminal namespace. */
async function throughServer(tmp: string): Promise<{ rtt: number[]; mbps: number; rssGrowthMb: number } | null> {
  const dataDir = path.join(tmp, "server");
  fs.mkdirSync(dataDir);
  const url = `file:${path.join(dataDir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const db = await openDb(url);
  const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" });
  const token = (await createApiToken(db, { userId, name: "bench" })).token;
  await db.$disconnect();
  const server = spawnServer({ REIN_DATA_DIR: dataDir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "400" });
  await server.ready;
  try {
    const created = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        goal: "terminal benchmark",
        agent: "demo-coder",
        scenario: [
          { text: "warm up", toolCalls: [{ tool: "shell", args: { command: "true" } }] },
          { text: "a long turn so the run can be paused between steps while the benchmark types into the shell", toolCalls: [{ tool: "shell", args: { command: "true" } }] },
          { text: "done" },
        ],
      }),
    }).then((r) => r.json());
    const socket: Socket = io(`${server.url}/terminal`, { path: "/socket.io", transports: ["websocket"], auth: { token }, forceNew: true });
    const listeners = new Set<(d: string) => void>();
    socket.on("data", (m: { runId: string; seq: number; data: string }) => {
      listeners.forEach((l) => l(m.data));
      socket.emit("ack", { runId: m.runId, seq: m.seq });
    });
    const call = (ev: string, body: object) =>
      new Promise<any>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to "${ev}" from the /terminal namespace`)), 10_000);
        socket.emit(ev, body, (reply: unknown) => {
          clearTimeout(timer);
          resolve(reply);
        });
      });
    for (let i = 0; i < 200; i++) {
      const a = await call("attach", { runId: created.id, cols: 200, rows: 50 });
      if (a?.ok && a.podId) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const taken = await call("takeover", { runId: created.id });
    if (!taken?.ok) throw new Error(`takeover refused: ${JSON.stringify(taken)}`);
    for (let i = 0; i < 400; i++) {
      const run = await fetch(`${server.url}/api/v1/runs/${created.id}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
      if (run.status === "paused") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const onData = (l: (d: string) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    };
    const write = (d: string) => socket.emit("input", { runId: created.id, data: d });
    const rtt = await echoRtt(write, onData, N * 5);

    const rss = () => Number(fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024;
    const rss0 = rss();
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    let got = 0;
    const doneMark = `bench-done-${Date.now()}`;
    const finished = new Promise<void>((resolve) => {
      onData((d) => {
        got += d.length;
        if (d.includes(doneMark)) resolve();
      });
    });
    const t0 = performance.now();
    write(`head -c ${THROUGHPUT_MB * 1_000_000} /dev/zero | tr '\\0' 'x' | fold -w 200; echo ${doneMark.slice(0, 6)}""${doneMark.slice(6)}\r`);
    await Promise.race([finished, new Promise((_, reject) => setTimeout(() => reject(new Error("the output stream did not finish within 10 minutes")), 600_000))]);
    const secs = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    await call("handback", { runId: created.id });
    socket.close();
    return { rtt, mbps: got / 1e6 / secs, rssGrowthMb: peak - rss0 };
  } catch (err) {
    console.log(`(socket.io figures unavailable: ${(err as Error).message})`);
    return null;
  } finally {
    await server.kill("SIGTERM");
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
