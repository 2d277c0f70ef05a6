// The test ACP agent (test/helpers/acp-agent/README.md) as Rein will host it: a child process on
// stdin/stdout, driven here by the ACP SDK's own client side. Its model is a small OpenAI-compatible
// server in this file that plays fixed turns over SSE, and records what the agent asked it.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "./helpers/wait";

const AGENT = path.join(import.meta.dirname, "helpers", "acp-agent", "agent.mjs");
const API_KEY = "sk-acp-agent-test-secret";
const ALL_CAPABILITIES: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

// ---- The model: fixed turns, streamed as Chat Completions chunks -----------------------------------

/** `args` as a string is sent as it is (not JSON-encoded), to send arguments that are not JSON. */
type ToolCallTurn = { name: string; args: unknown };
/** A turn streams its text, then its tool calls; `hang` leaves the stream open after the text. */
type ModelTurn = { text?: string; tools?: ToolCallTurn[]; hang?: boolean } | { status: number; error: string };
type ChatMessage = { role: string; content: string | null; tool_call_id?: string; tool_calls?: { function: { name: string } }[] };
type ChatRequest = {
  model: string;
  stream: boolean;
  messages: ChatMessage[];
  tools: { function: { name: string } }[];
  authorization?: string;
};

const model = { url: "", turns: [] as ModelTurn[], requests: [] as ChatRequest[], server: undefined as http.Server | undefined };

function playTurn(res: http.ServerResponse, turn: ModelTurn) {
  if ("status" in turn) {
    res.writeHead(turn.status, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: turn.error } }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const event = (delta: object) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`);
  // Text and arguments arrive in two pieces each, as a real stream splits them.
  const half = (s: string) => Math.ceil(s.length / 2);
  if (turn.text) {
    event({ role: "assistant", content: turn.text.slice(0, half(turn.text)) });
    if (turn.hang) return;
    event({ content: turn.text.slice(half(turn.text)) });
  }
  turn.tools?.forEach(({ name, args }, index) => {
    const json = typeof args === "string" ? args : JSON.stringify(args);
    event({ tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name, arguments: json.slice(0, half(json)) } }] });
    event({ tool_calls: [{ index, function: { arguments: json.slice(half(json)) } }] });
  });
  res.end("data: [DONE]\n\n");
}

beforeAll(async () => {
  model.server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return void res.writeHead(404).end();
      model.requests.push({ ...(JSON.parse(body) as ChatRequest), authorization: req.headers.authorization });
      playTurn(res, model.turns.shift() ?? { status: 500, error: "the test scripted no more turns" });
    });
  });
  await new Promise<void>((resolve) => model.server!.listen(0, "127.0.0.1", resolve));
  model.url = `http://127.0.0.1:${(model.server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  model.server?.closeAllConnections();
  await new Promise((resolve) => model.server?.close(resolve));
});

// ---- The client: the SDK's client side, with files on disk and terminals it pretends to run ---------

type Call = { method: string; params: Record<string, unknown> };
type FakeTerminal = {
  command: string;
  exit: Promise<acp.WaitForTerminalExitResponse>;
  end: (exit: acp.WaitForTerminalExitResponse) => void;
};

interface AgentProcess {
  child: ChildProcess;
  agent: acp.ClientContext;
  /** Every session/update the agent sent, in order. */
  updates: acp.SessionNotification[];
  /** Every request the agent made of the client, in order. */
  calls: Call[];
  /** How the client answers the next permission requests, in order. */
  permissions: ("allow" | "reject" | "cancelled")[];
  exited: Promise<number | null>;
  stderr: () => string;
  /** Everything it wrote to stdout. */
  stdout: () => string;
}

const started: AgentProcess[] = [];
let workspace: string;
let stateDir: string;

beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), "acp-agent-ws-"));
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "acp-agent-state-"));
  model.turns = [];
  model.requests = [];
});

afterEach(() => {
  for (const p of started.splice(0)) {
    p.child.kill();
    // stdout carries protocol messages and nothing else.
    for (const line of p.stdout().split("\n").filter(Boolean)) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(p.stderr()).not.toContain(API_KEY);
  }
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(stateDir, { recursive: true, force: true });
});

async function startAgent(clientCapabilities: acp.ClientCapabilities = ALL_CAPABILITIES): Promise<AgentProcess> {
  const child = spawn(process.execPath, [AGENT], {
    env: { NODE_ENV: "test", PATH: process.env.PATH, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: API_KEY, ACP_TEST_AGENT_STATE: stateDir },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const updates: acp.SessionNotification[] = [];
  const calls: Call[] = [];
  const permissions: AgentProcess["permissions"] = [];
  const terminals = new Map<string, FakeTerminal>();
  const record = (method: string, params: object) => void calls.push({ method, params: params as Record<string, unknown> });
  const terminal = (id: string) => {
    const found = terminals.get(id);
    if (!found) throw acp.RequestError.resourceNotFound(id);
    return found;
  };

  const client = acp
    .client({ name: "acp-agent-test" })
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .onRequest("fs/read_text_file", ({ params }) => {
      record("fs/read_text_file", params);
      if (!fs.existsSync(params.path)) throw acp.RequestError.resourceNotFound(params.path);
      return { content: fs.readFileSync(params.path, "utf8") };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      record("fs/write_text_file", params);
      fs.writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest("session/request_permission", ({ params }) => {
      record("session/request_permission", params);
      const answer = permissions.shift();
      if (!answer) throw new Error("the test expected no permission request");
      return { outcome: answer === "cancelled" ? { outcome: "cancelled" } : { outcome: "selected", optionId: answer } };
    })
    .onRequest("terminal/create", ({ params }) => {
      record("terminal/create", params);
      const terminalId = `term-${terminals.size + 1}`;
      let end!: FakeTerminal["end"];
      const exit = new Promise<acp.WaitForTerminalExitResponse>((resolve) => (end = resolve));
      const command = params.args?.[1] ?? "";
      terminals.set(terminalId, { command, exit, end });
      // A `sleep` runs until it is killed; anything else is done at once.
      if (!command.startsWith("sleep")) end({ exitCode: 0 });
      return { terminalId };
    })
    .onRequest("terminal/wait_for_exit", ({ params }) => {
      record("terminal/wait_for_exit", params);
      return terminal(params.terminalId).exit;
    })
    .onRequest("terminal/output", async ({ params }) => {
      record("terminal/output", params);
      const { command, exit } = terminal(params.terminalId);
      return { output: `output of ${command}`, truncated: false, exitStatus: await exit };
    })
    .onRequest("terminal/kill", ({ params }) => {
      record("terminal/kill", params);
      terminal(params.terminalId).end({ exitCode: null, signal: "SIGKILL" });
      return {};
    })
    .onRequest("terminal/release", ({ params }) => {
      record("terminal/release", params);
      terminal(params.terminalId).end({ exitCode: null, signal: "SIGKILL" });
      terminals.delete(params.terminalId);
      return {};
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const connection = client.connect(stream);
  const running: AgentProcess = {
    child,
    agent: connection.agent,
    updates,
    calls,
    permissions,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
  };
  started.push(running);
  const init = await connection.agent.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  expect(init).toEqual({
    protocolVersion: 1,
    agentInfo: { name: "rein-test-agent", version: "1.0.0" },
    agentCapabilities: { loadSession: true, promptCapabilities: {} },
    authMethods: [],
  });
  return running;
}

async function newSession(p: AgentProcess): Promise<string> {
  return (await p.agent.request("session/new", { cwd: workspace, mcpServers: [] })).sessionId;
}

/**
 * Sends a prompt and waits for its answer. The client handles a notification a few microtasks after
 * it reads it, so the updates sent just before the answer are in `updates` after one more task.
 */
async function prompt(p: AgentProcess, sessionId: string, text: string): Promise<acp.StopReason> {
  const { stopReason } = await p.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  await new Promise((resolve) => setImmediate(resolve));
  return stopReason;
}

const methods = (p: AgentProcess) => p.calls.map((c) => c.method);
const callsOf = (p: AgentProcess, method: string) => p.calls.filter((c) => c.method === method).map((c) => c.params);
const updatesOf = <K extends acp.SessionUpdate["sessionUpdate"]>(p: AgentProcess, kind: K) =>
  p.updates.map((n) => n.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
const agentText = (p: AgentProcess) =>
  updatesOf(p, "agent_message_chunk")
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");
/** Each tool call's title, kind and the statuses it went through. */
function toolCalls(p: AgentProcess) {
  return updatesOf(p, "tool_call").map((call) => {
    const later = updatesOf(p, "tool_call_update").filter((u) => u.toolCallId === call.toolCallId);
    const last = later.at(-1);
    const text = (last?.content ?? []).flatMap((c) => (c.type === "content" && c.content.type === "text" ? [c.content.text] : [])).join("");
    return {
      call,
      title: call.title,
      kind: call.kind,
      statuses: [call.status, ...later.flatMap((u) => (u.status ? [u.status] : []))],
      text,
      last,
    };
  });
}
const toolMessages = (request: ChatRequest) => request.messages.filter((m) => m.role === "tool").map((m) => m.content);

// A broken agent leaves a prompt unanswered; fail in seconds rather than at the default minute.
describe("the test ACP agent", { timeout: 10_000 }, () => {
  it("reads, writes, plans and runs commands the user allows, and tells the model what the user rejected", async () => {
    fs.writeFileSync(path.join(workspace, "notes.txt"), "say hello\n");
    model.turns = [
      { text: "Let me look.", tools: [{ name: "read_file", args: { path: "notes.txt" } }] },
      {
        tools: [
          { name: "write_file", args: { path: "hello.txt", content: "hello\n" } },
          { name: "write_file", args: { path: "../escape.txt", content: "out" } },
          {
            name: "update_plan",
            args: {
              entries: [
                { content: "Write hello.txt", status: "completed" },
                { content: "Check it", status: "in_progress" },
              ],
            },
          },
        ],
      },
      { tools: [{ name: "run_command", args: { command: "cat hello.txt" } }] },
      { tools: [{ name: "run_command", args: { command: "rm -rf /" } }] },
      { text: "Done." },
    ];
    const p = await startAgent();
    p.permissions.push("allow", "reject");
    const sessionId = await newSession(p);

    expect(await prompt(p, sessionId, "Say hello in a file")).toBe("end_turn");

    expect(fs.readFileSync(path.join(workspace, "hello.txt"), "utf8")).toBe("hello\n");
    expect(fs.existsSync(path.join(workspace, "..", "escape.txt"))).toBe(false);
    expect(callsOf(p, "fs/read_text_file")[0]).toEqual({ sessionId, path: path.join(workspace, "notes.txt") });
    expect(callsOf(p, "fs/write_text_file")).toEqual([{ sessionId, path: path.join(workspace, "hello.txt"), content: "hello\n" }]);
    // Permission first, for each command; the terminal only for the one allowed.
    expect(callsOf(p, "session/request_permission").map((r) => r.toolCall)).toEqual([
      expect.objectContaining({ title: "cat hello.txt", kind: "execute", rawInput: { command: "cat hello.txt" } }),
      expect.objectContaining({ title: "rm -rf /", kind: "execute", rawInput: { command: "rm -rf /" } }),
    ]);
    expect(callsOf(p, "session/request_permission")[0].options).toEqual([
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ]);
    expect(methods(p).filter((m) => m.startsWith("terminal/") || m === "session/request_permission")).toEqual([
      "session/request_permission",
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/output",
      "terminal/release",
      "session/request_permission",
    ]);
    expect(callsOf(p, "terminal/create")).toEqual([
      { sessionId, command: "/bin/sh", args: ["-c", "cat hello.txt"], cwd: workspace, outputByteLimit: 65536 },
    ]);

    expect(agentText(p)).toBe("Let me look.Done.");
    const calls = toolCalls(p);
    expect(calls.map(({ title, kind, statuses }) => ({ title, kind, statuses }))).toEqual([
      { title: "Read notes.txt", kind: "read", statuses: ["pending", "in_progress", "completed"] },
      { title: "Write hello.txt", kind: "edit", statuses: ["pending", "in_progress", "completed"] },
      { title: "Write ../escape.txt", kind: "edit", statuses: ["pending", "in_progress", "failed"] },
      { title: "Update the plan", kind: "think", statuses: ["pending", "in_progress", "completed"] },
      { title: "cat hello.txt", kind: "execute", statuses: ["pending", "in_progress", "completed"] },
      { title: "rm -rf /", kind: "execute", statuses: ["pending", "in_progress", "failed"] },
    ]);
    expect(calls[0].call.locations).toEqual([{ path: path.join(workspace, "notes.txt") }]);
    expect(calls[1].call.content).toEqual([{ type: "diff", path: path.join(workspace, "hello.txt"), oldText: null, newText: "hello\n" }]);
    expect(calls[2].text).toMatch(/outside the working directory/);
    expect(calls[4].text).toContain("output of cat hello.txt");
    expect(calls[5].text).toBe("The user rejected this command");
    expect(updatesOf(p, "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Write hello.txt", priority: "medium", status: "completed" },
          { content: "Check it", priority: "medium", status: "in_progress" },
        ],
      },
    ]);

    // What the model was asked: streamed, with the tools and the key, and every tool's result.
    expect(model.requests).toHaveLength(5);
    for (const request of model.requests) {
      expect(request).toMatchObject({ model: "rein", stream: true, authorization: `Bearer ${API_KEY}` });
      expect(request.tools.map((t) => t.function.name)).toEqual(["read_file", "write_file", "run_command", "update_plan", "crash"]);
    }
    expect(model.requests[0].messages.at(-1)).toEqual({ role: "user", content: "Say hello in a file" });
    expect(toolMessages(model.requests[1])).toEqual(["say hello\n"]);
    expect(toolMessages(model.requests[4]).at(-1)).toBe("The user rejected this command");
  });

  it("replays a session's history in a new process on session/load, and goes on from it", async () => {
    model.turns = [{ text: "Writing it.", tools: [{ name: "write_file", args: { path: "a.txt", content: "A" } }] }, { text: "Written." }];
    const first = await startAgent();
    const sessionId = await newSession(first);
    expect(await prompt(first, sessionId, "Write a.txt")).toBe("end_turn");
    first.child.kill();
    await first.exited;

    const second = await startAgent();
    expect(await second.agent.request("session/load", { sessionId, cwd: workspace, mcpServers: [] })).toEqual({});
    await new Promise((resolve) => setImmediate(resolve));
    const replayed = second.updates.map((n) => {
      expect(n.sessionId).toBe(sessionId);
      return n.update.sessionUpdate;
    });
    expect(replayed).toEqual(["user_message_chunk", "agent_message_chunk", "tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(updatesOf(second, "user_message_chunk")[0].content).toEqual({ type: "text", text: "Write a.txt" });
    expect(agentText(second)).toBe("Writing it.Written.");
    expect(toolCalls(second).map(({ title, statuses }) => ({ title, statuses }))).toEqual([
      { title: "Write a.txt", statuses: ["pending", "completed"] },
    ]);

    // The model sees the earlier turn too.
    model.turns = [{ text: "Still here." }];
    expect(await prompt(second, sessionId, "And now?")).toBe("end_turn");
    expect(model.requests.at(-1)!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);

    // A session it never stored, or an id that is not a plain name, is not found.
    for (const missing of ["no-such-session", "../../etc/passwd"]) {
      await expect(second.agent.request("session/load", { sessionId: missing, cwd: workspace, mcpServers: [] })).rejects.toMatchObject({
        code: -32002,
      });
    }
  });

  it("cancels a running command: kills its terminal and answers the prompt with cancelled", async () => {
    model.turns = [{ tools: [{ name: "run_command", args: { command: "sleep 30" } }] }];
    const p = await startAgent();
    p.permissions.push("allow");
    const sessionId = await newSession(p);
    const running = prompt(p, sessionId, "Wait a while");
    await waitFor(() => callsOf(p, "terminal/wait_for_exit").length === 1, "the command to start", { limitMs: 5000 });

    // One prompt at a time.
    await expect(prompt(p, sessionId, "And something else")).rejects.toThrow(/already running/);

    await p.agent.notify("session/cancel", { sessionId });
    expect(await running).toBe("cancelled");
    expect(methods(p).filter((m) => m.startsWith("terminal/"))).toEqual([
      "terminal/create",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/release",
    ]);
    expect(toolCalls(p).map((c) => c.statuses.at(-1))).toEqual(["failed"]);

    // The session goes on; a permission request the client cancels cancels the turn too.
    model.turns = [{ tools: [{ name: "run_command", args: { command: "ls" } }] }];
    p.permissions.push("cancelled");
    expect(await prompt(p, sessionId, "Try again")).toBe("cancelled");
    expect(toolMessages(model.requests[1])).toEqual(["Cancelled by the user"]);
    expect(callsOf(p, "terminal/create")).toHaveLength(1);
  });

  it("cancels while the model is still answering", async () => {
    model.turns = [{ text: "Thinking hard", hang: true }, { text: "Fresh start." }];
    const p = await startAgent();
    const sessionId = await newSession(p);
    const running = prompt(p, sessionId, "Think");
    await waitFor(() => agentText(p) === "Thinkin", "the first half of the answer", { limitMs: 5000 });
    await p.agent.notify("session/cancel", { sessionId });
    expect(await running).toBe("cancelled");
    // The half answer is not in the history the model sees next.
    expect(await prompt(p, sessionId, "Again")).toBe("end_turn");
    expect(model.requests[1].messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
  });

  it("will not use what the client did not offer, and fails bad tool calls, saying why to the model", async () => {
    model.turns = [
      {
        tools: [
          { name: "run_command", args: { command: "ls" } },
          { name: "write_file", args: { path: "b.txt", content: "B" } },
          { name: "no_such_tool", args: {} },
          { name: "__proto__", args: {} },
          { name: "read_file", args: "{not json" },
        ],
      },
      { text: "I cannot." },
    ];
    const p = await startAgent({ fs: { readTextFile: true, writeTextFile: false } });
    const sessionId = await newSession(p);
    expect(await prompt(p, sessionId, "Do things")).toBe("end_turn");
    expect(toolCalls(p).map((c) => c.statuses.at(-1))).toEqual(["failed", "failed", "failed", "failed", "failed"]);
    expect(toolMessages(model.requests[1])).toEqual([
      expect.stringContaining("did not offer terminal/create"),
      expect.stringContaining("did not offer fs/write_text_file"),
      expect.stringContaining('no tool named "no_such_tool"'),
      expect.stringContaining('no tool named "__proto__"'),
      expect.stringContaining("Invalid arguments"),
    ]);
    expect(methods(p).filter((m) => m !== "fs/read_text_file")).toEqual([]);
  });

  it("stops after fifty model calls in one prompt", async () => {
    model.turns = Array.from({ length: 51 }, () => ({ tools: [{ name: "update_plan", args: { entries: [] } }] }));
    const p = await startAgent();
    expect(await prompt(p, await newSession(p), "Loop")).toBe("max_turn_requests");
    expect(model.requests).toHaveLength(50);
  });

  it("shows a model error to the client and fails the prompt with it", async () => {
    model.turns = [{ status: 503, error: "the model is overloaded" }];
    const p = await startAgent();
    const sessionId = await newSession(p);
    await expect(prompt(p, sessionId, "Hello")).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("the model is overloaded"),
    });
    await waitFor(() => agentText(p).includes("HTTP 503"), "the error as agent text", { limitMs: 5000 });
    expect(agentText(p)).toContain("the model is overloaded");
    // The session still works.
    model.turns = [{ text: "Better now." }];
    expect(await prompt(p, sessionId, "Again")).toBe("end_turn");
  });

  it("exits at once with the crash tool's code, and the client sees the prompt fail", async () => {
    model.turns = [{ tools: [{ name: "crash", args: { code: 7 } }] }];
    const p = await startAgent();
    const sessionId = await newSession(p);
    await expect(prompt(p, sessionId, "Crash")).rejects.toThrow();
    expect(await p.exited).toBe(7);
    expect(p.stderr()).toContain("crashing on purpose");
  });
});
