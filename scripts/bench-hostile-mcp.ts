// What a hostile stdio MCP server's answer costs Rein's event loop
// (docs/security.md#what-external-servers-send): a sandboxed server answers a
// tool call with a 15 MB result (its id last, as the SDK's servers write it),
// then with the costliest answer Rein still reads: just within the limits of
// size, values and distinct names (server/mcp-client/limits.ts). Event-loop
// delay (perf_hooks.monitorEventLoopDelay and a 1 ms probe timer) is measured
// during each answer, against an idle baseline of the same connection in the
// same run. Prints figures; asserts nothing.
// Run: bash scripts/with-node.sh tsx scripts/bench-hostile-mcp.ts
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { configureJail } from "@/server/compute";
import { MAX_MCP_MESSAGE_BYTES, McpConnection } from "@/server/mcp-client";

const HUGE_BYTES = 15 * 1024 * 1024;
const IDLE_MS = 1_000;

// Answers initialize, tools/list and three tools: huge (15 MB), many (just
// within every limit) and hello.
const SERVER = String.raw`
const rl = require("node:readline").createInterface({ input: process.stdin });
const huge = "x".repeat(Number(process.env.huge_bytes));
const send = (s) => process.stdout.write(s + "\n");
// Just within every limit: 9,900 distinct names, 95,000 values in all, the rest of 2 MiB in one string.
const atLimits = (limit) => {
  const names = Object.fromEntries(Array.from({ length: 9900 }, (_, i) => ["name" + i, i]));
  const v = Array.from({ length: 85000 }, () => ({}));
  const body = JSON.stringify({ content: [{ type: "text", text: "" }], structuredContent: { names, v, s: "" } });
  return body.replace('"s":""', '"s":"' + "x".repeat(limit - body.length - 100) + '"');
};
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  const reply = (result) => send(JSON.stringify({ result, jsonrpc: "2.0", id: msg.id }));
  if (msg.method === "initialize") reply({ protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } });
  else if (msg.method === "tools/list") reply({ tools: [] });
  else if (msg.method === "tools/call" && msg.params.name === "huge") send('{"result":{"content":[{"type":"text","text":"' + huge + '"}]},"jsonrpc":"2.0","id":' + JSON.stringify(msg.id) + "}");
  else if (msg.method === "tools/call" && msg.params.name === "many") send('{"result":' + atLimits(Number(process.env.limit_bytes)) + ',"jsonrpc":"2.0","id":' + JSON.stringify(msg.id) + "}");
  else if (msg.method === "tools/call") reply({ content: [{ type: "text", text: "hello" }] });
});
`;

export interface LoopDelay {
  /** perf_hooks.monitorEventLoopDelay, ms. */
  p50: number;
  p99: number;
  max: number;
  /** A 1 ms interval timer: how late each tick came, ms. */
  probeP50: number;
  probeP99: number;
  probeMax: number;
  /** How long the window lasted, ms. */
  windowMs: number;
  /** CPU time this process spent in the window (all threads), ms: a stall much longer than it was the machine's, not Rein's. */
  cpuMs: number;
}

export interface McpAnswerFigures {
  idle: LoopDelay;
  /** The 15 MB answer, and what the call came to. */
  huge: LoopDelay & { outcome: string };
  /** The costliest answer Rein reads: just within every limit. */
  atLimit: LoopDelay & { outcome: string; bytes: number };
  /** The call after the 15 MB answer, on the same connection. */
  nextCall: string;
}

const round = (n: number) => Math.round(n * 100) / 100;

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; delay: LoopDelay }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const lags: number[] = [];
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - 1));
    last = now;
  }, 1);
  histogram.enable();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let result: T;
  try {
    result = await work();
  } finally {
    // The answer's last stretch (parse, check, the call resolving) runs in one tick: let both clocks see it end.
    await new Promise((r) => setTimeout(r, 5));
    lags.push(Math.max(0, performance.now() - last - 1));
    histogram.disable();
    clearInterval(probe);
  }
  const windowMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const sorted = lags.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  const ms = (ns: number) => round(ns / 1e6);
  return {
    result,
    delay: {
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      probeP50: round(at(0.5)),
      probeP99: round(at(0.99)),
      probeMax: round(sorted[sorted.length - 1] ?? 0),
      windowMs: round(windowMs),
      cpuMs: round((used.user + used.system) / 1000),
    },
  };
}

const outcomeOf = async (p: Promise<unknown>) =>
  p.then(
    (r) => `answered (${JSON.stringify((r as { content?: unknown }).content ?? null).length} characters)`,
    (err: Error) => `failed: ${err.message.slice(0, 200)}`,
  );

export async function measureMcpAnswer(): Promise<McpAnswerFigures> {
  configureJail({ allowUnsandboxed: false });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-hostile-mcp-"));
  const connection = new McpConnection({
    transport: "stdio",
    command: "node",
    args: ["-e", SERVER.trim()],
    env: { huge_bytes: String(HUGE_BYTES), limit_bytes: String(MAX_MCP_MESSAGE_BYTES) },
    dir: path.join(dir, "server"),
    network: false,
    packages: path.resolve("node_modules"),
    pidFile: path.join(dir, "pids", "hostile.pid"),
  });
  try {
    await connection.connect();
    await connection.callTool("hello", {}, { maxMs: 60_000 });
    const idle = (await measure(() => new Promise((r) => setTimeout(r, IDLE_MS)))).delay;
    const huge = await measure(() => outcomeOf(connection.callTool("huge", {}, { maxMs: 120_000 })));
    const nextCall = await outcomeOf(connection.callTool("hello", {}, { maxMs: 60_000 }));
    const atLimit = await measure(() => outcomeOf(connection.callTool("many", {}, { maxMs: 120_000 })));
    return {
      idle,
      huge: { ...huge.delay, outcome: huge.result },
      atLimit: { ...atLimit.delay, outcome: atLimit.result, bytes: MAX_MCP_MESSAGE_BYTES },
      nextCall,
    };
  } finally {
    await connection.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function print(label: string, d: LoopDelay) {
  console.log(
    `  ${label.padEnd(40)} loop delay p50 ${d.p50} ms, p99 ${d.p99} ms, max ${d.max} ms; 1 ms probe p50 ${d.probeP50} ms, p99 ${d.probeP99} ms, max ${d.probeMax} ms (window ${d.windowMs} ms, CPU ${d.cpuMs} ms)`,
  );
}

/** Prints what measureMcpAnswer measured (also part of `npm run bench:hostile`). */
export function printMcpAnswer(f: McpAnswerFigures) {
  console.log(`A hostile stdio MCP server's answer, event-loop delay (limit ${MAX_MCP_MESSAGE_BYTES} bytes a message):`);
  print("idle (same connection)", f.idle);
  print(`15 MB answer`, f.huge);
  console.log(`    → ${f.huge.outcome}`);
  console.log(`    next call on the same connection → ${f.nextCall}`);
  print(`costliest answer read (at the limits)`, f.atLimit);
  console.log(`    → ${f.atLimit.outcome}`);
}

async function main() {
  printMcpAnswer(await measureMcpAnswer());
}

if (process.argv[1]?.endsWith("bench-hostile-mcp.ts")) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
