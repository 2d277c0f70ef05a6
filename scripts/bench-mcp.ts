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
//     with the SDK's client, against POST /api/v1/runs to the same event;
// (d–f) the SDK v2 client (`@modelcontextprotocol/client`, which Rein's
//     connection is built on) against the v1 client it replaced
//     (`@modelcontextprotocol/sdk`), each straight to the same server, taking
//     turns call by call: (d) one echo call, (e) a call to its first progress
//     notification, (f) connecting (docs/mcp.md#revisions). The servers: the
//     reference "everything" server (v1 SDK, 2025-11-25 only) over stdio and
//     Streamable HTTP, and a v2-SDK server in this process (2026-07-28 to the
//     v2 client, its stateless 2025-11-25 leg to the v1 client).
// (g) a call through Rein to a server that wants OAuth (docs/mcp.md#oauth: the
//     bearer opened from the server's sealed record, kept 30 s or until refused) against
//     the same v2-SDK server's call without it, taking turns call by call.
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
import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioTransportV2 } from "@modelcontextprotocol/client/stdio";
import { configureJail } from "@/server/compute";
import { createApiToken, createUser, loadActor } from "@/server/identity";
import { createKernel, createRun, event, type Kernel } from "@/server/kernel";
import { PolicyGate } from "@/server/policy";
import { HitlBroker, HumanGate, connectHitl, memoryKeyRing, newKeyRecord } from "@/server/hitl";
import { McpServers, McpConnection, MCP_PACKAGES_DIR } from "@/server/mcp-client";
import { createRestHandler } from "@/server/channels";
import { createMcpHandler } from "@/server/mcp-server";
import { type ToolContext } from "@/server/tools";
import { testServices } from "@/test/helpers/services";
import { startV2McpServer } from "@/test/helpers/mcp-v2-server";
import { startOAuthMcpServer } from "@/test/helpers/oauth-mcp-server";
import { memoryKeyring } from "@/server/secrets";
import type { Actor } from "@/server/identity";
import { migratedDb, summary } from "./bench-stats";

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 300;
const STARTS = Number(process.env.BENCH_N) || 10;
const RUNS = Number(process.env.BENCH_RUNS) || 20;
const PROGRESS = Number(process.env.BENCH_PROGRESS) || 200;
const CONNECTS = Number(process.env.BENCH_CONNECTS) || 50;
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
    const bare = sandboxedEverything(dir, "bare");
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
      const c = sandboxedEverything(dir, `start-${i}`);
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
    await v2AgainstV1(dir, `http://127.0.0.1:${port}/mcp`);
    await oauthAgainstPlain(kernel, ctx(0), dir);
  } finally {
    for (const x of opened) await x.close().catch(() => {});
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

/** Everything (d–f) opened and has not closed yet: main closes what is left, even on error. */
const opened = new Set<{ close(): Promise<unknown> }>();
function opens<T extends { close(): Promise<unknown> }>(x: T): T {
  opened.add(x);
  return x;
}
async function shut(x: { close(): Promise<unknown> }) {
  opened.delete(x);
  await x.close();
}

/** Each round asks every peer once, starting with a different one each time, so a busy moment slows them alike. */
async function turns(n: number, warmup: number, peers: Record<string, (i: number) => Promise<number>>) {
  const names = Object.keys(peers);
  const out: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = -warmup; i < n; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + warmup + j) % names.length];
      const ms = await peers[name](i);
      if (i >= 0) out[name].push(ms);
    }
  }
  return out;
}

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * From sending the call to its first progress notification; the call is then let finish, untimed. Both SDKs drop
 * a progress notification read together with the call's answer (the answer is handled first): such a call is
 * counted in `lost` and made again.
 */
async function toFirstProgress(call: (onProgress: () => void) => Promise<unknown>, lost: { n: number }): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    let first = 0;
    const t0 = performance.now();
    await call(() => {
      first ||= performance.now();
    });
    if (first) return first - t0;
    lost.n++;
  }
  throw new Error("ten calls in a row finished without a progress notification");
}

type Negotiation = "auto" | "legacy";
const v1Client = () => new Client({ name: "bench", version: "1" });
const v2Client = (mode: Negotiation = "auto") => new ClientV2({ name: "bench", version: "1" }, { versionNegotiation: { mode } });
const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" as const });

/** Rein's connection to the everything server in the sandbox, where `packages` is mounted at MCP_PACKAGES_DIR. */
function sandboxedEverything(dir: string, name: string) {
  return new McpConnection({
    transport: "stdio",
    command: "node",
    args: [`${MCP_PACKAGES_DIR}/@modelcontextprotocol/server-everything/dist/index.js`, "stdio"],
    env: {},
    dir: path.join(dir, name),
    network: false,
    packages: path.resolve("node_modules"),
    pidFile: path.join(dir, "pids", `${name}.pid`),
  });
}

/** (d–f) The v2 SDK client against the v1 client, each straight to the same server, and Rein's connection (v2) beside them. */
async function v2AgainstV1(dir: string, everythingUrl: string) {
  const fixture = opens(await startV2McpServer());
  const targets = [
    { name: "everything, stdio", stdio: true, url: "", echo: (i: number) => ({ message: `hello ${i}` }), revisions: "both 2025-11-25" },
    {
      name: "everything, HTTP",
      stdio: false,
      url: everythingUrl,
      echo: (i: number) => ({ message: `hello ${i}` }),
      revisions: "both 2025-11-25",
    },
    {
      name: "v2 server, HTTP",
      stdio: false,
      url: fixture.url,
      echo: (i: number) => ({ text: `hello ${i}` }),
      revisions: "v1 2025-11-25, v2 2026-07-28",
    },
  ];
  const connectV1 = async (t: (typeof targets)[number]) => {
    const c = opens(v1Client());
    await c.connect(t.stdio ? new StdioClientTransport(everythingStdio()) : new StreamableHTTPClientTransport(new URL(t.url)));
    return c;
  };
  const connectV2 = async (t: (typeof targets)[number], mode: Negotiation = "auto") => {
    const c = opens(v2Client(mode));
    await c.connect(t.stdio ? new StdioTransportV2(everythingStdio()) : new HttpTransportV2(new URL(t.url)));
    return c;
  };
  const connectRein = async (t: (typeof targets)[number], i: number | string) => {
    const c = opens(t.stdio ? sandboxedEverything(dir, `v2-${i}`) : new McpConnection({ transport: "http", url: t.url, headers: {} }));
    const info = await c.connect();
    return { c, info };
  };
  /** Closes an HTTP client's session too (the everything server keeps one per client until told). */
  const closeV1 = async (c: Client) => {
    const transport = c.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) await transport.terminateSession().catch(() => {});
    await shut(c);
  };
  const closeV2 = async (c: ClientV2) => {
    const transport = c.transport;
    if (transport instanceof HttpTransportV2 && transport.sessionId) await transport.terminateSession().catch(() => {});
    await shut(c);
  };

  // (d) One echo call.
  console.log(
    `\n(d) echo, one call: the SDK v2 client vs the v1 client, straight to the same server (connecting is in (f), not here), and Rein's connection (v2)`,
  );
  for (const t of targets) {
    const v1 = await connectV1(t);
    const v2 = await connectV2(t);
    const { c: rein, info } = await connectRein(t, "d");
    console.log(
      ` ${t.name}: ${t.revisions === "both 2025-11-25" ? `both speak ${v2.getNegotiatedProtocolVersion()}` : `v1 speaks 2025-11-25, v2 ${v2.getNegotiatedProtocolVersion()}`}; Rein's connection ${info.protocolVersion}${t.stdio ? ", sandboxed" : ""}`,
    );
    const got = await turns(ROUNDS, WARMUP, {
      v1: (i) => elapsed(() => v1.callTool({ name: "echo", arguments: t.echo(i) })),
      v2: (i) => elapsed(() => v2.callTool({ name: "echo", arguments: t.echo(i) })),
      rein: (i) => elapsed(() => rein.callTool("echo", t.echo(i), { maxMs: 10_000 })),
    });
    const a = line("v1 SDK client", got.v1);
    const b = line("v2 SDK client", got.v2);
    line("Rein's connection (v2, no gate)", got.rein);
    console.log(`  v2 against v1: ${sign(b.p50 - a.p50)} ms at p50 (${round(b.p50 / a.p50)}×), ${sign(b.p99 - a.p99)} ms at p99`);
    await closeV1(v1);
    await closeV2(v2);
    await shut(rein);
  }

  // (e) A call to its first progress notification.
  console.log(
    `\n(e) a call that reports progress, from sending it to its first progress notification: v1 vs v2 SDK client, and Rein's connection (onProgress)`,
  );
  // The everything tool waits a timer tick (at least 1 ms) before each progress; count sends its first at once.
  const progressTargets = [
    { ...targets[0], tool: "trigger-long-running-operation", args: { duration: 0, steps: 3 } },
    { ...targets[1], tool: "trigger-long-running-operation", args: { duration: 0, steps: 3 } },
    { ...targets[2], tool: "count", args: { n: 3, everyMs: 1 } },
  ];
  for (const t of progressTargets) {
    const v1 = await connectV1(t);
    const v2 = await connectV2(t);
    const { c: rein } = await connectRein(t, "e");
    console.log(
      ` ${t.name}, ${t.tool} ${JSON.stringify(t.args)}: ${t.revisions}${t.tool === "count" ? "" : " (a timer tick, ≥1 ms, before the first progress)"}`,
    );
    const lost = { v1: { n: 0 }, v2: { n: 0 }, rein: { n: 0 } };
    const got = await turns(PROGRESS, 5, {
      v1: () => toFirstProgress((onprogress) => v1.callTool({ name: t.tool, arguments: t.args }, undefined, { onprogress }), lost.v1),
      v2: () => toFirstProgress((onprogress) => v2.callTool({ name: t.tool, arguments: t.args }, { onprogress }), lost.v2),
      rein: () => toFirstProgress((onProgress) => rein.callTool(t.tool, t.args, { maxMs: 10_000, onProgress }), lost.rein),
    });
    const a = line("v1 SDK client", got.v1);
    const b = line("v2 SDK client", got.v2);
    line("Rein's connection (v2, no gate)", got.rein);
    console.log(`  v2 against v1: ${sign(b.p50 - a.p50)} ms at p50 (${round(b.p50 / a.p50)}×), ${sign(b.p99 - a.p99)} ms at p99`);
    if (lost.v1.n + lost.v2.n + lost.rein.n)
      console.log(
        `  calls whose every progress came only with the answer, and was dropped (made again): v1 ${lost.v1.n}, v2 ${lost.v2.n}, Rein's ${lost.rein.n}`,
      );
    await closeV1(v1);
    await closeV2(v2);
    await shut(rein);
  }

  // (f) Connecting: the v1 client's initialize against the v2 client's auto negotiation.
  console.log(
    `\n(f) connecting, to the handshake's end: v1 \`initialize\` vs v2 auto (\`server/discover\`; to a 2025-11-25 server it is refused, then \`initialize\`),` +
      `\n    the v2 client told to skip the probe (legacy), and Rein's connection (v2 auto); closing is not timed`,
  );
  for (const t of targets) {
    const n = t.stdio ? STARTS : CONNECTS;
    console.log(
      ` ${t.name}${t.stdio ? " (each connect starts the server; the v2 SDK's own stdio transport asks server/discover of a second, short-lived copy)" : ""}`,
    );
    const got = await turns(n, 1, {
      v1: async () => {
        const t0 = performance.now();
        const c = await connectV1(t);
        const ms = performance.now() - t0;
        await closeV1(c);
        return ms;
      },
      v2: async () => {
        const t0 = performance.now();
        const c = await connectV2(t, "auto");
        const ms = performance.now() - t0;
        await closeV2(c);
        return ms;
      },
      v2legacy: async () => {
        const t0 = performance.now();
        const c = await connectV2(t, "legacy");
        const ms = performance.now() - t0;
        await closeV2(c);
        return ms;
      },
      rein: async (i) => {
        const t0 = performance.now();
        const { c } = await connectRein(t, `f${i}`);
        const ms = performance.now() - t0;
        await shut(c);
        return ms;
      },
    });
    const a = line("v1 SDK client, initialize", got.v1);
    const b = line("v2 SDK client, auto", got.v2);
    const l = line("v2 SDK client, legacy (no probe)", got.v2legacy);
    line(`Rein's connection (v2 auto${t.stdio ? ", sandboxed" : ""})`, got.rein);
    console.log(
      t.revisions === "both 2025-11-25"
        ? `  v2 auto against v1: ${sign(b.p50 - a.p50)} ms at p50 (${round(b.p50 / a.p50)}×); of which the probe (auto against legacy): ${sign(b.p50 - l.p50)} ms`
        : `  v2 auto against v1: ${sign(b.p50 - a.p50)} ms at p50 (${round(b.p50 / a.p50)}×); server/discover against the same client's initialize: ${sign(b.p50 - l.p50)} ms`,
    );
  }
  console.log(
    "  So: to a 2025-11-25 server the v2 client's probe costs every connect one refused round trip more than v1's initialize;" +
      "\n  over stdio the SDK's own transport asks a second copy of the server, a whole extra start (Rein's sandboxed transport asks in place);" +
      "\n  to a 2026-07-28 server server/discover is the whole handshake, with no session.",
  );
  await shut(fixture);
}

/** (g) The same echo through Rein: to a server that wants OAuth, and to the same server's code without it. */
async function oauthAgainstPlain(kernel: Kernel, ctx: ToolContext, dir: string) {
  let admin: Actor;
  const plain = opens(await startV2McpServer());
  const guarded = opens(await startOAuthMcpServer());
  // A database of its own: the servers of (a) are not this instance's to start again.
  const own = await migratedDb(`file:${path.join(dir, "oauth.db")}`);
  const adminId = await createUser(own, { email: "bench@rein.local", password: "bench-password-1", role: "admin" });
  admin = (await loadActor(own, adminId))!;
  const mcp = new McpServers({
    db: own,
    registry: kernel.deps.registry,
    dataDir: path.join(dir, "data-oauth"),
    keyring: memoryKeyring(),
    // The guarded server is not authorized yet when it first starts: that expected failure is not printed.
    log: { info() {}, error() {} },
    publicUrl: "http://localhost:3999",
  });
  await mcp.start();
  try {
    await mcp.add(admin, { name: "plain", transport: "http", http: { url: plain.url } });
    await mcp.add(admin, {
      name: "guarded",
      transport: "http",
      http: { url: guarded.mcpUrl, oauth: { authorizationServer: guarded.issuer } },
    });
    // The admin's browser: the authorization server consents at once and sends it back with a code.
    const { authorizationUrl } = await mcp.authorize(admin, "guarded");
    const back = new URL((await fetch(authorizationUrl, { redirect: "manual" })).headers.get("location") ?? "");
    const q = (name: string) => back.searchParams.get(name) ?? "";
    const done = await mcp.finishAuthorization(admin, { state: q("state"), code: q("code"), iss: q("iss") });
    if (!done.ok) throw new Error(`the bench's authorization failed: ${done.message}`);
    for (const server of ["plain", "guarded"]) await mcp.setTool(admin, server, "echo", { enabled: true });
    const call = (server: string) => async (i: number) => {
      const tool = kernel.deps.registry.get(`${server}__echo`)!;
      const t0 = performance.now();
      await tool.execute({ text: `hello ${i}` }, ctx);
      return performance.now() - t0;
    };
    console.log(`\n(g) OAuth: an echo through Rein's connection over HTTP, with a bearer from its sealed record against none`);
    const got = await turns(ROUNDS, WARMUP, { plain: call("plain"), oauth: call("guarded") });
    const a = line("no authorization", got.plain);
    const b = line("OAuth (token kept 30 s or until refused)", got.oauth);
    console.log(`  OAuth adds ${sign(b.p50 - a.p50)} ms at p50 (${round(b.p50 / a.p50)}×), ${sign(b.p99 - a.p99)} ms at p99`);
  } finally {
    await mcp.stop();
    await own.$disconnect();
  }
}

function sign(n: number) {
  return `${n >= 0 ? "+" : ""}${round(n)}`;
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
