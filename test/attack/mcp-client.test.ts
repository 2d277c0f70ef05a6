// Attack: an MCP server an admin attached is hostile (issue 18). A stdio
// server must not reach what Rein's own process can (the host's files, its
// environment, loopback services), must not get secret values past the
// redactor, must not stall Rein with a schema built to backtrack, must not
// stall or fill Rein with an answer too large or too complex to parse (over
// stdio or HTTP), must not slip a tool in under a name that is taken, and
// must not steer Rein with a task (an id too long, a status message too
// long, an answer about another task).
// Admin input is checked too: a command outside the sandbox's system, a
// variable that changes how programs load, credentials in a URL.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_RESULT_CHARS, McpServers, BoundedLineReader, MAX_MCP_MESSAGE_BYTES, sniffId } from "@/server/mcp-client";
import { putSecret } from "@/server/secrets";
import { MemoryReplayCache, ToolRunner, type ToolContext } from "@/server/tools";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { fakeServerConfig } from "../helpers/fake-mcp";
import { startFakeHttpServer, type FakeHttpServer } from "../helpers/fake-mcp-http";
import { startV2McpServer, type V2McpServer } from "../helpers/mcp-v2-server";

let tk: TestKernel;
let mcp: McpServers;

beforeEach(async () => {
  tk = await createTestKernel({ secrets: true });
  mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    log: SILENT_LOG,
    connectTimeoutMs: 3_000,
  });
  await mcp.start();
});
afterEach(async () => {
  await mcp.stop();
  await tk.cleanup();
});

const admin = () => tk.actors.admin;
const ctx = (): ToolContext => ({
  runId: "attack",
  workspace: null as never,
  agent: { name: "demo-mcp", handoffs: [] },
  actorId: tk.users.admin,
  teamId: null,
  signal: new AbortController().signal,
});

async function probe(server: string, file: string, port: number) {
  const out = (await tk.kernel.deps.registry.get(`${server}__probe`)!.execute({ path: file, port }, ctx())) as string;
  return JSON.parse(out) as { file: string; net: string; env: string[] };
}

function listen(): Promise<net.Server> {
  return new Promise((resolve) => {
    const server = net.createServer((s) => {
      // The probe may close its end before reading the greeting; a reset is no failure of the test.
      s.on("error", () => {});
      s.end("hello from the host\n");
    });
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

describe("a stdio MCP server is sandboxed", () => {
  it("sees none of the host's files, none of Rein's environment, and no loopback service", async () => {
    const hostFile = path.join(tk.t.dir, "host-only.txt");
    fs.writeFileSync(hostFile, "the host's data");
    process.env.REIN_ATTACK_CANARY = "canary-value";
    const service = await listen();
    try {
      await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
      await mcp.setTool(admin(), "fake", "probe", { enabled: true });
      const port = (service.address() as net.AddressInfo).port;
      for (const file of [hostFile, "/etc/shadow", "/etc/passwd", path.join(tk.t.dir, "secret.key"), `/proc/1/root${hostFile}`]) {
        const seen = await probe("fake", file, port);
        expect(seen.file, file).toMatch(/^E[A-Z]+$/);
        expect(seen.net).not.toBe("connected");
      }
      const seen = await probe("fake", "/workspace/calls.log", port);
      expect(seen.env).not.toContain("REIN_ATTACK_CANARY");
      expect(seen.env.filter((k) => !["HOME", "LANG", "LC_ALL", "PATH", "PWD", "fake_mode"].includes(k))).toEqual([]);
    } finally {
      delete process.env.REIN_ATTACK_CANARY;
      service.close();
    }
  });

  it("gets the machine's network only when an admin turns it on", async () => {
    const service = await listen();
    try {
      await mcp.add(admin(), { name: "online", transport: "stdio", stdio: { ...fakeServerConfig(), network: true } });
      await mcp.setTool(admin(), "online", "probe", { enabled: true });
      expect((await probe("online", "/nope", (service.address() as net.AddressInfo).port)).net).toBe("connected");
    } finally {
      service.close();
    }
  });
});

describe("secrets a server is given stay secret", () => {
  it("a secret value is redacted from the server's stderr and from what its tools return", async () => {
    await putSecret(tk.t.db, tk.keyring!, { name: "FAKE_TOKEN", value: "sk-live-9f8e7d6c5b4a", actor: null });
    // Silent: it never answers, so Rein shows its stderr, where it printed the token.
    const mute = await mcp.add(admin(), {
      name: "mute",
      transport: "stdio",
      stdio: fakeServerConfig("silent", { fake_leak: { secret: "FAKE_TOKEN" } }),
    });
    expect(mute.health).toBe("failed");
    expect(mute.stderrTail).toContain("token=");
    expect(JSON.stringify(mute)).not.toContain("sk-live-9f8e7d6c5b4a");
    expect((await tk.t.db.mcpServer.findUniqueOrThrow({ where: { name: "mute" } })).stderrTail).not.toContain("sk-live-9f8e7d6c5b4a");

    await mcp.add(admin(), {
      name: "chatty",
      transport: "stdio",
      stdio: fakeServerConfig("serve", { fake_leak: { secret: "FAKE_TOKEN" } }),
    });
    await mcp.setTool(admin(), "chatty", "leak", { enabled: true });
    const runner = new ToolRunner(tk.kernel.deps.registry, new MemoryReplayCache(), undefined, tk.kernel.secrets);
    const result = await runner.run(
      { toolCallId: "c1", toolName: "chatty__leak", args: {} },
      { runId: "attack", nodeId: "1:c1", checkpointId: "cp" },
      ctx(),
      ["chatty__leak"],
    );
    expect(result.outcome.ok).toBe(true);
    expect(JSON.stringify(result.outcome)).not.toContain("sk-live-9f8e7d6c5b4a");
    expect(JSON.stringify(result.outcome)).toContain("[secret:FAKE_TOKEN]");
    for (const row of await tk.t.db.mcpServer.findMany()) expect(row.config).not.toContain("sk-live-9f8e7d6c5b4a");
  });
});

describe("what a server sends is never trusted", () => {
  it("an output schema built to backtrack is never compiled: the call answers at once", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "shaped", { enabled: true });
    const out = await tk.kernel.deps.registry.get("fake__shaped")!.execute({}, ctx());
    expect(out).toMatchObject({ structuredContent: { v: `${"a".repeat(40)}!` } });
  });

  it("a flood of an answer is cut before it reaches the model or the event log", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "flood", { enabled: true });
    const out = (await tk.kernel.deps.registry.get("fake__flood")!.execute({}, ctx())) as string;
    expect(out.length).toBeLessThan(MAX_RESULT_CHARS + 200);
    expect(out).toMatch(/more characters cut/);
  });

  it("an answer over the size limit fails its call with a clear error, and the same server process answers the next call", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "huge", { enabled: true });
    await mcp.setTool(admin(), "fake", "hello", { enabled: true });
    const pid = (mcp as unknown as { live: Map<string, { connection: { pid?: number } | null }> }).live.get("fake")!.connection!.pid;
    const err = await tk.kernel.deps.registry
      .get("fake__huge")!
      .execute({}, ctx())
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ code: "MCP_ANSWER_TOO_LARGE" });
    // The 20,000,000 characters plus the envelope, less the limit.
    expect((err as Error).message).toMatch(/answer was too large: 20,000,0\d\d bytes, 17,902,\d{3} over the limit of 2,097,152 bytes/);
    expect(await tk.kernel.deps.registry.get("fake__hello")!.execute({ name: "again" }, ctx())).toBe("Hello, again!");
    const live = (mcp as unknown as { live: Map<string, { connection: { pid?: number } | null; health: string }> }).live.get("fake")!;
    expect(live.health).toBe("ready");
    expect(live.connection!.pid).toBe(pid);
  });

  it("an oversized message that answers nothing restarts the server cleanly; the next call works", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "blurt", { enabled: true });
    await mcp.setTool(admin(), "fake", "hello", { enabled: true });
    const err = await tk.kernel.deps.registry
      .get("fake__blurt")!
      .execute({}, ctx())
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ code: "MCP_SERVER_CRASHED" });
    expect((err as Error).message).toMatch(/too large and answers no request.*20,000,\d{3} bytes/);
    expect(await tk.kernel.deps.registry.get("fake__hello")!.execute({ name: "again" }, ctx())).toBe("Hello, again!");
  });

  it("an answer of more content items than Rein reads fails its call before they are checked one by one", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "scatter", { enabled: true });
    await expect(tk.kernel.deps.registry.get("fake__scatter")!.execute({}, ctx())).rejects.toMatchObject({
      code: "MCP_ANSWER_TOO_LARGE",
      message: expect.stringMatching(/5,000 content items, more than the 1,000 Rein reads/),
    });
  });

  it("an answer of more distinct names than Rein reads fails its call unread; the server answers the next call", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    await mcp.setTool(admin(), "fake", "tangle", { enabled: true });
    await mcp.setTool(admin(), "fake", "hello", { enabled: true });
    await expect(tk.kernel.deps.registry.get("fake__tangle")!.execute({}, ctx())).rejects.toMatchObject({
      code: "MCP_ANSWER_TOO_LARGE",
      message: expect.stringMatching(/more than 10,000 distinct member names/),
    });
    expect(await tk.kernel.deps.registry.get("fake__hello")!.execute({ name: "again" }, ctx())).toBe("Hello, again!");
  });

  it("an oversized line is skipped as it arrives, never held whole", () => {
    const lines: string[] = [];
    const oversized: number[] = [];
    const reader = new BoundedLineReader(
      MAX_MCP_MESSAGE_BYTES,
      (l) => lines.push(l.toString()),
      (o) => oversized.push(o.bytes),
    );
    const chunk = Buffer.alloc(64 * 1024, "x");
    let most = 0;
    for (let sent = 0; sent < 20_000_000; sent += chunk.length) {
      reader.push(chunk);
      most = Math.max(most, reader.buffered);
    }
    reader.push(Buffer.from('\n{"jsonrpc":"2.0","method":"ok"}\n'));
    expect(most).toBeLessThanOrEqual(MAX_MCP_MESSAGE_BYTES);
    expect(reader.buffered).toBe(0);
    expect(oversized).toEqual([Math.ceil(20_000_000 / chunk.length) * chunk.length]);
    expect(lines).toEqual(['{"jsonrpc":"2.0","method":"ok"}']);
  });

  it("an oversized answer is matched to its request by the id at either end, never by one nested inside", () => {
    const at = (head: string, tail: string) => sniffId({ bytes: 0, head, tail });
    expect(at('{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xx', 'xx"}]}}')).toBe(7);
    expect(at('{"result":{"content":[{"text":"xx', 'xx"}]},"jsonrpc":"2.0","id":"call-8"}')).toBe("call-8");
    expect(at('{"result":{"items":[{"id":3,"v":"xx', 'xx","id":3}]}}')).toBeNull();
    expect(at('{"method":"notifications/message","params":{"data":"xx', 'xx"}}')).toBeNull();
  });

  it("a tool cannot take a name another tool already has", async () => {
    await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
    const squatter = { ...tk.kernel.deps.registry.get("read_file")!, name: "fake__hello" };
    tk.kernel.deps.registry.register(squatter);
    await expect(mcp.setTool(admin(), "fake", "hello", { enabled: true })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(tk.kernel.deps.registry.get("fake__hello")).toBe(squatter);
  });
});

describe("a Streamable HTTP server's answer is bounded", () => {
  let server: FakeHttpServer;
  beforeEach(async () => {
    server = await startFakeHttpServer();
    await mcp.add(admin(), { name: "remote", transport: "http", http: { url: server.url } });
    for (const tool of ["huge", "flood", "tangle", "hello"]) await mcp.setTool(admin(), "remote", tool, { enabled: true });
  });
  afterEach(() => server.stop());
  const call = (tool: string) => tk.kernel.deps.registry.get(`remote__${tool}`)!.execute({}, ctx());

  it.each([
    ["a 20 MB JSON body", "huge", /answer was too large: 20,000,\d{3} bytes, 17,902,\d{3} over the limit of 2,097,152 bytes/],
    ["a 20 MB SSE event", "flood", /answer was too large: 20,000,\d{3} bytes, 17,902,\d{3} over the limit/],
    ["a body of 20,000 distinct names", "tangle", /more than 10,000 distinct member names/],
  ])("%s fails its call with a clear error; the next call works", async (_, tool, message) => {
    await expect(call(tool)).rejects.toMatchObject({ code: "MCP_ANSWER_TOO_LARGE", message: expect.stringMatching(message) });
    expect(await call("hello")).toBe("Hello!");
  });
});

describe("a server's tasks are never trusted", () => {
  let v2: V2McpServer | null = null;
  afterEach(async () => {
    await v2?.close();
    v2 = null;
  });

  async function report(hostile: string, steps = 2) {
    v2 = await startV2McpServer({ tasks: true });
    await mcp.add(admin(), { name: "tasky", transport: "http", http: { url: v2.url } });
    await mcp.setTool(admin(), "tasky", "report", { enabled: true });
    const progress: Array<{ message?: string }> = [];
    const call = tk.kernel.deps.registry
      .get("tasky__report")!
      .execute({ steps, everyMs: 50, pollIntervalMs: 0, hostile }, { ...ctx(), progress: (p) => void progress.push(p) });
    return { server: v2, progress, call };
  }

  it("a status message of 100,000 characters reaches progress cut to 500", async () => {
    const { progress, call } = await report("long-status");
    expect(JSON.stringify(await call)).toContain("report of 2 steps");
    expect(progress.length).toBeGreaterThan(0);
    expect(Math.max(...progress.map((p) => p.message?.length ?? 0))).toBe(500);
  });

  it("a task id of 1,000 characters is not followed", async () => {
    const { server, call } = await report("long-id");
    await expect(call).rejects.toMatchObject({ message: expect.stringMatching(/not a task Rein can follow/) });
    expect(server.methods).not.toContain("tasks/get");
  });

  it("tasks/get answering about another task ends the call and cancels the task Rein started", async () => {
    const { server, call } = await report("other-id", 40);
    await expect(call).rejects.toMatchObject({ message: expect.stringMatching(/another task/) });
    expect(server.methods).toContain("tasks/cancel");
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["cancelled"]);
  });
});

describe("an admin's input is checked", () => {
  const stdio = (over: Record<string, unknown>) => ({ name: "bad", transport: "stdio", stdio: { command: "node", args: [], ...over } });
  it.each([
    ["a program outside the sandbox's system", stdio({ command: "/home/someone/server" })],
    ["a relative program", stdio({ command: "server.sh" })],
    ["a path that climbs out of /usr", stdio({ command: "/usr/../home/x" })],
    ["LD_PRELOAD", stdio({ env: { LD_PRELOAD: { value: "/tmp/x.so" } } })],
    ["NODE_OPTIONS", stdio({ env: { NODE_OPTIONS: { value: "--require /tmp/x.js" } } })],
    ["a secret named in lower case", stdio({ env: { TOKEN: { secret: "../../key" } } })],
    ["credentials in a URL", { name: "bad", transport: "http", http: { url: "https://user:pass@example.com/mcp" } }],
    ["a file URL", { name: "bad", transport: "http", http: { url: "file:///etc/passwd" } }],
    [
      "a Host header",
      { name: "bad", transport: "http", http: { url: "https://example.com/mcp", headers: { Host: { value: "internal" } } } },
    ],
    ["an upper-case name", { ...stdio({}), name: "Bad" }],
    ["a secret that does not exist", stdio({ env: { TOKEN: { secret: "NO_SUCH_SECRET" } } })],
  ])("refuses %s, and stores nothing", async (_, input) => {
    await expect(mcp.add(admin(), input)).rejects.toMatchObject({ code: expect.stringMatching(/INVALID|CONFLICT/) });
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });
});
