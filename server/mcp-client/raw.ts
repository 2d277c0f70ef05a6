// Requests Rein sends beside the SDK's own (docs/mcp.md#tasks). The SDK's
// 2026-07-28 client refuses an answer whose resultType is "task", so a call
// that may become a task, and the tasks/* requests that follow it, go out on
// the same transport with ids of their own, and their answers are taken off
// the transport before the SDK sees them, as are the progress notifications
// of such a call. What comes back is hostile input: only a plain object is
// handed on (the caller checks its shape), and a progress message is cut.
import { ProtocolError, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";

/** Every id Rein gives a request of its own starts so; the SDK's ids are numbers. */
const ID_PREFIX = "rein-raw-";

type Deliver = NonNullable<Transport["onmessage"]>;

interface Waiting {
  resolve(result: Record<string, unknown>): void;
  reject(err: unknown): void;
  onProgress?: (p: RawProgress) => void;
}

export interface RawProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** The most of a progress message that is handed on. */
const MAX_PROGRESS_MESSAGE = 500;

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** The error a server answered with, as the SDK would raise it (message bounded). */
function protocolErrorOf(error: unknown): ProtocolError {
  const code = isObject(error) && Number.isInteger(error.code) ? Number(error.code) : -32_603;
  const message = isObject(error) && typeof error.message === "string" ? error.message.slice(0, 1000) : "the server answered with an error";
  return new ProtocolError(code, message);
}

export class RawRequests {
  private next = 0;
  private readonly waiting = new Map<string, Waiting>();
  private ended: string | null = null;

  constructor(private readonly transport: Transport) {
    const deliver: Deliver | undefined = transport.onmessage;
    const take: Deliver = (message, extra) => {
      if (this.take(message)) return;
      deliver?.call(transport, message, extra);
    };
    transport.onmessage = take;
  }

  /** An answer to one of Rein's own requests, or its progress, is kept from the SDK (a late one too); anything else goes on to it. */
  private take(message: JSONRPCMessage): boolean {
    if ("method" in message && message.method === "notifications/progress") return this.takeProgress(message.params);
    const id = (message as { id?: unknown }).id;
    if (typeof id !== "string" || !id.startsWith(ID_PREFIX) || "method" in message) return false;
    const waiting = this.waiting.get(id);
    if (!waiting) return true;
    this.waiting.delete(id);
    const answer = message as { result?: unknown; error?: unknown };
    if ("error" in answer) waiting.reject(protocolErrorOf(answer.error));
    else if (isObject(answer.result)) waiting.resolve(answer.result);
    else waiting.reject(new ProtocolError(-32_603, "the server's answer is not an object"));
    return true;
  }

  /** Progress for one of Rein's own requests (its token is the request's id) goes to that request's onProgress. */
  private takeProgress(params: unknown): boolean {
    const token = isObject(params) ? params.progressToken : undefined;
    if (typeof token !== "string" || !token.startsWith(ID_PREFIX)) return false;
    const onProgress = this.waiting.get(token)?.onProgress;
    if (!onProgress || !isObject(params) || typeof params.progress !== "number" || !Number.isFinite(params.progress)) return true;
    onProgress({
      progress: params.progress,
      ...(typeof params.total === "number" && Number.isFinite(params.total) ? { total: params.total } : {}),
      ...(typeof params.message === "string" ? { message: params.message.slice(0, MAX_PROGRESS_MESSAGE) } : {}),
    });
    return true;
  }

  /**
   * Sends one request and waits for its answer; aborting `signal` tells the
   * server (`notifications/cancelled`) and stops waiting. With `onProgress`,
   * the request asks for progress (its id is the token).
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (p: RawProgress) => void,
  ): Promise<Record<string, unknown>> {
    signal.throwIfAborted();
    if (this.ended) throw new Error(this.ended);
    const id = `${ID_PREFIX}${++this.next}`;
    if (onProgress) params = { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } };
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => this.waiting.set(id, { resolve, reject, onProgress }));
    answer.catch(() => {}); // read below; this only keeps a failure while the send is under way from going unhandled
    const onAbort = () => {
      const waiting = this.waiting.get(id);
      if (!waiting) return;
      this.waiting.delete(id);
      waiting.reject(signal.reason);
      const cancelled = {
        jsonrpc: "2.0" as const,
        method: "notifications/cancelled",
        params: { requestId: id, reason: "cancelled by Rein" },
      };
      void this.transport.send(cancelled).catch(() => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.transport.send({ jsonrpc: "2.0", id, method, params });
      return await answer;
    } catch (err) {
      this.waiting.delete(id);
      throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** The connection ended: every request still waiting fails, and no new one is sent. */
  endAll(why: string): void {
    this.ended = why;
    for (const waiting of this.waiting.values()) waiting.reject(new Error(why));
    this.waiting.clear();
  }
}
