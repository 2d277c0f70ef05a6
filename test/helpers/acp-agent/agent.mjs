// rein-test-agent: a small model-driven coding agent that speaks the Agent Client Protocol on
// stdin/stdout, so Rein's ACP client can be tested against every client method it serves. What it
// does and how to run it: README.md beside this file. Plain JavaScript whose only package is the
// ACP SDK, because it runs under plain `node` in a sandbox with no build step.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const AGENT_INFO = { name: "rein-test-agent", version: "1.0.0" };
// The agent's own settings (README.md), read once; they are not Rein's, so Rein's registry of
// variables (server/config/env.ts) does not list them.
const { OPENAI_BASE_URL, OPENAI_API_KEY, ACP_TEST_AGENT_MODEL, ACP_TEST_AGENT_STATE, ACP_TEST_AGENT_NO_LOAD, ACP_TEST_AGENT_OWN_SHELL } =
  process.env;
const MODEL = ACP_TEST_AGENT_MODEL || "rein";
const MAX_MODEL_CALLS = 50;
const MAX_MODEL_ANSWER_BYTES = 1024 * 1024;
const TERMINAL_OUTPUT_LIMIT = 65536;
/** Session ids name files in the state directory, so a loaded id must be a plain name. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,100}$/;
const PLAN_STATUSES = ["pending", "in_progress", "completed"];
const PERMISSION_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];
const CANCELLED_TEXT = "Cancelled by the user";

// stdout carries the protocol and nothing else; anything printed goes to stderr.
console.log = console.info = console.debug = console.error;
const log = (message) => process.stderr.write(`rein-test-agent: ${message}\n`);

/** A failure of the model call, whose message the client and the user see. */
class ModelError extends Error {}

/** What the client offered at initialize; a tool needing something else fails. */
let clientCapabilities = {};
/** Sessions of this process by id: { id, cwd, messages (the model's history), replay, turn? }. */
const sessions = new Map();

// ---- Tools the model may call -------------------------------------------------------------------

const str = (description) => ({ type: "string", description });
const int = (description) => ({ type: "integer", description });
const objectSchema = (properties, required) => ({ type: "object", properties, required, additionalProperties: false });

const TOOLS = {
  read_file: {
    description: "Read a text file. A relative path is resolved against the working directory.",
    parameters: objectSchema({ path: str("The file"), line: int("First line to read, 1-based"), limit: int("Most lines to read") }, [
      "path",
    ]),
    async describe(turn, args) {
      const target = resolveIn(turn, stringArg(args, "path"));
      return {
        kind: "read",
        title: `Read ${args.path}`,
        locations: [{ path: target, ...(Number.isInteger(args.line) ? { line: args.line } : {}) }],
      };
    },
    async run(turn, args) {
      requireOffered(clientCapabilities.fs?.readTextFile, "fs/read_text_file");
      const { content } = await turn.client.request("fs/read_text_file", {
        sessionId: turn.session.id,
        path: resolveIn(turn, args.path),
        ...(Number.isInteger(args.line) ? { line: args.line } : {}),
        ...(Number.isInteger(args.limit) ? { limit: args.limit } : {}),
      });
      return { text: content, rawOutput: { bytes: Buffer.byteLength(content) } };
    },
  },
  write_file: {
    description: "Write a text file inside the working directory, replacing what it held.",
    parameters: objectSchema({ path: str("The file"), content: str("The whole new text") }, ["path", "content"]),
    async describe(turn, args) {
      const target = resolveIn(turn, stringArg(args, "path"));
      const newText = stringArg(args, "content", { empty: true });
      const oldText = isInside(turn.session.cwd, target) ? await currentText(turn, target) : null;
      return {
        kind: "edit",
        title: `Write ${args.path}`,
        locations: [{ path: target }],
        content: [{ type: "diff", path: target, oldText, newText }],
      };
    },
    async run(turn, args, call) {
      const target = resolveIn(turn, args.path);
      // Asking before writing outside the working directory is what a real agent would do; this one refuses.
      if (!isInside(turn.session.cwd, target))
        throw new Error(`${target} is outside the working directory ${turn.session.cwd}; this agent writes only inside it`);
      requireOffered(clientCapabilities.fs?.writeTextFile, "fs/write_text_file");
      await turn.client.request("fs/write_text_file", { sessionId: turn.session.id, path: target, content: args.content });
      const text = `Wrote ${Buffer.byteLength(args.content)} bytes to ${target}`;
      return {
        text,
        content: [...call.shown.content, textContent(text)],
        rawOutput: { path: target, bytes: Buffer.byteLength(args.content) },
      };
    },
  },
  run_command: {
    description: "Run a shell command in the working directory, after the user allows it.",
    parameters: objectSchema({ command: str("The command, run by /bin/sh -c") }, ["command"]),
    async describe(_turn, args) {
      return { kind: "execute", title: stringArg(args, "command") };
    },
    run: runCommand,
  },
  update_plan: {
    description: "Show the user the plan for this task: every entry, each with its status.",
    parameters: objectSchema(
      {
        entries: {
          type: "array",
          items: objectSchema({ content: str("What to do"), status: { type: "string", enum: PLAN_STATUSES } }, ["content", "status"]),
        },
      },
      ["entries"],
    ),
    async describe(_turn, args) {
      planEntries(args);
      return { kind: "think", title: "Update the plan" };
    },
    async run(turn, args) {
      const entries = planEntries(args);
      await send(turn, { sessionUpdate: "plan", entries }, { keep: true });
      return { text: `The plan has ${entries.length} entries`, rawOutput: { entries: entries.length } };
    },
  },
  crash: {
    description: "Exit this agent's process at once, to test how the client copes.",
    parameters: objectSchema({ code: int("Exit code, 3 unless given") }, []),
  },
};

const TOOL_SCHEMAS = Object.entries(TOOLS).map(([name, tool]) => ({
  type: "function",
  function: { name, description: tool.description, parameters: tool.parameters },
}));

/** A command run as some agents run theirs, with `bash -c` in its own process, not in a terminal of the client's. */
function ownShell(command, cwd, signal) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, signal, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (c) => (output = (output + c.toString("utf8")).slice(-TERMINAL_OUTPUT_LIMIT));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (err) => resolve({ output: `${output}${err.message}\n`, exitCode: null }));
    child.on("close", (code) => resolve({ output, exitCode: code }));
  });
}

async function runCommand(turn, args, call) {
  const command = args.command;
  if (!ACP_TEST_AGENT_OWN_SHELL) requireOffered(clientCapabilities.terminal, "terminal/create");
  const { outcome } = await turn.client
    .request(
      "session/request_permission",
      {
        sessionId: turn.session.id,
        toolCall: { toolCallId: call.toolCallId, title: command, kind: "execute", rawInput: { command } },
        options: PERMISSION_OPTIONS,
      },
      { cancellationSignal: turn.abort.signal, stopWaitingOnCancel: true },
    )
    .catch((err) => {
      if (turn.abort.signal.aborted) return { outcome: { outcome: "cancelled" } };
      throw err;
    });
  if (outcome.outcome === "cancelled") {
    // The client cancelled the question: the turn ends as cancelled (agentclientprotocol.com/protocol/tool-calls).
    turn.abort.abort();
    return { status: "failed", text: CANCELLED_TEXT };
  }
  if (outcome.optionId !== "allow") return { status: "failed", text: "The user rejected this command" };
  if (ACP_TEST_AGENT_OWN_SHELL) {
    const { output, exitCode } = await ownShell(command, turn.session.cwd, turn.abort.signal);
    if (turn.abort.signal.aborted) return { status: "failed", text: CANCELLED_TEXT };
    return { status: exitCode === 0 ? "completed" : "failed", text: `${output}\n[exit code ${exitCode}]`, rawOutput: { exitCode } };
  }

  const terminal = await turn.client.createTerminal({
    sessionId: turn.session.id,
    command: "/bin/sh",
    args: ["-c", command],
    cwd: turn.session.cwd,
    outputByteLimit: TERMINAL_OUTPUT_LIMIT,
  });
  try {
    await send(turn, {
      sessionUpdate: "tool_call_update",
      toolCallId: call.toolCallId,
      content: [{ type: "terminal", terminalId: terminal.id }],
    });
    const exit = await untilAborted(terminal.waitForExit(), turn.abort.signal);
    if (!exit) {
      await terminal.kill();
      return { status: "failed", text: CANCELLED_TEXT };
    }
    const { output, truncated } = await terminal.currentOutput();
    const ending = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
    const text = `${output}${truncated ? "\n[output truncated]" : ""}\n[${ending}]`;
    return {
      status: exit.exitCode === 0 ? "completed" : "failed",
      text,
      rawOutput: { exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, truncated },
    };
  } finally {
    await terminal.release().catch((err) => log(`terminal/release failed: ${err.message}`));
  }
}

function stringArg(args, key, { empty = false } = {}) {
  const value = args[key];
  if (typeof value !== "string" || (!empty && value === "")) throw new Error(`"${key}" must be a ${empty ? "" : "non-empty "}string`);
  return value;
}

function planEntries(args) {
  if (!Array.isArray(args.entries) || args.entries.length > 100) throw new Error(`"entries" must be a list of at most 100 entries`);
  return args.entries.map((entry) => {
    if (typeof entry?.content !== "string" || !PLAN_STATUSES.includes(entry.status)) {
      throw new Error(`each entry needs a string "content" and a "status" of ${PLAN_STATUSES.join(", ")}`);
    }
    return { content: entry.content, priority: "medium", status: entry.status };
  });
}

function requireOffered(offered, method) {
  if (offered !== true) throw new Error(`The client did not offer ${method}, so this tool cannot run`);
}

const resolveIn = (turn, file) => path.resolve(turn.session.cwd, file);

function isInside(dir, target) {
  const relative = path.relative(dir, target);
  return relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The file's text before an edit, for the diff; null when it cannot be read (a new file). */
async function currentText(turn, target) {
  if (clientCapabilities.fs?.readTextFile !== true) return null;
  try {
    return (await turn.client.request("fs/read_text_file", { sessionId: turn.session.id, path: target })).content;
  } catch {
    return null;
  }
}

/** The promise's value, or undefined as soon as the signal aborts. */
function untilAborted(promise, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const textContent = (text) => ({ type: "content", content: { type: "text", text } });

// ---- The turn: call the model, run its tools, until it answers without any ------------------------

async function send(turn, update, { keep = false } = {}) {
  if (keep) turn.session.replay.push(update);
  await turn.client.notify("session/update", { sessionId: turn.session.id, update });
}

function promptText(blocks) {
  const text = (block) => {
    if (block.type === "text") return block.text;
    if (block.type === "resource_link") return `[${block.name}](${block.uri})`;
    if (block.type === "resource" && typeof block.resource.text === "string") return `${block.resource.uri}:\n${block.resource.text}`;
    return `[${block.type} content is not supported]`;
  };
  return blocks.map(text).join("\n");
}

async function runTurn(turn, prompt) {
  const { session } = turn;
  session.messages.push({ role: "user", content: promptText(prompt) });
  for (const block of prompt) session.replay.push({ sessionUpdate: "user_message_chunk", content: block });
  for (let calls = 0; calls < MAX_MODEL_CALLS; calls++) {
    if (turn.abort.signal.aborted) return "cancelled";
    let answer;
    try {
      answer = await callModel(turn);
    } catch (err) {
      if (turn.abort.signal.aborted) return "cancelled";
      const message =
        err instanceof ModelError
          ? err.message
          : `The model could not be reached: ${err.message}${err.cause?.code ? ` (${err.cause.code})` : ""}`;
      await send(turn, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: message } }, { keep: true });
      throw acp.RequestError.internalError(undefined, message);
    }
    session.messages.push({
      role: "assistant",
      content: answer.text || null,
      ...(answer.toolCalls.length > 0
        ? { tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    });
    if (answer.text) session.replay.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: answer.text } });
    if (answer.toolCalls.length === 0) return "end_turn";
    // Every tool call gets its answer, even after a cancel, so the history stays valid for the next prompt.
    for (const call of answer.toolCalls) {
      const text = turn.abort.signal.aborted ? CANCELLED_TEXT : await runTool(turn, call);
      session.messages.push({ role: "tool", tool_call_id: call.id, content: text });
    }
  }
  return "max_turn_requests";
}

/** Runs one tool call, showing it to the client as it goes; returns what the model is told. */
async function runTool(turn, modelCall) {
  let args = {};
  let failure;
  try {
    args = JSON.parse(modelCall.arguments || "{}");
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error("the arguments are not a JSON object");
  } catch (err) {
    args = {};
    failure = new Error(`Invalid arguments: ${err.message}`);
  }
  const tool = Object.hasOwn(TOOLS, modelCall.name) ? TOOLS[modelCall.name] : undefined;
  if (modelCall.name === "crash") {
    const code = Number.isInteger(args.code) && args.code >= 0 && args.code <= 255 ? args.code : 3;
    log(`crashing on purpose with exit code ${code}`);
    process.exit(code);
  }
  const call = { toolCallId: randomUUID(), shown: { kind: "other", title: modelCall.name || "unnamed tool" } };
  if (!tool) failure ??= new Error(`There is no tool named "${modelCall.name}"`);
  else if (!failure) call.shown = await tool.describe(turn, args).catch((err) => ((failure = err), call.shown));

  await send(
    turn,
    { sessionUpdate: "tool_call", toolCallId: call.toolCallId, status: "pending", rawInput: args, ...call.shown },
    { keep: true },
  );
  await send(turn, { sessionUpdate: "tool_call_update", toolCallId: call.toolCallId, status: "in_progress" });
  let outcome;
  try {
    if (failure) throw failure;
    outcome = await tool.run(turn, args, call);
  } catch (err) {
    outcome = { status: "failed", text: turn.abort.signal.aborted ? CANCELLED_TEXT : `Error: ${err.message}` };
  }
  const update = {
    sessionUpdate: "tool_call_update",
    toolCallId: call.toolCallId,
    status: outcome.status ?? "completed",
    content: outcome.content ?? [textContent(outcome.text)],
    rawOutput: outcome.rawOutput ?? { output: outcome.text },
  };
  await send(turn, update, { keep: true });
  return outcome.text;
}

// ---- The model: an OpenAI-compatible Chat Completions endpoint, streamed --------------------------

async function callModel(turn) {
  if (!OPENAI_BASE_URL) throw new ModelError("OPENAI_BASE_URL is not set, so there is no model to call");
  const headers = { "content-type": "application/json", accept: "text/event-stream" };
  if (OPENAI_API_KEY) headers.authorization = `Bearer ${OPENAI_API_KEY}`;
  const system = {
    role: "system",
    content: `You are ${AGENT_INFO.name}, a coding agent. The working directory is ${turn.session.cwd}. Use the tools to read and write files and run commands.`,
  };
  const response = await fetch(`${OPENAI_BASE_URL.replace(/\/+$/, "")}/chat/completions`, {
    method: "POST",
    headers,
    signal: turn.abort.signal,
    body: JSON.stringify({ model: MODEL, stream: true, messages: [system, ...turn.session.messages], tools: TOOL_SCHEMAS }),
  });
  if (!response.ok) {
    let body = "";
    for await (const line of boundedLines(response.body)) body += `${line}\n`;
    throw new ModelError(`The model answered HTTP ${response.status}: ${modelErrorMessage(body.trim())}`);
  }
  const answer = { text: "", toolCalls: [] };
  for await (const line of boundedLines(response.body)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") break;
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelError("The model's stream holds an event that is not JSON");
    }
    if (chunk.error) throw new ModelError(`The model failed: ${modelErrorMessage(JSON.stringify(chunk))}`);
    const delta = chunk.choices?.[0]?.delta ?? {};
    if (typeof delta.content === "string" && delta.content !== "") {
      answer.text += delta.content;
      await send(turn, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta.content } });
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const index = Number.isInteger(part.index) && part.index >= 0 && part.index < 64 ? part.index : 0;
      const slot = (answer.toolCalls[index] ??= { id: `call_${index}`, name: "", arguments: "" });
      if (typeof part.id === "string" && part.id) slot.id = part.id;
      if (typeof part.function?.name === "string") slot.name ||= part.function.name;
      if (typeof part.function?.arguments === "string") slot.arguments += part.function.arguments;
    }
  }
  answer.toolCalls = answer.toolCalls.filter(Boolean);
  return answer;
}

/** The body's lines; the whole body is bounded, which bounds every line too. */
async function* boundedLines(body) {
  const decoder = new TextDecoder();
  let buffered = "";
  let bytes = 0;
  for await (const chunk of body ?? []) {
    bytes += chunk.byteLength;
    if (bytes > MAX_MODEL_ANSWER_BYTES) throw new ModelError(`The model's answer is longer than ${MAX_MODEL_ANSWER_BYTES} bytes`);
    buffered += decoder.decode(chunk, { stream: true });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline).replace(/\r$/, "");
      buffered = buffered.slice(newline + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) yield buffered;
}

function modelErrorMessage(body) {
  let message = body;
  try {
    const parsed = JSON.parse(body);
    if (typeof parsed?.error?.message === "string") message = parsed.error.message;
    else if (typeof parsed?.error === "string") message = parsed.error;
  } catch {
    // Not JSON: the text itself is the message.
  }
  return message.length > 2000 ? `${message.slice(0, 2000)}…` : message || "(no message)";
}

// ---- Sessions, kept in memory and as JSON files so session/load works in a new process -----------

const stateDir = (cwd) => ACP_TEST_AGENT_STATE || path.join(cwd, ".acp-test-agent");

async function save(session) {
  const dir = stateDir(session.cwd);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${session.id}.json`);
  const { id, cwd, messages, replay } = session;
  await fs.writeFile(`${file}.tmp`, JSON.stringify({ id, cwd, messages, replay }));
  await fs.rename(`${file}.tmp`, file);
}

async function load(sessionId, cwd) {
  if (!SESSION_ID.test(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
  let stored;
  try {
    stored = JSON.parse(await fs.readFile(path.join(stateDir(cwd), `${sessionId}.json`), "utf8"));
  } catch (err) {
    if (err.code === "ENOENT") throw acp.RequestError.sessionNotFound(sessionId);
    throw acp.RequestError.internalError(undefined, `the stored session ${sessionId} cannot be read: ${err.message}`);
  }
  if (!Array.isArray(stored?.messages) || !Array.isArray(stored.replay)) {
    throw acp.RequestError.internalError(undefined, `the stored session ${sessionId} has no history`);
  }
  return { id: sessionId, cwd, messages: stored.messages, replay: stored.replay };
}

function sessionOf(sessionId) {
  const session = sessions.get(sessionId);
  if (!session) throw acp.RequestError.sessionNotFound(sessionId);
  return session;
}

function requireAbsolute(cwd) {
  if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${JSON.stringify(cwd)}`);
}

// ---- The protocol ----------------------------------------------------------------------------------

const app = acp
  .agent({ name: AGENT_INFO.name })
  .onRequest("initialize", ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? {};
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentInfo: AGENT_INFO,
      // ACP_TEST_AGENT_NO_LOAD=1 plays an agent that cannot reload a session (as many cannot).
      agentCapabilities: { loadSession: ACP_TEST_AGENT_NO_LOAD !== "1", promptCapabilities: {} },
      authMethods: [],
    };
  })
  .onRequest("session/new", async ({ params }) => {
    requireAbsolute(params.cwd);
    // MCP servers are not used; their entries may hold credentials, so only their number is logged.
    if (params.mcpServers.length > 0) log(`ignoring ${params.mcpServers.length} MCP server(s)`);
    const session = { id: randomUUID(), cwd: params.cwd, messages: [], replay: [] };
    await save(session);
    sessions.set(session.id, session);
    return { sessionId: session.id };
  })
  .onRequest("session/load", async ({ params, client }) => {
    requireAbsolute(params.cwd);
    if (sessions.get(params.sessionId)?.turn) throw acp.RequestError.invalidRequest(undefined, "a prompt is running in this session");
    const session = await load(params.sessionId, params.cwd);
    // The whole history goes to the client before the answer (agentclientprotocol.com/protocol/session-setup).
    for (const update of session.replay) await client.notify("session/update", { sessionId: session.id, update });
    sessions.set(session.id, session);
    return {};
  })
  .onRequest("session/prompt", async ({ params, client, signal }) => {
    const session = sessionOf(params.sessionId);
    if (session.turn) throw acp.RequestError.invalidRequest(undefined, "a prompt is already running in this session; send one at a time");
    const turn = { session, client, abort: new AbortController() };
    session.turn = turn;
    const onRequestCancelled = () => turn.abort.abort();
    signal.addEventListener("abort", onRequestCancelled, { once: true });
    try {
      return { stopReason: await runTurn(turn, params.prompt) };
    } finally {
      signal.removeEventListener("abort", onRequestCancelled);
      session.turn = undefined;
      await save(session).catch((err) => log(`could not save session ${session.id}: ${err.message}`));
    }
  })
  .onNotification("session/cancel", ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort.abort();
  });

const connection = app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
process.exit(0);
