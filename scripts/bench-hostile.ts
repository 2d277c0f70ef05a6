// npm run bench:hostile — how responsive the server stays while hostile
// output is parsed. For each scenario, against an idle baseline measured in
// the same run: the event loop's delay (perf_hooks.monitorEventLoopDelay,
// p50/p99/max) and the round trip of a /health request to an HTTP server on
// 127.0.0.1 probed every 10 ms (p50/p99/max), as /api/health would answer.
//   (a) a terminal stream parses `x ESC[100000000b` (REP) and a 1,001-code-point
//       grapheme followed by `ESC[2147483647b`;
//   (b) a 50 MB `cat`-like output streams to three watchers;
//   (c) a stdio MCP server answers a call with 15 MB (scripts/bench-hostile-mcp.ts).
// Target: p99 under 100 ms. Prints figures; asserts nothing.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { PodStream } from "@/server/realtime";
import { fakeTerminalPod } from "../test/helpers/fake-pod";
import { measureMcpAnswer, printMcpAnswer } from "./bench-hostile-mcp";

const CAT_MB = Number(process.env.BENCH_MB ?? 50);
const BASELINE_MS = 1500;

interface Figures {
  loop: { p50: number; p99: number; max: number };
  health: { p50: number; p99: number; max: number; n: number };
  ms: number;
}

const pct = (xs: number[], p: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : Number.NaN;

/** Runs `work` while the event loop and a /health probe are measured. */
async function measure(work: () => Promise<void>): Promise<Figures> {
  const server = http.createServer((req, res) => res.end(req.url === "/health" ? '{"ok":true}' : ""));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const rtts: number[] = [];
  let probing = true;
  const probe = async () => {
    while (probing) {
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        http
          .get({ host: "127.0.0.1", port, path: "/health", agent }, (res) => {
            res.resume();
            res.on("end", () => resolve());
          })
          .on("error", () => resolve());
      });
      rtts.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const probing$ = probe();
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  probing = false;
  await probing$;
  histogram.disable();
  agent.destroy();
  server.close();
  const ns = (v: number) => v / 1e6;
  return {
    loop: { p50: ns(histogram.percentile(50)), p99: ns(histogram.percentile(99)), max: ns(histogram.max) },
    health: { p50: pct(rtts, 50), p99: pct(rtts, 99), max: Math.max(...rtts), n: rtts.length },
    ms,
  };
}

/** A stream fed `reads`, `watchers` listeners that encode every message as a socket would; resolves once all was handed out. */
async function stream(reads: Iterable<string>, watchers: number): Promise<void> {
  const fake = fakeTerminalPod();
  let seq = 0;
  const s = new PodStream(
    fake.pod,
    () => ++seq,
    0,
    () => {},
  );
  let bytes = 0;
  for (let i = 0; i < watchers; i++) s.onData((n, data) => (bytes += JSON.stringify({ runId: "r", seq: n, data }).length));
  let count = 0;
  for (const read of reads) {
    fake.emit(read);
    // A PTY gives a few reads per turn of the event loop.
    if (++count % 4 === 0) await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => s.snapshot(r));
  s.dispose();
  if (bytes === 0 && watchers > 0) throw new Error("the watchers got nothing");
}

function* catOutput(mb: number): Generator<string> {
  const line = "The quick brown fox jumps over the lazy dog; 0123456789 abcdefghijklmnopqrstuvwxyz.\r\n";
  const read = line.repeat(Math.ceil(4095 / line.length)).slice(0, 4095);
  for (let sent = 0; sent < mb * 1024 * 1024; sent += read.length) yield read;
}

const SCENARIOS: Array<[string, () => Promise<void>]> = [
  ["idle (baseline)", () => new Promise((r) => setTimeout(r, BASELINE_MS))],
  ["(a) REP: x ESC[100000000b", () => stream(["x\u001b[100000000b\r\n"], 1)],
  [`(b) ${CAT_MB} MB cat to three watchers`, () => stream(catOutput(CAT_MB), 3)],
  ["(a) 1,001-code-point grapheme + ESC[2147483647b", () => stream([`e${"\u0301".repeat(1000)}`, "\u001b[2147483647b\r\n"], 1)],
];

function line(name: string, f: Figures) {
  const r = (v: number) => v.toFixed(1).padStart(8);
  return `${name.padEnd(50)} loop p50 ${r(f.loop.p50)}  p99 ${r(f.loop.p99)}  max ${r(f.loop.max)} ms | /health p50 ${r(f.health.p50)}  p99 ${r(f.health.p99)}  max ${r(f.health.max)} ms (${f.health.n} probes) | ${(f.ms / 1000).toFixed(1)} s`;
}

async function main() {
  console.log(`bench:hostile — event loop and /health while hostile terminal output is parsed (target: p99 < 100 ms)`);
  // The terminal thread starts on first use: start it before measuring.
  await stream(["warm up\r\n"], 1);
  for (const [name, work] of SCENARIOS) {
    console.log(line(name, await measure(work)));
  }
  printMcpAnswer(await measureMcpAnswer());
  process.exit(0);
}

void main();
