// Rein as the client of a hosted agent (docs/hosted-agents.md#what-rein-answers):
// one connection over the agent process's stdin and stdout. The agent's
// requests for files, terminals and permission are answered by the run's
// workspace, pod and policy (HostIO); its session updates go to the run's
// timeline in the order they came. Messages are capped in size before they are
// parsed; every parameter was checked against the protocol's schema by the SDK.
import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

/** The largest protocol message Rein parses from an agent (a file it writes, a long update). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Terminals one agent may hold at once. */
export const MAX_TERMINALS = 16;
/** Session updates waiting to be recorded at most; past it the agent's further updates are dropped. */
export const MAX_PENDING_UPDATES = 256;
/** Output kept per terminal at most, whatever the agent asks. */
const MAX_TERMINAL_OUTPUT = 1024 * 1024;
const STDERR_KEPT = 4000;
/** How long what an exited agent's process wrote last is waited for. */
const EXIT_DRAIN_MS = 500;

/** What the host needs of the run: its files, its pod, its policy and its timeline. */
export interface HostIO {
  /** Workspace files by their path relative to the workspace. */
  readText(relative: string): Promise<string>;
  writeText(relative: string, content: string): Promise<void>;
  /** Runs a command at the run's pod's prompt, seen in the Terminal tab; null when the run has no pod. */
  exec:
    ((command: string, options: { signal: AbortSignal }) => Promise<{ exitCode: number; output: string; truncatedChars: number }>) | null;
  /** Rein's policy and the people it asks: the option the agent gets, or cancelled. */
  permission(request: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** Before a file write or a command the agent did not ask permission for: throws when the policy refuses it. */
  allow(action: HostAction, signal: AbortSignal): Promise<void>;
  /** A session update, in the order the agent sent them. */
  update(update: acp.SessionUpdate): Promise<void>;
}

/**
 * A file write, or a command with what the agent asked permission for when that differs: the script of a
 * shell's `-c`, or the line without the variables an agent marks all its commands with (AGENT_MARKS).
 */
export type HostAction = { kind: "edit"; path: string } | { kind: "execute"; command: string; script?: string };

const SHELLS = new Set(["sh", "bash", "zsh", "dash"]);

/** C0 and C1 control characters but tab and newline: a terminal's line editor acts on them (Ctrl-U, a carriage return), the policy reads them as text. */
export const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * Variables an agent sets on every command it runs, to tell its own commands apart (Claude Code's
 * CLAUDECODE=1): a command with only these is still the command it asked permission for.
 */
const AGENT_MARKS: Readonly<Record<string, string>> = { CLAUDECODE: "1" };

/** Tool calls whose kind, title and input the host keeps, to complete the permission requests that name them. */
const ANNOUNCED_KEPT = 256;

/** `sh -c SCRIPT` (or bash, -lc): the script. */
export function shellScript(command: string, args: string[]): string | undefined {
  const program = command.split("/").pop() ?? "";
  if (!SHELLS.has(program) || args.length !== 2 || !/^-l?c$/.test(args[0])) return undefined;
  return args[1];
}

/** The sandbox's view of the workspace. */
export const SANDBOX_WORKSPACE = "/workspace";

/** A path the agent gave, as a workspace path; anything outside /workspace is refused. */
export function workspacePath(given: string): string {
  if (!given.startsWith("/")) throw acp.RequestError.invalidParams(undefined, `Paths must be absolute; got ${given.slice(0, 200)}`);
  const parts: string[] = [];
  for (const part of given.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  if (parts[0] !== SANDBOX_WORKSPACE.slice(1) || parts.length < 2)
    throw acp.RequestError.invalidParams(
      undefined,
      `Rein gives this agent only the files under ${SANDBOX_WORKSPACE}; refused ${given.slice(0, 200)}`,
    );
  return parts.slice(1).join("/");
}

/** A command line from terminal/create's command and arguments, quoted for the pod's shell. */
export function commandLine(command: string, args: string[] = [], cwd?: string | null): string {
  const quote = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const line = args.length ? [command, ...args].map(quote).join(" ") : command;
  if (!cwd || cwd === SANDBOX_WORKSPACE) return line;
  return `cd ${quote(`${SANDBOX_WORKSPACE}/${workspacePath(cwd)}`)} && ${line}`;
}

interface HeldTerminal {
  command: string;
  controller: AbortController;
  done: Promise<void>;
  output: string;
  truncated: boolean;
  exit: { exitCode: number | null; signal: string | null } | null;
  limit: number;
}

export class AcpHost {
  private readonly connection: acp.ClientConnection;
  private readonly terminals = new Map<string, HeldTerminal>();
  private nextTerminal = 1;
  private creating = 0;
  private updates: Promise<void> = Promise.resolve();
  private pendingUpdates = 0;
  private droppedUpdates = 0;
  private stderr = "";
  /** The tool calls the agent announced: a permission request names one and may leave out what it announced. */
  private readonly announced = new Map<string, Pick<acp.ToolCallUpdate, "kind" | "title" | "rawInput" | "locations">>();
  /** Resolves when the agent's process is gone, with how it went. */
  readonly exited: Promise<{ code: number | null; signal: string | null; stderr: string }>;
  agent: acp.InitializeResponse | null = null;

  constructor(
    private readonly child: ChildProcess,
    private readonly io: HostIO,
    private readonly log: { error(m: string, e?: unknown): void },
  ) {
    child.stderr?.on("data", (c: Buffer) => (this.stderr = (this.stderr + c.toString("utf8")).slice(-STDERR_KEPT)));
    child.stdin?.on("error", () => {});
    this.exited = new Promise((resolve) => {
      // Its last words (a crash's stack on stderr, an answer on stdout) may still be in the pipes when it exits: read first, for a moment.
      child.once("exit", (code, signal) => {
        const pipes = [child.stdout, child.stderr].map((s) => (s && !s.destroyed ? new Promise((r) => s.once("close", r)) : null));
        void Promise.race([Promise.all(pipes), new Promise((r) => setTimeout(r, EXIT_DRAIN_MS).unref())]).then(() =>
          resolve({ code, signal, stderr: this.stderr.trim() }),
        );
      });
      child.once("error", (err) => resolve({ code: null, signal: null, stderr: `${this.stderr}\n${err.message}`.trim() }));
    });
    const app = acp
      .client({ name: "Rein" })
      .onRequest("fs/read_text_file", async ({ params }) => {
        const text = await this.io.readText(workspacePath(params.path));
        return { content: sliceLines(text, params.line ?? null, params.limit ?? null) };
      })
      .onRequest("fs/write_text_file", async ({ params, signal }) => {
        const relative = workspacePath(params.path);
        await this.io.allow({ kind: "edit", path: relative }, signal);
        await this.io.writeText(relative, params.content);
        return {};
      })
      .onRequest("session/request_permission", ({ params, signal }) =>
        this.io.permission({ ...params, toolCall: this.completed(params.toolCall) }, signal),
      )
      .onRequest("terminal/create", ({ params, signal }) => this.createTerminal(params, signal))
      .onRequest("terminal/output", ({ params }) => {
        const t = this.terminal(params.terminalId);
        return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
      })
      .onRequest("terminal/wait_for_exit", async ({ params, signal }) => {
        const t = this.terminal(params.terminalId);
        let onAbort = () => {};
        try {
          await Promise.race([
            t.done,
            new Promise((_, reject) => {
              onAbort = () => reject(signal.reason);
              signal.addEventListener("abort", onAbort, { once: true });
            }),
          ]);
        } finally {
          signal.removeEventListener("abort", onAbort);
        }
        return t.exit ?? { exitCode: null, signal: null };
      })
      .onRequest("terminal/kill", ({ params }) => {
        this.terminal(params.terminalId).controller.abort(new Error("killed by the agent"));
        return {};
      })
      .onRequest("terminal/release", ({ params }) => {
        const t = this.terminal(params.terminalId);
        t.controller.abort(new Error("released by the agent"));
        this.terminals.delete(params.terminalId);
        return {};
      })
      .onNotification("session/update", ({ params }) => {
        this.announce(params.update);
        // An agent sending faster than they are recorded holds no more than MAX_PENDING_UPDATES of them in memory.
        if (this.pendingUpdates >= MAX_PENDING_UPDATES) {
          if (this.droppedUpdates++ === 0) this.log.error(`a hosted agent sent updates faster than Rein records them; some are dropped`);
          return;
        }
        this.pendingUpdates++;
        // In the order they came: each waits for the one before it.
        this.updates = this.updates.then(() =>
          this.io
            .update(params.update)
            .catch((err) => this.log.error("a hosted agent's session update was not recorded", err))
            .finally(() => this.pendingUpdates--),
        );
      });
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
      { maxMessageBytes: MAX_MESSAGE_BYTES },
    );
    this.connection = app.connect(stream);
  }

  /** What Rein offers: files always, terminals when the run has a pod. */
  async initialize(signal: AbortSignal): Promise<acp.InitializeResponse> {
    this.agent = await this.race(
      this.connection.agent.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: this.io.exec !== null },
        clientInfo: { name: "rein", title: "Rein", version: "1" },
      }),
      signal,
    );
    return this.agent;
  }

  get canLoad(): boolean {
    return this.agent?.agentCapabilities?.loadSession === true;
  }

  async newSession(signal: AbortSignal): Promise<string> {
    const r = await this.race(this.connection.agent.request("session/new", { cwd: SANDBOX_WORKSPACE, mcpServers: [] }), signal);
    return r.sessionId;
  }

  async loadSession(sessionId: string, signal: AbortSignal): Promise<void> {
    await this.race(this.connection.agent.request("session/load", { sessionId, cwd: SANDBOX_WORKSPACE, mcpServers: [] }), signal);
    await this.settled();
  }

  /** One prompt turn; resolves with why the agent stopped, after its updates are recorded. */
  async prompt(sessionId: string, text: string): Promise<acp.StopReason> {
    const r = await this.race(
      this.connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
      new AbortController().signal,
    );
    await this.settled();
    return r.stopReason;
  }

  /** Asks the agent to stop its turn; the prompt then answers `cancelled`. */
  async cancel(sessionId: string): Promise<void> {
    await this.connection.agent.notify("session/cancel", { sessionId }).catch(() => {});
  }

  /** The session updates received so far are recorded. */
  settled(): Promise<void> {
    return this.updates;
  }

  /** Ends the connection and the process; commands it started in the pod are stopped. */
  async close(): Promise<void> {
    for (const t of this.terminals.values()) t.controller.abort(new Error("the agent's process ended"));
    this.terminals.clear();
    this.connection.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid!, "SIGKILL");
      } catch {
        this.child.kill("SIGKILL");
      }
    }
    await this.exited;
  }

  /**
   * A command the agent ran itself with `bash -c`, handed over by the shell relay (docs/hosted-agents.md#commands-in-the-terminal-tab):
   * decided and run at the pod's prompt like an ACP terminal's, and its output and exit code given back when it ends.
   */
  async relay(command: { args: string[]; cwd: string }, signal: AbortSignal): Promise<{ exitCode: number; output: string }> {
    if (signal.aborted) throw signal.reason;
    const { terminalId } = await this.createTerminal({ sessionId: "", command: "bash", args: command.args, cwd: command.cwd }, signal);
    const held = this.terminal(terminalId);
    const stop = () => held.controller.abort(signal.reason);
    // The agent may have stopped waiting while the command was decided: a listener added now would never hear it.
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
    try {
      await held.done;
      return { exitCode: held.exit?.exitCode ?? 130, output: held.output };
    } finally {
      signal.removeEventListener("abort", stop);
      this.terminals.delete(terminalId);
    }
  }

  /** A request to the agent, or the reason its process went first. */
  private race<T>(request: Promise<T>, signal: AbortSignal): Promise<T> {
    return Promise.race([
      request,
      this.exited.then((e) => {
        throw new AgentExitedError(e);
      }),
      new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      }),
    ]);
  }

  /** Kept as it comes, before the update is recorded: a permission request may follow it at once. */
  private announce(update: acp.SessionUpdate) {
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return;
    const known = this.announced.get(update.toolCallId);
    if (!known && this.announced.size >= ANNOUNCED_KEPT) this.announced.delete(this.announced.keys().next().value!);
    this.announced.set(update.toolCallId, {
      kind: update.kind ?? known?.kind,
      title: update.title ?? known?.title,
      rawInput: update.rawInput ?? known?.rawInput,
      locations: update.locations ?? known?.locations,
    });
  }

  /**
   * A permission request's tool call with what the agent announced of it and left out here (the protocol's
   * request carries an update of the call): Claude Code's adapter sends neither kind nor locations.
   */
  private completed(call: acp.ToolCallUpdate): acp.ToolCallUpdate {
    const known = this.announced.get(call.toolCallId);
    if (!known) return call;
    return {
      ...call,
      kind: call.kind ?? known.kind,
      title: call.title ?? known.title,
      rawInput: call.rawInput ?? known.rawInput,
      locations: call.locations ?? known.locations,
    };
  }

  private terminal(id: string): HeldTerminal {
    const t = this.terminals.get(id);
    if (!t) throw acp.RequestError.invalidParams(undefined, `No terminal ${id.slice(0, 100)}`);
    return t;
  }

  private async createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    const exec = this.io.exec;
    if (!exec) throw acp.RequestError.methodNotFound("terminal/create");
    // The slot is taken before the first await, so terminals asked for at once cannot pass the limit together.
    if (this.terminals.size + this.creating >= MAX_TERMINALS)
      throw acp.RequestError.invalidRequest(undefined, `An agent may hold ${MAX_TERMINALS} terminals at once; release one first`);
    const given = [params.command, ...(params.args ?? []), params.cwd ?? "", ...(params.env ?? []).flatMap((v) => [v.name, v.value])];
    if (given.some((s) => CONTROL_CHARACTERS.test(s)))
      throw acp.RequestError.invalidParams(undefined, "A command may not hold control characters other than newlines and tabs");
    if ((params.env ?? []).some((v) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v.name)))
      throw acp.RequestError.invalidParams(undefined, "An environment variable's name is letters, digits and underscores");
    const vars = (params.env ?? []).map((v) => `${v.name}=${commandLine(v.value)}`);
    const line = commandLine(params.command, params.args ?? [], params.cwd);
    // In a subshell: its variables and directory do not stay in the pod's shell for later commands or a person's.
    const command =
      vars.length || (params.cwd && params.cwd !== SANDBOX_WORKSPACE)
        ? `(${vars.length ? `export ${vars.join(" ")}; ` : ""}${line})`
        : line;
    const marksOnly = (params.env ?? []).every((v) => AGENT_MARKS[v.name] === v.value);
    const script =
      !marksOnly || (params.cwd && params.cwd !== SANDBOX_WORKSPACE)
        ? undefined
        : (shellScript(params.command, params.args ?? []) ?? (vars.length ? line : undefined));
    this.creating++;
    try {
      await this.io.allow({ kind: "execute", command, ...(script !== undefined ? { script } : {}) }, signal);
    } finally {
      this.creating--;
    }
    const id = `term-${this.nextTerminal++}`;
    const controller = new AbortController();
    const limit = Math.min(params.outputByteLimit ?? MAX_TERMINAL_OUTPUT, MAX_TERMINAL_OUTPUT);
    const held: HeldTerminal = { command, controller, output: "", truncated: false, exit: null, limit, done: Promise.resolve() };
    held.done = exec(command, { signal: controller.signal }).then(
      (r) => {
        held.exit = { exitCode: r.exitCode, signal: null };
        keepTail(held, r.output, r.truncatedChars > 0);
      },
      (err: unknown) => {
        held.exit = { exitCode: null, signal: controller.signal.aborted ? "SIGKILL" : "SIGTERM" };
        keepTail(held, `${err instanceof Error ? err.message : String(err)}\n`, false);
      },
    );
    this.terminals.set(id, held);
    return { terminalId: id };
  }
}

/** The tail of a terminal's output within its byte limit, cut on a character boundary. */
function keepTail(t: HeldTerminal, output: string, truncated: boolean) {
  const bytes = Buffer.from(output, "utf8");
  if (bytes.length <= t.limit) {
    t.output = output;
    t.truncated = truncated;
    return;
  }
  let start = bytes.length - t.limit;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  t.output = bytes.subarray(start).toString("utf8");
  t.truncated = true;
}

/** Lines `line`.. (1-based) of a text, at most `limit` of them. */
export function sliceLines(text: string, line: number | null, limit: number | null): string {
  if (line === null && limit === null) return text;
  const lines = text.split("\n");
  const from = Math.max(0, (line ?? 1) - 1);
  return lines.slice(from, limit === null ? undefined : from + Math.max(0, limit)).join("\n");
}

/** The agent's process went while Rein waited for it. */
export class AgentExitedError extends Error {
  constructor(readonly exit: { code: number | null; signal: string | null; stderr: string }) {
    const how = exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`;
    const last = exit.stderr.split("\n").filter(Boolean).pop();
    super(`The hosted agent's process ${how}${last ? `: ${last.slice(0, 500)}` : ""}`);
    this.name = "AgentExitedError";
  }
}
