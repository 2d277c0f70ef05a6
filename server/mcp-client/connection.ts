// One live connection to an MCP server (docs/mcp.md): the official SDK's v2
// client over the sandboxed stdio transport or Streamable HTTP, with the limits
// other harnesses lack. The revision is agreed per server: `server/discover`
// first (2026-07-28, no session), `initialize` for a server that does not know
// it (2025-11-25 and earlier). A server that has not answered in 30 s is given
// up with its stderr tail; a call waits at most `idleMs` without a progress
// notification and never longer than its hard cap; aborting a call sends
// `notifications/cancelled`; a `tools/list_changed` is reported at once. A
// server that offers tasks gets calls that may become tasks, followed to
// their end and cancelled with `tasks/cancel` (tasks.ts, docs/mcp.md#tasks).
// Everything a server sends is hostile input: schemas are never compiled here
// (the SDK's validator would run a server's regexes on Rein's event loop).
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type AuthProvider,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
  type ProtocolEra,
  type Tool,
  type Transport,
  type jsonSchemaValidator,
} from "@modelcontextprotocol/client";
import { boundedMcpFetch } from "./http-bounds";
import { ANSWER_TOO_LARGE, MAX_TOOLS } from "./limits";
import { RawRequests } from "./raw";
import {
  LEGACY_TASKS,
  MODERN_TASKS,
  McpTaskUnsupported,
  TASKS_EXTENSION,
  callAsTask,
  taskSupportOf,
  type TaskDialect,
  type TaskSupport,
} from "./tasks";
import { SandboxedStdioTransport, type StdioLaunch } from "./stdio";

export { MAX_TOOLS };

export const CONNECT_TIMEOUT_MS = 30_000;
/** A call with no answer and no progress for this long is given up. */
export const CALL_IDLE_TIMEOUT_MS = 60_000;
const LIST_PAGES = 20;
/**
 * How long a stdio server may take to answer `server/discover` before it is
 * taken for a 2025 server and sent `initialize` (some older servers never
 * answer a method they do not know). Over HTTP a silent server is down.
 */
export const DISCOVER_TIMEOUT_MS = 5_000;
/**
 * Questions a server may have open with people at once on one connection, and
 * the rounds of `input_required` one call may take: a 2026-07-28 server can
 * put thousands of questions in one answer, and each would reach the Inbox.
 */
export const MAX_OPEN_QUESTIONS = 3;
export const MAX_INPUT_ROUNDS = 5;

export type McpLaunch =
  | ({ transport: "stdio" } & StdioLaunch)
  /** `auth`: the server's OAuth tokens (docs/mcp.md#oauth). */
  | { transport: "http"; url: string; headers: Record<string, string>; auth?: AuthProvider };

export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  onProgress?: (p: McpProgress) => void;
  /** No answer and no progress for this long: given up (default 60 s). */
  idleMs?: number;
  /** Never longer than this, progress or not (time a person takes to answer the server is not counted). */
  maxMs: number;
  /** Who made the call (a run's tool call): handed to onElicit when the server asks a person during it. */
  caller?: unknown;
}

/** The call ran past its limit, or went a minute without an answer or progress. */
export class McpCallTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpCallTimeout";
  }
}

/** The server's answer was more than Rein reads (docs/mcp.md#answer-size); the connection goes on. */
export class McpAnswerTooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpAnswerTooLarge";
  }
}

/** The SDK's own per-request timer is pushed out of the way; Rein keeps the clocks (below). */
const SDK_TIMEOUT_MS = 24 * 3600_000;

/** The two clocks of one call: idle (reset by progress) and the hard cap; both stop while a person is being asked. */
class CallClock {
  private idleTimer: NodeJS.Timeout | undefined;
  private capTimer: NodeJS.Timeout | undefined;
  private capLeft: number;
  private capStarted = 0;
  private paused = 0;

  constructor(
    private readonly idleMs: number,
    private readonly maxMs: number,
    private readonly expire: (why: string) => void,
  ) {
    this.capLeft = maxMs;
    this.run();
  }

  private run() {
    this.capStarted = Date.now();
    this.capTimer = setTimeout(() => this.expire(`it ran past its limit of ${Math.round(this.maxMs / 1000)} s`), this.capLeft);
    this.touch();
  }

  /** Progress arrived: the idle clock starts again. */
  touch() {
    if (this.paused) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.expire(`no answer and no progress for ${Math.round(this.idleMs / 1000)} s`), this.idleMs);
  }

  pause() {
    if (this.paused++ > 0) return;
    clearTimeout(this.idleTimer);
    clearTimeout(this.capTimer);
    this.capLeft = Math.max(1, this.capLeft - (Date.now() - this.capStarted));
  }

  resume() {
    if (--this.paused > 0) return;
    this.run();
  }

  stop() {
    clearTimeout(this.idleTimer);
    clearTimeout(this.capTimer);
  }
}

export interface McpServerInfo {
  name: string;
  version: string;
  /** The revision agreed with the server, e.g. "2026-07-28" or "2025-11-25". */
  protocolVersion: string | null;
  /** "modern": agreed over `server/discover`, no session; "legacy": the `initialize` handshake. */
  era: ProtocolEra | null;
  instructions: string | null;
}

export interface McpConnectionHooks {
  /** The server said its tool list changed. */
  onToolsChanged?(): void;
  /** The connection ended without Rein closing it (a crash, a network error). */
  onLost?(why: string): void;
  /**
   * The server asks a person for something during a call; `callers` are the
   * calls in flight on this connection (the protocol does not say which one
   * asks). Absent: the client does not offer elicitation.
   */
  onElicit?(request: ElicitRequest["params"], signal: AbortSignal, callers: unknown[]): Promise<ElicitResult>;
}

export class McpConnectError extends Error {
  constructor(
    message: string,
    public readonly stderrTail: string,
  ) {
    super(message);
    this.name = "McpConnectError";
  }
}

/** Never compiles a schema a server sent: a server's `pattern` could stall the event loop. The server checks its own arguments. */
const NO_VALIDATION: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

export class McpConnection {
  private readonly client: Client;
  private transport: Transport | null = null;
  private closing = false;
  private lost: string | null = null;
  private readonly inFlight = new Map<CallClock, unknown>();
  private openQuestions = 0;
  private readonly capabilities: ClientCapabilities;
  /** Requests beside the SDK's, for calls that may become tasks (set once connected). */
  private raw: RawRequests | null = null;
  /** What each tool said of tasks in the latest tool list. */
  private taskSupport = new Map<string, TaskSupport>();

  constructor(
    private readonly launch: McpLaunch,
    private readonly hooks: McpConnectionHooks = {},
    private readonly version = "1",
  ) {
    this.capabilities = hooks.onElicit ? { elicitation: { form: {}, url: {} } } : {};
    this.client = new Client(
      { name: "rein", version },
      {
        capabilities: this.capabilities,
        jsonSchemaValidator: NO_VALIDATION,
        versionNegotiation: { mode: "auto", probe: { timeoutMs: DISCOVER_TIMEOUT_MS } },
        listMaxPages: LIST_PAGES,
        inputRequired: { maxRounds: MAX_INPUT_ROUNDS },
      },
    );
    this.client.setNotificationHandler("notifications/tools/list_changed", async () => this.hooks.onToolsChanged?.());
    const elicit = hooks.onElicit;
    if (elicit) {
      // A 2025 server asks with an `elicitation/create` request during the call; a 2026-07-28 server answers the
      // call with `input_required`, and the SDK brings its questions here too, then calls again with the answers.
      this.client.setRequestHandler("elicitation/create", async (request, ctx) => {
        // More questions at once than a person answers are declined, not put in the Inbox.
        if (this.openQuestions >= MAX_OPEN_QUESTIONS) return { action: "decline" };
        this.openQuestions++;
        // Time a person takes is not the server's: every call on this connection stops its clocks.
        const clocks = [...this.inFlight.keys()];
        clocks.forEach((c) => c.pause());
        try {
          return await elicit(request.params, ctx.mcpReq.signal, [...this.inFlight.values()]);
        } finally {
          this.openQuestions--;
          clocks.forEach((c) => c.resume());
        }
      });
    }
  }

  /** What the server wrote to stderr lately (stdio only). */
  get stderrTail(): string {
    return this.transport instanceof SandboxedStdioTransport ? this.transport.stderrTail : "";
  }

  get pid(): number | undefined {
    return this.transport instanceof SandboxedStdioTransport ? this.transport.pid : undefined;
  }

  /** Why the connection ended by itself, or null while it is up. */
  get lostReason(): string | null {
    return this.lost;
  }

  async connect(timeoutMs = CONNECT_TIMEOUT_MS): Promise<McpServerInfo> {
    const transport: Transport =
      this.launch.transport === "stdio"
        ? new SandboxedStdioTransport(this.launch)
        : new StreamableHTTPClientTransport(new URL(this.launch.url), {
            requestInit: { headers: this.launch.headers },
            redirectPolicy: "same-origin",
            fetch: boundedMcpFetch(),
            ...(this.launch.auth ? { authProvider: this.launch.auth } : {}),
          });
    this.transport = transport;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.client.connect(transport, { timeout: timeoutMs }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer to the handshake within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      const tail = this.stderrTail;
      await this.close();
      throw new McpConnectError(`The MCP server did not start: ${describe(err)}`, tail);
    } finally {
      clearTimeout(timer);
    }
    // After the handshake: from here on an end Rein did not ask for is a loss.
    this.raw = new RawRequests(transport);
    this.client.onclose = () => {
      this.raw?.endAll(this.lost ?? "the connection closed");
      if (this.closing) return;
      this.lost ??= "the connection closed";
      this.hooks.onLost?.(this.lost);
    };
    this.client.onerror = (err) => {
      if (!this.closing && /exited|stopped by|not an MCP message|too large/.test(err.message)) this.lost = err.message;
    };
    const info = this.client.getServerVersion();
    return {
      name: String(info?.name ?? "unknown").slice(0, 200),
      version: String(info?.version ?? "").slice(0, 100),
      protocolVersion: this.client.getNegotiatedProtocolVersion()?.slice(0, 40) ?? null,
      era: this.client.getProtocolEra() ?? null,
      instructions: this.client.getInstructions()?.slice(0, 4000) ?? null,
    };
  }

  /** Every tool the server offers (up to MAX_TOOLS), page by page. */
  async listTools(timeoutMs = CONNECT_TIMEOUT_MS): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES; page++) {
      // One page per request, read afresh: the SDK's listTools() would walk every page at once and cache what a
      // server says it may keep; here the reading stops at MAX_TOOLS.
      const result = await this.client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, { timeout: timeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor || tools.length >= MAX_TOOLS) break;
    }
    const listed = tools.slice(0, MAX_TOOLS);
    this.taskSupport = new Map(listed.map((tool) => [tool.name, taskSupportOf(tool)]));
    return listed;
  }

  /**
   * How Rein calls this tool as a task, or null for a plain call: on
   * 2026-07-28, every tool of a server that offers the tasks extension; on
   * 2025-11-25, a tool that allows tasks on a server with the `tasks`
   * capability for tools/call.
   */
  private taskDialect(name: string): TaskDialect | null {
    if (!this.raw) return null;
    const capabilities = this.client.getServerCapabilities() as
      { extensions?: Record<string, unknown>; tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined;
    if (this.client.getProtocolEra() === "modern") {
      const offered = capabilities?.extensions?.[TASKS_EXTENSION];
      return offered && typeof offered === "object" ? MODERN_TASKS : null;
    }
    const allows = this.taskSupport.get(name) ?? "forbidden";
    const call = capabilities?.tasks?.requests?.tools?.call;
    return allows !== "forbidden" && !!call && typeof call === "object" ? LEGACY_TASKS : null;
  }

  /** A tool that runs only as a task, on a server where Rein cannot call it so: a clear refusal instead of a hang. */
  private checkTaskSupport(name: string, dialect: TaskDialect | null) {
    if (this.taskSupport.get(name) !== "required" || dialect) return;
    const why =
      this.client.getProtocolEra() === "modern"
        ? "the server does not offer the tasks extension"
        : "the server has no `tasks` capability for tool calls";
    throw new McpTaskUnsupported(`The tool ${name} runs only as a task, and ${why}`);
  }

  /** A request's params, with the 2026-07-28 envelope that says Rein takes tasks (a 2025 request goes as it is). */
  private withTasksEnvelope(params: Record<string, unknown>): Record<string, unknown> {
    if (this.client.getProtocolEra() !== "modern") return params;
    const capabilities = { ...this.capabilities, extensions: { [TASKS_EXTENSION]: {} } };
    return {
      ...params,
      _meta: {
        [PROTOCOL_VERSION_META_KEY]: this.client.getNegotiatedProtocolVersion(),
        [CLIENT_INFO_META_KEY]: { name: "rein", version: this.version },
        [CLIENT_CAPABILITIES_META_KEY]: capabilities,
      },
    };
  }

  /**
   * Calls a tool, as a task where the server offers that (docs/mcp.md#tasks); aborting `signal` (or a clock running
   * out) sends `notifications/cancelled` to the server, or `tasks/cancel` for a task.
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions) {
    const abort = new AbortController();
    let expired: string | null = null;
    const clock = new CallClock(Math.min(options.idleMs ?? CALL_IDLE_TIMEOUT_MS, options.maxMs), options.maxMs, (why) => {
      expired = why;
      abort.abort(new McpCallTimeout(why));
    });
    const onAbort = () => abort.abort(options.signal!.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.inFlight.set(clock, options.caller);
    try {
      const dialect = this.taskDialect(name);
      this.checkTaskSupport(name, dialect);
      const raw = this.raw;
      if (dialect && raw) {
        const outcome = await callAsTask({
          dialect,
          send: (method, params, signal, onProgress) => raw.request(method, this.withTasksEnvelope(params), signal, onProgress),
          name,
          args,
          signal: abort.signal,
          maxMs: options.maxMs,
          onStatus: (message, polls) => {
            clock.touch();
            options.onProgress?.({ progress: polls, ...(message ? { message } : {}) });
          },
          onProgress: (p) => {
            clock.touch();
            options.onProgress?.(p);
          },
        });
        if (outcome.kind === "result") return outcome.result;
        // The server asks first: the SDK's own path asks the person and calls again (no task then).
      }
      return await this.client.callTool(
        { name, arguments: args },
        {
          signal: abort.signal,
          timeout: SDK_TIMEOUT_MS,
          onprogress: (p) => {
            clock.touch();
            options.onProgress?.({
              progress: p.progress,
              total: p.total,
              message: typeof p.message === "string" ? p.message.slice(0, 500) : undefined,
            });
          },
        },
      );
    } catch (err) {
      if (expired) throw new McpCallTimeout(`The server did not finish ${name}: ${expired}`);
      if (err instanceof ProtocolError && err.code === ANSWER_TOO_LARGE) throw new McpAnswerTooLarge(describe(err));
      throw err;
    } finally {
      clock.stop();
      this.inFlight.delete(clock);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Ends the connection; a stdio server's whole process group is killed. */
  async close(): Promise<void> {
    this.closing = true;
    this.raw?.endAll("the connection was closed");
    try {
      await this.client.close();
    } catch {
      // the transport may never have started
    }
    await this.transport?.close().catch(() => {});
  }
}

export function describe(err: unknown): string {
  if (UnauthorizedError.isInstance(err))
    return "The server wants an OAuth authorization Rein does not have; an admin presses Authorize on the server's page";
  // The SDK's wording for a failed `server/discover` says nothing a person needs; what failed under it does.
  const message = ((err as Error)?.message ?? String(err))
    .replace(/^MCP error -?\d+: /, "")
    .replace(/^Version negotiation probe failed: /, "");
  // fetch says only "fetch failed"; why (refused, no such host, a bad certificate) is in its cause, a level or two down.
  let why = "";
  let cause = (err as { cause?: unknown })?.cause;
  for (let depth = 0; depth < 3 && cause && typeof cause === "object"; depth++) {
    const text = (cause as { message?: unknown }).message;
    if (typeof text === "string" && text && !message.includes(text) && !text.includes(message)) why = ` (${text})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return `${message}${why}`.slice(0, 1000);
}
