// npm run bench:mcp — what MCP costs through Rein (issue 18), each figure
// against a peer measured in the same run:
// (a) a tool call through Rein (policy gate with its audit row, the durable
//     replay cache, the run's tool.call/tool.result events spans are made
//     from) against the same call with the SDK's own client straight to the
//     same server; the reference "everything" server's echo, over stdio and
//     over Streamable HTTP;
// (b) starting a stdio server and reading its tools: in the sandbox
//     (bubblewrap) against the same server started without one;
// (c) Rein's own MCP server: start_run to the run's first event, over HTTP
//     with the SDK's client, against POST /api/v1/runs to the same event.
// Prints figures; asserts nothing.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { configureJail } from "@/server/compute";
import { createApiToken, createUser, loadActor } from "@/server/identity";
import { createKernel, createRun, event, type Kernel } from "@/server/kernel";
import { PolicyGate } from "@/server/policy";
import { HitlBroker, HumanGate, connectHitl, memoryKeyRing, newKeyRecord } from "@/server/hitl";
import { McpServers, McpConnection } from "@/server/mcp-client";
import { createRestHandler } from "@/server/channels";
import { createMcpHandler } from "@/server/mcp-server";
import { type ToolContext } from "@/server/tools";
import { testServices } from "@/test/helpers/services";
import { migratedDb, summary } from "./bench-stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 300;
const STARTS = Number(process.env.BENCH_N) || 10;
const RUNS = Number(process.env.BENCH_RUNS) || 20;
const WARMUP = 20;
const SILENT = { info() {}, error: (m: string, e?: unknown) => console.error(m, e) };
const EVERYTHING = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

function line(label: string, samples: number[]) {
  const s = summary(samples);
  console.log(
    `  ${label.padEnd(44)} p50 ${round(s.p50).toString().padStart(7)} ms   p99 ${round(s.p99).toString().padStart(7)} ms   (n=${s.n})`,
  );
  return s;
}

async function timed(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function directClient(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return client;
}

async function main() {
  configureJail({ allowUnsandboxed: false });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-mcp-"));
  const url = `file:${path.join(dir, "bench.db")}`;
  const db = await migratedDb(url);
  const policy = new PolicyGate(db);
  const gate = new HumanGate({ db, policy });
  const kernel: Kernel = await createKernel({
    db,
    databaseUrl: url,
    dataDir: path.join(dir, "data"),
    workers: 1,
    scriptedDelayMs: 0,
    log: SILENT,
    gate,
  });
  const broker = new HitlBroker({ db, runs: kernel.store, enqueue: (id) => kernel.enqueue(id), log: SILENT });
  connectHitl(kernel, broker, SILENT);
  const adminId = await createUser(db, { email: "bench@rein.local", password: "bench-password-1", role: "admin" });
  const admin = (await loadActor(db, adminId))!;
  const mcp = new McpServers({ db, registry: kernel.deps.registry, dataDir: path.join(dir, "data"), log: SILENT });
  kernel.deps.mcp = mcp;
  await mcp.start();
  let remote: ChildProcess | null = null;
  try {
    console.log(`bench:mcp — ${os.cpus().length} cores, Node ${process.version}; ${ROUNDS} calls, ${STARTS} starts, ${RUNS} runs`);

    // (a) One call through Rein against the SDK client straight to the same server.
    const hold = await createRun(kernel, { goal: "bench", agent: "demo-mcp", scenario: { turns: [{ text: "holding" }] } }, admin);
    await waitForEnd(db, hold.id);
    const ctx = (i: number): ToolContext => ({
      runId: hold.id,
      toolCallId: `c${i}`,
      workspace: kernel.deps.workspaceFor(hold.id),
      agent: { name: "demo-mcp", handoffs: [] },
      actorId: adminId,
      teamId: null,
      signal: new AbortController().signal,
    });
    const throughRein = (tool: string) => async (i: number) => {
      const call = { toolCallId: `c${i}`, toolName: tool, args: { message: `hello ${i}` } };
      await kernel.store.appendEvents(hold.id, [
        event(
          "tool.call",
          { step: 1, agent: "demo-mcp", toolCallId: call.toolCallId, tool, args: call.args },
          { key: `call:${tool}:${i}` },
        ),
      ]);
      const result = await kernel.deps.tools.run(call, { runId: hold.id, nodeId: `${tool}:${i}`, checkpointId: "bench" }, ctx(i), [tool]);
      if (!result.outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(result.outcome)}`);
      await kernel.store.appendEvents(hold.id, [
        event(
          "tool.result",
          {
            step: 1,
            toolCallId: call.toolCallId,
            tool,
            ok: true,
            output: result.outcome.output,
            cached: result.cached,
            replayClass: result.replayClass,
            durationMs: Math.round(result.durationMs),
            origin: "mcp",
          },
          { key: `result:${tool}:${i}` },
        ),
      ]);
    };

    await mcp.addDemo(admin);
    await mcp.setTool(admin, "everything", "echo", { enabled: true });
    const port = await freePort();
    remote = spawn(process.execPath, [EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: "ignore" });
    await waitUntil(async () => !!(await fetch(`http://127.0.0.1:${port}/mcp`).catch(() => null)));
    await mcp.add(admin, { name: "remote", transport: "http", http: { url: `http://127.0.0.1:${port}/mcp` } });
    await mcp.setTool(admin, "remote", "echo", { enabled: true });

    console.log(
      "\n(a) echo, one call: through Rein (policy + audit row, replay cache, events for spans) vs the SDK client straight to the server",
    );
    const stdioDirect = await directClient(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
    const httpDirect = await directClient(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    const direct = (client: Client) => async (i: number) => client.callTool({ name: "echo", arguments: { message: `hello ${i}` } });
    const figures: Record<string, ReturnType<typeof summary>> = {};
    figures.stdioDirect = line("stdio, SDK client direct", await timed(ROUNDS, direct(stdioDirect)));
    const bare = new McpConnection({
      transport: "stdio",
      command: "node",
      args: ["/opt/rein/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
      env: {},
      dir: path.join(dir, "bare"),
      network: false,
      packages: path.resolve("node_modules"),
      pidFile: path.join(dir, "pids", "bare.pid"),
    });
    await bare.connect();
    figures.stdioBare = line(
      "stdio, Rein's connection, sandboxed (no gate)",
      await timed(ROUNDS, (i) => bare.callTool("echo", { message: `hello ${i}` }, { maxMs: 10_000 })),
    );
    await bare.close();
    figures.stdioRein = line("stdio, through Rein (sandboxed server)", await timed(ROUNDS, throughRein("everything__echo")));
    figures.httpDirect = line("Streamable HTTP, SDK client direct", await timed(ROUNDS, direct(httpDirect)));
    figures.httpRein = line("Streamable HTTP, through Rein", await timed(ROUNDS, throughRein("remote__echo")));
    console.log(
      `  of which the harness (policy, audit, cache, events): ${round(figures.stdioRein.p50 - figures.stdioBare.p50)} ms at p50; the sandboxed transport: ${round(figures.stdioBare.p50 - figures.stdioDirect.p50)} ms`,
    );
    console.log(
      `  Rein's overhead: stdio +${round(figures.stdioRein.p50 - figures.stdioDirect.p50)} ms at p50 (${round(figures.stdioRein.p50 / figures.stdioDirect.p50)}×), HTTP +${round(figures.httpRein.p50 - figures.httpDirect.p50)} ms (${round(figures.httpRein.p50 / figures.httpDirect.p50)}×)`,
    );
    await stdioDirect.close();
    await httpDirect.close();

    // (b) Starting a server and reading its tools, sandboxed or not.
    console.log(`\n(b) stdio server start (spawn, initialize, tools/list): in bubblewrap vs without a sandbox`);
    // Spawn, initialize and tools/list are timed; closing is not (the SDK's close waits for the process to exit).
    const sandboxed: number[] = [];
    const plain: number[] = [];
    for (let i = -2; i < STARTS; i++) {
      let t0 = performance.now();
      const c = new McpConnection({
        transport: "stdio",
        command: "node",
        args: ["/opt/rein/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
        env: {},
        dir: path.join(dir, "starts", String(i)),
        network: false,
        packages: path.resolve("node_modules"),
        pidFile: path.join(dir, "pids", `${i}.pid`),
      });
      await c.connect();
      await c.listTools();
      if (i >= 0) sandboxed.push(performance.now() - t0);
      await c.close();
      t0 = performance.now();
      const client = await directClient(
        new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
      );
      await client.listTools();
      if (i >= 0) plain.push(performance.now() - t0);
      await client.close();
    }
    const sb = line("in the sandbox (Rein)", sandboxed);
    const pl = line("no sandbox (SDK StdioClientTransport)", plain);
    console.log(`  the sandbox adds ${round(sb.p50 - pl.p50)} ms at p50 (${round(sb.p50 / pl.p50)}×)`);

    await selfServer(kernel, db, broker, adminId);
  } finally {
    remote?.kill("SIGKILL");
    await mcp.stop();
    await kernel.pool.stop(5_000);
    await broker.stop();
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** (c) Rein's own MCP server: start_run to the first event, against REST. */
async function selfServer(kernel: Kernel, db: Awaited<ReturnType<typeof migratedDb>>, broker: HitlBroker, adminId: string) {
  // (c) Rein's own MCP server: start_run to the first event.
  console.log(`\n(c) Rein's MCP server: start_run → the run's first event, against REST POST /api/v1/runs`);
  const links = { db, keys: memoryKeyRing({ version: 1, current: newKeyRecord(new Date()) }), baseUrl: "http://127.0.0.1" };
  const hitl = { broker, links };
  const token = (await createApiToken(db, { userId: adminId, name: "bench" })).token;
  // The two doors measured need the kernel and the broker; any other service they reached would fail loudly.
  const services = testServices({ db }, { kernel, hitl });
  const mcpHandler = createMcpHandler(services, { publicUrl: "http://127.0.0.1" });
  const rest = createRestHandler(services, { authSecret: "bench-secret-bench-secret-bench-secret", publicUrl: "http://127.0.0.1" });
  const server = http.createServer((req, res) => void (req.url?.startsWith("/mcp") ? mcpHandler(req, res) : rest(req, res)));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  const firstEvent = async (start: () => Promise<string>) => {
    const t0 = performance.now();
    const runId = await start();
    await waitUntil(async () => (await db.runEvent.count({ where: { runId } })) > 0, 1);
    const ms = performance.now() - t0;
    await waitForEnd(db, runId);
    return ms;
  };
  const viaMcp: number[] = [];
  const viaRest: number[] = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const a = await firstEvent(async () => {
      const r = await client.callTool({ name: "start_run", arguments: { agent: "demo-coder", goal: `bench ${i}` } });
      return runIdOf(r);
    });
    const b = await firstEvent(async () => {
      const res = await fetch(`${base}/api/v1/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ agent: "demo-coder", goal: `bench ${i}` }),
      });
      const body = (await res.json()) as { id?: string; run?: { id?: string } };
      const id = body.id ?? body.run?.id;
      if (!id) throw new Error(`POST /api/v1/runs answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      return id;
    });
    if (i >= 3) {
      viaMcp.push(a);
      viaRest.push(b);
    }
  }
  const m = line("start_run over MCP", viaMcp);
  const r = line("POST /api/v1/runs", viaRest);
  console.log(`  MCP adds ${round(m.p50 - r.p50)} ms at p50 (${round(m.p50 / r.p50)}×)`);
  await client.close();
  server.close();
}

function runIdOf(result: unknown): string {
  const r = result as { structuredContent?: { runId?: string; id?: string }; content?: Array<{ text?: string }> };
  const fromStructured = r.structuredContent?.runId ?? r.structuredContent?.id;
  if (fromStructured) return fromStructured;
  const text = r.content?.map((c) => c.text ?? "").join("") ?? "";
  const match = text.match(/"(?:runId|id)"\s*:\s*"([^"]+)"/) ?? text.match(/\b(c[a-z0-9]{20,})\b/);
  if (!match) throw new Error(`start_run returned no run id: ${text.slice(0, 300)}`);
  return match[1];
}

async function waitUntil(check: () => Promise<boolean>, everyMs = 25, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error("timed out");
}

async function waitForEnd(db: Awaited<ReturnType<typeof migratedDb>>, runId: string) {
  await waitUntil(async () =>
    ["succeeded", "failed", "canceled"].includes(
      (await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status,
    ),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
