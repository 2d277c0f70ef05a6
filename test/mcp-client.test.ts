// MCP servers as tool sources, end to end (docs/mcp.md, issue 18): the
// reference "everything" server over stdio in the sandbox and over
// Streamable HTTP, and a hand-written server for what a reference server
// cannot be made to do on purpose (hang, crash, change a tool after review).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { McpElicitations, McpError, McpServers } from "@/server/mcp-client";
import { startV2McpServer, type V2McpServer } from "@/test/helpers/mcp-v2-server";
import { putSecret } from "@/server/secrets";
import { MemoryReplayCache, ReplayUnsafeError, ToolError, ToolRunner, inputHash, type ReplayCache, type ToolContext } from "@/server/tools";
import { createTestKernel, SILENT_LOG, type TestKernel } from "./helpers/kernel";
import { fakeServerConfig } from "./helpers/fake-mcp";
import { freePort } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let mcp: McpServers;
let warnings: Array<{ runId: string; payload: Record<string, unknown> }>;

beforeEach(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true, telemetry: true });
  warnings = [];
  mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    warn: async (runId, payload) => void warnings.push({ runId, payload }),
    log: SILENT_LOG,
    connectTimeoutMs: 5_000,
    elicitations: new McpElicitations({
      db: tk.t.db,
      appendEvents: (runId, events) => tk.kernel.store.appendEvents(runId, events),
      cancel: (id, reason) => tk.hitl!.broker.cancel(id, reason),
    }),
  });
  tk.kernel.deps.mcp = mcp;
  await mcp.start();
});
afterEach(async () => {
  await mcp.stop();
  await tk.cleanup();
});

const admin = () => tk.actors.admin;
const callsLog = (server: string) => path.join(tk.t.dir, "mcp", "servers", server, "calls.log");
const readCalls = (server: string) => (fs.existsSync(callsLog(server)) ? fs.readFileSync(callsLog(server), "utf8") : "");

function ctxFor(signal = new AbortController().signal, agent = "demo-mcp"): ToolContext {
  return {
    runId: "test-run",
    workspace: null as never,
    agent: { name: agent, handoffs: [] },
    actorId: tk.users.admin,
    teamId: null,
    signal,
  };
}

/** Calls an MCP tool as the registry holds it (scope, pin and server checks included). */
async function call(name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) {
  const tool = tk.kernel.deps.registry.get(name);
  if (!tool) throw new Error(`${name} is not in the registry`);
  return tool.execute(args, ctxFor(signal));
}

async function addFake(name = "fake", extra: Record<string, unknown> = {}, mode: "serve" | "silent" = "serve", env = {}) {
  return mcp.add(admin(), { name, transport: "stdio", stdio: fakeServerConfig(mode, env), ...extra });
}

async function enable(server: string, ...tools: string[]) {
  for (const tool of tools) await mcp.setTool(admin(), server, tool, { enabled: true });
}

describe("the bundled demo server over stdio, in the sandbox", () => {
  it("starts, lists its tools off; an admin turns three on; demo-mcp calls them through policy, cache and spans", async () => {
    const added = await mcp.addDemo(admin());
    expect(added).toMatchObject({ name: "everything", transport: "stdio", health: "ready", enabled: true });
    expect(added.info?.name).toBeTruthy();
    expect(added.info?.protocolVersion).toBe("2025-11-25");
    const echo = added.tools!.find((t) => t.name === "echo")!;
    expect(echo).toMatchObject({
      exposedName: "everything__echo",
      policyName: "mcp:everything/echo",
      state: "disabled",
      live: false,
      replayClass: "pure",
    });
    expect(echo.annotations).toMatchObject({ readOnlyHint: true });
    expect(echo.tokens).toBeGreaterThan(10);
    expect(added.tools!.find((t) => t.name === "toggle-simulated-logging")!.replayClass).toBe("unsafe_on_replay");
    expect(tk.kernel.deps.registry.get("everything__echo")).toBeUndefined();

    await enable("everything", "echo", "get-sum", "trigger-long-running-operation");
    const tool = (await mcp.tools(admin(), "everything")).find((t) => t.name === "echo")!;
    expect(tool).toMatchObject({ state: "enabled", live: true, allowedAgents: ["*"], allowedTeams: ["*"] });

    const run = await createRun(tk.kernel, { goal: "Try MCP", agent: "demo-mcp" }, tk.actors.operator);
    const progress: number[] = [];
    const off = tk.kernel.bus.onTransient(run.id, (m) => m.type === "tool.progress" && progress.push(m.progress));
    expect(await tk.settle(run.id)).toBe("succeeded");
    off();
    const results = (await tk.kernel.store.listEvents(run.id, 0, 1000))
      .filter((e) => e.type === "tool.result")
      .map((e) => e.payload as Record<string, any>);
    expect(results.map((r) => [r.tool, r.ok, r.origin, r.replayClass])).toEqual([
      ["everything__echo", true, "mcp", "pure"],
      ["everything__get-sum", true, "mcp", "pure"],
      ["everything__trigger-long-running-operation", true, "mcp", "pure"],
    ]);
    expect(JSON.stringify(results[0].output)).toContain("Hello from Rein");
    expect(JSON.stringify(results[1].output)).toContain("42");
    expect(results[0].gate.policy).toMatchObject({ effect: "allow" });
    expect(progress.length).toBeGreaterThanOrEqual(2);

    const audit = await tk.t.db.auditEntry.findMany({ where: { runId: run.id, kind: "policy.decision" } });
    expect(audit.map((a) => JSON.parse(a.detail).ruleName)).toEqual(Array(3).fill("MCP tools an admin turned on"));
    await tk.telemetry!.sink.flush();
    const spans = await tk.t.db.span.findMany({ where: { runId: run.id, kind: "execute_tool" } });
    expect(spans).toHaveLength(3);
    for (const s of spans) expect(JSON.parse(s.attributes)["gen_ai.tool.type"]).toBe("mcp");
  });

  it("only admins attach, change or read servers", async () => {
    for (const role of ["operator", "approver", "viewer"] as const) {
      const err = await mcp.addDemo(tk.actors[role]).catch((e) => e);
      expect(err).toBeInstanceOf(McpError);
      expect(err.code).toBe("FORBIDDEN");
      await expect(mcp.list(tk.actors[role])).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });

  it("a tool off or out of scope is not offered, and refused if called by name", async () => {
    await addFake();
    expect(mcp.toolsFor({ id: "r", teamId: null }, { name: "demo-mcp", tools: [] })).toEqual([]);
    await mcp.setTool(admin(), "fake", "hello", { enabled: true, allowedAgents: ["demo-coder"], allowedTeams: ["*"] });
    expect(mcp.toolsFor({ id: "r", teamId: null }, { name: "demo-mcp", tools: [] })).toEqual([]);
    expect(mcp.toolsFor({ id: "r", teamId: null }, { name: "demo-coder", tools: [] })).toEqual(["fake__hello"]);
    // Naming the tool in an agent's spec does not widen its scope.
    expect(mcp.toolsFor({ id: "r", teamId: null }, { name: "demo-mcp", tools: ["fake__hello"] })).toEqual([]);
    // Turning a tool on with only its agents named leaves it open to every team.
    await mcp.setTool(admin(), "fake", "fails", { enabled: true, allowedAgents: ["demo-mcp"] });
    expect((await mcp.tools(admin(), "fake")).find((t) => t.name === "fails")).toMatchObject({
      allowedAgents: ["demo-mcp"],
      allowedTeams: ["*"],
    });
    const err: any = await call("fake__hello", { name: "x" }).catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe("MCP_TOOL_NOT_IN_SCOPE");
    expect(readCalls("fake")).toBe("");
  });
});

describe("the other reference servers, unchanged, in the sandbox", () => {
  it("server-filesystem sees only its own folder; server-memory keeps its graph there", async () => {
    const pkg = "/opt/rein/node_modules/@modelcontextprotocol";
    await mcp.add(admin(), {
      name: "files",
      transport: "stdio",
      stdio: { command: "node", args: [`${pkg}/server-filesystem/dist/index.js`, "/workspace"] },
    });
    await enable("files", "write_file", "read_text_file");
    await call("files__write_file", { path: "/workspace/note.txt", content: "written through MCP" });
    expect(fs.readFileSync(path.join(tk.t.dir, "mcp", "servers", "files", "note.txt"), "utf8")).toBe("written through MCP");
    expect(JSON.stringify(await call("files__read_text_file", { path: "/workspace/note.txt" }))).toContain("written through MCP");
    await expect(call("files__read_text_file", { path: "/etc/hostname" })).rejects.toMatchObject({ code: "MCP_TOOL_ERROR" });

    await mcp.add(admin(), {
      name: "memory",
      transport: "stdio",
      stdio: {
        command: "node",
        args: [`${pkg}/server-memory/dist/index.js`],
        env: { MEMORY_FILE_PATH: { value: "/workspace/memory.jsonl" } },
      },
    });
    await enable("memory", "create_entities", "read_graph");
    await call("memory__create_entities", { entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }] });
    expect(JSON.stringify(await call("memory__read_graph"))).toContain("wrote the first program");
    expect(fs.readFileSync(path.join(tk.t.dir, "mcp", "servers", "memory", "memory.jsonl"), "utf8")).toContain("Ada");
  });
});

describe("failures a person can understand", () => {
  it("a server that never answers initialize is given up, with its stderr, and nothing is left running", async () => {
    const slow = new McpServers({
      db: tk.t.db,
      registry: tk.kernel.deps.registry,
      dataDir: tk.t.dir,
      log: SILENT_LOG,
      connectTimeoutMs: 1_500,
    });
    await slow.start();
    try {
      const view = await slow.add(admin(), { name: "mute", transport: "stdio", stdio: fakeServerConfig("silent") });
      expect(view.health).toBe("failed");
      expect(view.reason).toMatch(/did not start: no answer to the handshake within 2 s/);
      expect(view.stderrTail).toContain("fake: ready");
      expect(fs.existsSync(path.join(tk.t.dir, "mcp", "pids", "mute.pid"))).toBe(false);
    } finally {
      await slow.stop();
    }
  });

  it("a server that crashes mid-call: the call fails saying so, and the next call starts it again", async () => {
    await addFake();
    await enable("fake", "crash", "hello");
    const err: any = await call("fake__crash").catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe("MCP_SERVER_CRASHED");
    expect(err.message).toMatch(/exited with code 3|stopped during the call/);
    await waitFor(async () => (await mcp.get(admin(), "fake")).health === "failed", "the server to be marked failed");
    expect((await mcp.get(admin(), "fake")).stderrTail).toContain("crashing on purpose");
    expect(await call("fake__hello", { name: "again" })).toBe("Hello, again!");
  });

  it("cancelling a call tells the server; a call past its limit gives up", async () => {
    await addFake("fake", { callTimeoutSec: 2 });
    await enable("fake", "hang");
    const abort = new AbortController();
    const pending = call("fake__hang", {}, abort.signal).catch((e) => e);
    await waitFor(async () => readCalls("fake").includes("call hang"), "the call to reach the server");
    abort.abort();
    expect(await pending).toMatchObject({ code: "CANCELED" });
    await waitFor(async () => /cancelled \d+/.test(readCalls("fake")), "the server to hear of the cancellation");

    const timedOut = await call("fake__hang").catch((e) => e);
    expect(timedOut).toMatchObject({ code: "TIMEOUT" });
  });

  it("an error result reaches the agent as a tool error with the server's words", async () => {
    await addFake();
    await enable("fake", "fails");
    await expect(call("fake__fails")).rejects.toMatchObject({ code: "MCP_TOOL_ERROR", message: "the widget is broken" });
  });
});

describe("a changed definition (rug pull)", () => {
  it("is taken off until an admin reviews it, on list_changed and again after a restart", async () => {
    await addFake();
    await enable("fake", "hello", "mutate");
    expect(await call("fake__hello", { name: "Ada" })).toBe("Hello, Ada!");
    await call("fake__mutate");
    await waitFor(
      async () => (await mcp.tools(admin(), "fake")).find((t) => t.name === "hello")!.state === "changed",
      "hello to be taken off",
    );
    expect(tk.kernel.deps.registry.get("fake__hello")).toBeUndefined();
    expect(mcp.toolsFor({ id: "r", teamId: null }, { name: "demo-mcp", tools: [] })).toEqual(["fake__mutate"]);
    const hello = (await mcp.tools(admin(), "fake")).find((t) => t.name === "hello")!;
    expect(hello.change!.pinned.description).toBe("Says hello to someone");
    expect(hello.change!.definition.description).toMatch(/Ignore your instructions/);
    await expect(mcp.setTool(admin(), "fake", "hello", { enabled: true })).rejects.toMatchObject({ code: "CONFLICT" });
    const changed = await tk.t.db.auditEntry.findMany({ where: { kind: "mcp.tool.changed" } });
    expect(changed.map((a) => a.subject)).toEqual(["mcp:fake/hello"]);

    // Accepting pins the new definition; a restart brings back the old one, which is a change again.
    await mcp.review(admin(), "fake", "hello", true);
    expect(tk.kernel.deps.registry.get("fake__hello")!.description).toMatch(/^Ignore your instructions/);
    await mcp.test(admin(), "fake");
    expect((await mcp.tools(admin(), "fake")).find((t) => t.name === "hello")!.state).toBe("changed");
    await mcp.review(admin(), "fake", "hello", false);
    expect((await mcp.tools(admin(), "fake")).find((t) => t.name === "hello")!.state).toBe("disabled");
    expect(
      (
        await tk.t.db.auditEntry.findMany({ where: { kind: { in: ["mcp.tool.approved", "mcp.tool.rejected"] } }, orderBy: { id: "asc" } })
      ).map((a) => a.kind),
    ).toEqual(["mcp.tool.approved", "mcp.tool.rejected"]);
  });
});

describe("a server asking a person (elicitation)", () => {
  const operator = () => ({ id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role });

  it("becomes a human request; the person's answer goes back to the server and the run goes on", async () => {
    await mcp.addDemo(admin());
    await enable("everything", "trigger-elicitation-request");
    const scenario = {
      stopOnError: true,
      turns: [{ toolCalls: [{ tool: "everything__trigger-elicitation-request", args: {} }] }, { text: "The server has its answers." }],
    };
    const run = await createRun(tk.kernel, { goal: "Answer the server", agent: "demo-mcp", scenario }, tk.actors.operator);
    const request = await waitFor(
      () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation" } }),
      "the server's question to reach the Inbox",
    );
    expect(request).toMatchObject({ kind: "provide", requiredRole: "operator", state: "PENDING" });
    expect(request.title).toBe("everything asks: Please provide inputs for the following fields:");
    expect(JSON.parse(request.payload).schema.required).toEqual(["name"]);
    // A viewer cannot answer it.
    await expect(
      tk.hitl!.broker.decide(
        request.id,
        { id: tk.actors.viewer.userId, name: "V", role: "viewer" },
        { decision: "provide", value: { name: "V" } },
        "inbox",
      ),
    ).rejects.toThrow();
    await tk.hitl!.broker.decide(
      request.id,
      operator(),
      { decision: "provide", value: { name: "Ada Lovelace", check: true, integer: 7 } },
      "inbox",
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    const events = await tk.kernel.store.listEvents(run.id, 0, 1000);
    const result = events.find((e) => e.type === "tool.result")!.payload as Record<string, any>;
    expect(result.ok).toBe(true);
    expect(JSON.stringify(result.output)).toContain("- Name: Ada Lovelace");
    expect(JSON.stringify(result.output)).toContain("- Favorite Integer: 7");
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["human.requested", "human.decided"]));
  });

  it("one list of choices is a choose; a person's time is not the call's; asked again by a redone call, the answer given is used", async () => {
    // A one-second limit: the person below takes longer, which must count neither as idleness nor against the limit.
    await addFake("fake", { callTimeoutSec: 1 });
    await enable("fake", "ask");
    const run = await createRun(
      tk.kernel,
      { goal: "Hold", agent: "demo-mcp", scenario: { turns: [{ text: "waiting" }] } },
      tk.actors.operator,
    );
    await tk.settle(run.id);
    const ctx = { ...ctxFor(), runId: run.id, toolCallId: "call-ask" };
    const first = tk.kernel.deps.registry.get("fake__ask")!.execute({}, ctx);
    const request = await waitFor(() => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation" } }), "the question");
    expect(request.kind).toBe("choose");
    expect(JSON.parse(request.payload).options).toEqual([
      { id: "red", label: "red" },
      { id: "blue", label: "blue" },
    ]);
    await new Promise((r) => setTimeout(r, 1_800));
    await tk.hitl!.broker.decide(request.id, operator(), { decision: "choose", optionId: "blue" }, "inbox");
    expect(await first).toBe("accept:blue");
    // The same call made again (as after a restart): the same question finds the same, answered request.
    expect(await tk.kernel.deps.registry.get("fake__ask")!.execute({}, ctx)).toBe("accept:blue");
    expect(await tk.t.db.humanRequest.count({ where: { runId: run.id } })).toBe(1);
  });

  it("a rejected question is declined; a canceled call cancels its question", async () => {
    await addFake();
    await enable("fake", "ask");
    const run = await createRun(
      tk.kernel,
      { goal: "Hold", agent: "demo-mcp", scenario: { turns: [{ text: "waiting" }] } },
      tk.actors.operator,
    );
    await tk.settle(run.id);
    const declined = tk.kernel.deps.registry.get("fake__ask")!.execute({}, { ...ctxFor(), runId: run.id, toolCallId: "call-no" });
    const request = await waitFor(() => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation" } }), "the question");
    await tk.hitl!.broker.decide(request.id, operator(), { decision: "reject", comment: "not now" }, "inbox");
    expect(await declined).toBe("decline:");

    const abort = new AbortController();
    const canceled = tk.kernel.deps.registry
      .get("fake__ask")!
      .execute({}, { ...ctxFor(abort.signal), runId: run.id, toolCallId: "call-cancel" })
      .catch((e) => e);
    const second = await waitFor(
      () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation", nodeId: { startsWith: "mcp:call-cancel:" } } }),
      "the second question",
    );
    abort.abort();
    expect(await canceled).toMatchObject({ code: "CANCELED" });
    await waitFor(
      async () => (await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: second.id } })).state === "CANCELED",
      "the question to be canceled",
    );
  });
});

describe("replay safety", () => {
  it("an unannotated MCP tool interrupted by a crash is never called again silently", async () => {
    await addFake();
    await enable("fake", "hello");
    const tool = tk.kernel.deps.registry.get("fake__hello")!;
    expect(tool.replayClass).toBe("unsafe_on_replay");
    const cache: ReplayCache = new MemoryReplayCache();
    const address = { runId: "r1", nodeId: "1:call-1", checkpointId: "cp1" };
    const args = { name: "twice" };
    // What a crash between the intent and the result leaves behind.
    await cache.writeIntent({ ...address, toolName: tool.name, inputHash: inputHash(args) }, "unsafe_on_replay");
    const runner = new ToolRunner(tk.kernel.deps.registry, cache);
    await expect(runner.run({ toolCallId: "call-1", toolName: tool.name, args }, address, ctxFor(), [tool.name])).rejects.toBeInstanceOf(
      ReplayUnsafeError,
    );
    expect(readCalls("fake")).toBe("");
  });
});

describe("the token budget", () => {
  it("tools beyond it are left out and the run is told which, once", async () => {
    await mcp.addDemo(admin());
    await mcp.setTokenBudget(admin(), 500);
    const names = (await mcp.tools(admin(), "everything")).map((t) => t.name);
    await enable("everything", ...names);
    const given = mcp.toolsFor({ id: "run-1", teamId: null }, { name: "demo-mcp", tools: [] });
    mcp.toolsFor({ id: "run-1", teamId: null }, { name: "demo-mcp", tools: [] });
    expect(given.length).toBeGreaterThan(0);
    expect(given.length).toBeLessThan(names.length);
    await waitFor(async () => warnings.length > 0, "the warning");
    expect(warnings).toHaveLength(1);
    const left = warnings[0].payload.left as Array<{ tool: string }>;
    expect(left.length + given.length).toBe(names.length);
    expect((await mcp.list(admin())).budget.overBudget.length).toBeGreaterThan(0);
  });
});

describe("Streamable HTTP", () => {
  let remote: ChildProcess | null = null;
  afterEach(() => {
    remote?.kill("SIGKILL");
    remote = null;
  });

  it("a server nobody answers at says why, not just that fetch failed", async () => {
    const view = await mcp.add(admin(), { name: "nowhere", transport: "http", http: { url: `http://127.0.0.1:${await freePort()}/mcp` } });
    expect(view.health).toBe("failed");
    expect(view.reason).toMatch(/did not start: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
  });

  it("a server on 2026-07-28 is found over server/discover with no session, and its input_required question goes to a person", async () => {
    const v2 = await startV2McpServer();
    try {
      const view = await mcp.add(admin(), { name: "modern", transport: "http", http: { url: v2.url } });
      expect(view.health).toBe("ready");
      expect(view.info).toMatchObject({ name: "rein-v2-fixture", protocolVersion: "2026-07-28", era: "modern" });
      expect(v2.methods).toContain("server/discover");
      expect(v2.methods).not.toContain("initialize");
      await enable("modern", "echo", "confirm");
      expect(JSON.stringify(await call("modern__echo", { text: "no session needed" }))).toContain("no session needed");

      const scenario = {
        stopOnError: true,
        turns: [{ toolCalls: [{ tool: "modern__confirm", args: { what: "the release" } }] }, { text: "Confirmed." }],
      };
      const run = await createRun(tk.kernel, { goal: "Confirm the release", agent: "demo-mcp", scenario }, tk.actors.operator);
      const request = await waitFor(
        () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation" } }),
        "the server's question to reach the Inbox",
      );
      expect(request.title).toBe("modern asks: Go ahead with the release?");
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await tk.hitl!.broker.decide(request.id, operator, { decision: "provide", value: { confirm: true } }, "inbox");
      expect(await tk.settle(run.id)).toBe("succeeded");
      const events = await tk.kernel.store.listEvents(run.id, 0, 1000);
      const result = events.find((e) => e.type === "tool.result")!.payload as Record<string, any>;
      expect(JSON.stringify(result.output)).toContain("went ahead with the release");
      // echo once, confirm twice: the second call carried the person's answer as its inputResponses.
      expect(v2.methods.filter((m) => m === "tools/call").length).toBe(3);
    } finally {
      await v2.close();
    }
  });

  it("the reference server over HTTP: headers from a secret, never shown; a call works", async () => {
    const port = await freePort();
    remote = spawn(
      process.execPath,
      [path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"],
      { env: { ...process.env, PORT: String(port) }, stdio: "ignore" },
    );
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/mcp`, { method: "GET" }).catch(() => null)) !== null,
      "the HTTP server to listen",
    );
    await putSecret(tk.t.db, tk.keyring!, { name: "EVERYTHING_TOKEN", value: "tok-3c1f9e2a7b", actor: null });
    const view = await mcp.add(admin(), {
      name: "remote",
      transport: "http",
      http: { url: `http://127.0.0.1:${port}/mcp`, headers: { "X-Api-Key": { secret: "EVERYTHING_TOKEN" } } },
    });
    expect(view.health).toBe("ready");
    // The reference server is on the v1 SDK: `server/discover` is unknown to it, and Rein falls back to initialize.
    expect(view.info).toMatchObject({ protocolVersion: "2025-11-25", era: "legacy" });
    expect(JSON.stringify(await mcp.list(admin()))).not.toContain("tok-3c1f9e2a7b");
    await enable("remote", "echo");
    expect(JSON.stringify(await call("remote__echo", { message: "over HTTP" }))).toContain("over HTTP");
  });
});

describe("tasks (2026-07-28's extension, 2025-11-25's capability)", () => {
  let v2: V2McpServer | null = null;
  afterEach(async () => {
    await v2?.close();
    v2 = null;
  });

  /** A server that offers tasks, attached and with `report` on; `legacyOnly`: on 2025-11-25. */
  async function taskServer({ legacyOnly = false } = {}) {
    v2 = await startV2McpServer({ tasks: true, legacyOnly });
    const view = await mcp.add(admin(), { name: "tasky", transport: "http", http: { url: v2.url } });
    expect(view.info).toMatchObject(legacyOnly ? { protocolVersion: "2025-11-25" } : { protocolVersion: "2026-07-28", era: "modern" });
    await enable("tasky", "report");
    return v2;
  }

  function callWithProgress(args: Record<string, unknown>, signal = new AbortController().signal) {
    const progress: Array<{ progress: number; message?: string }> = [];
    const ctx = { ...ctxFor(signal), progress: (p: { progress: number; message?: string }) => void progress.push(p) };
    return { progress, result: tk.kernel.deps.registry.get("tasky__report")!.execute(args, ctx) };
  }

  it("a long call becomes a task: its status messages reach progress, polling keeps to the bounds, and its result comes back", async () => {
    const server = await taskServer();
    const started = Date.now();
    // The server asks to be polled every 10 ms; Rein never looks more often than every 250 ms.
    const { progress, result } = callWithProgress({ steps: 5, everyMs: 150, pollIntervalMs: 10 });
    expect(JSON.stringify(await result)).toContain("report of 5 steps");
    const elapsed = Date.now() - started;
    const polls = server.methods.filter((m) => m === "tasks/get").length;
    expect(polls).toBeGreaterThanOrEqual(2);
    expect(polls).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 1);
    expect(progress.some((p) => /^step \d of 5$/.test(p.message ?? ""))).toBe(true);
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["completed"]);
  });

  it("cancelling the call sends tasks/cancel, and the server stops the task", async () => {
    const server = await taskServer();
    const abort = new AbortController();
    const { progress, result } = callWithProgress({ steps: 100, everyMs: 100, pollIntervalMs: 250 }, abort.signal);
    await waitFor(async () => progress.length > 0 || null, "the task's first status");
    abort.abort(new Error("the run was canceled"));
    await expect(result).rejects.toMatchObject({ code: "CANCELED" });
    expect(server.methods).toContain("tasks/cancel");
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["cancelled"]);
  });

  it("a task that runs past the call's limit is cancelled on the server", async () => {
    const server = await taskServer();
    await mcp.update(admin(), "tasky", { callTimeoutSec: 1 });
    await expect(callWithProgress({ steps: 100, everyMs: 100, pollIntervalMs: 250 }).result).rejects.toMatchObject({
      code: "TIMEOUT",
      message: expect.stringMatching(/ran past its limit of 1 s/),
    });
    expect(server.methods).toContain("tasks/cancel");
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["cancelled"]);
  });

  it("a task that fails is a tool error with the server's words", async () => {
    await taskServer();
    const { result } = callWithProgress({ steps: 2, everyMs: 50, fail: "the printer is out of paper", pollIntervalMs: 250 });
    await expect(result).rejects.toMatchObject({
      code: "MCP_TOOL_ERROR",
      message: "tasky's task for report failed: the printer is out of paper",
    });
  });

  it("a task that asks for input is cancelled, saying Rein does not answer a task's questions yet", async () => {
    const server = await taskServer();
    const { result } = callWithProgress({ steps: 3, everyMs: 50, ask: true, pollIntervalMs: 250 });
    await expect(result).rejects.toMatchObject({
      code: "MCP_TASK_INPUT",
      message: expect.stringMatching(/does not answer a task's questions yet/),
    });
    expect(server.methods).toContain("tasks/cancel");
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["cancelled"]);
  });

  it("on a server that offers tasks, a call answered at once, its progress, and a question asked first all work as before", async () => {
    const server = await taskServer();
    await enable("tasky", "echo", "count", "confirm");
    expect(JSON.stringify(await call("tasky__echo", { text: "no task needed" }))).toContain("no task needed");
    const progress: Array<{ progress: number; total?: number }> = [];
    const ctx = { ...ctxFor(), progress: (p: { progress: number; total?: number }) => void progress.push(p) };
    expect(JSON.stringify(await tk.kernel.deps.registry.get("tasky__count")!.execute({ n: 3 }, ctx))).toContain("counted to 3");
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);

    // confirm asks first: the call is made again the usual way, and the question reaches a person.
    const scenario = {
      stopOnError: true,
      turns: [{ toolCalls: [{ tool: "tasky__confirm", args: { what: "the report" } }] }, { text: "Done." }],
    };
    const run = await createRun(tk.kernel, { goal: "Confirm the report", agent: "demo-mcp", scenario }, tk.actors.operator);
    const request = await waitFor(
      () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, slot: "elicitation" } }),
      "the server's question to reach the Inbox",
    );
    const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
    await tk.hitl!.broker.decide(request.id, operator, { decision: "provide", value: { confirm: true } }, "inbox");
    expect(await tk.settle(run.id)).toBe("succeeded");
    const events = await tk.kernel.store.listEvents(run.id, 0, 1000);
    expect(JSON.stringify(events.find((e) => e.type === "tool.result")!.payload)).toContain("went ahead with the report");
    expect(server.methods).not.toContain("tasks/get");
  });

  it("on 2025-11-25, a tool that allows tasks is called as one: followed, its result fetched with tasks/result, cancelled with tasks/cancel", async () => {
    const server = await taskServer({ legacyOnly: true });
    const { progress, result } = callWithProgress({ steps: 3, everyMs: 100, pollIntervalMs: 250 });
    expect(JSON.stringify(await result)).toContain("report of 3 steps");
    expect(server.methods).toEqual(expect.arrayContaining(["tasks/get", "tasks/result"]));
    expect(progress.some((p) => /^step \d of 3$/.test(p.message ?? ""))).toBe(true);

    const abort = new AbortController();
    const long = callWithProgress({ steps: 100, everyMs: 100, pollIntervalMs: 250 }, abort.signal);
    await waitFor(async () => long.progress.length > 0 || null, "the task's first status");
    abort.abort(new Error("the run was canceled"));
    await expect(long.result).rejects.toMatchObject({ code: "CANCELED" });
    expect(server.methods).toContain("tasks/cancel");
    expect([...server.tasks.values()].map((t) => t.status)).toEqual(["completed", "cancelled"]);
  });

  it("a tool that runs only as a task, on a server where Rein cannot use tasks, is refused clearly and never called", async () => {
    v2 = await startV2McpServer({ legacyOnly: true });
    const view = await mcp.add(admin(), { name: "oldtasks", transport: "http", http: { url: v2.url } });
    expect(view.info).toMatchObject({ protocolVersion: "2025-11-25", era: "legacy" });
    await enable("oldtasks", "task_only");
    await expect(call("oldtasks__task_only")).rejects.toMatchObject({
      code: "MCP_TASK_UNSUPPORTED",
      message: expect.stringMatching(/task_only runs only as a task, and the server has no `tasks` capability for tool calls/),
    });
    expect(v2.methods).not.toContain("tools/call");
  });
});
