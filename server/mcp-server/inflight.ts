// Long calls a client may cancel. Each MCP request gets its own server here
// (no session), so the client's notifications/cancelled arrives with another
// request than the call it cancels; this map joins the two. A call is known
// by its caller and its JSON-RPC id, so nobody can cancel another's call.
export class InflightCalls {
  private readonly calls = new Map<string, AbortController>();

  private key(userId: string, requestId: string | number): string {
    return `${userId}\u0000${typeof requestId}:${requestId}`;
  }

  /** An AbortController for this call, aborted too when `signal` is; release() when the call ends. */
  track(userId: string, requestId: string | number, signal: AbortSignal): { signal: AbortSignal; release(): void } {
    const key = this.key(userId, requestId);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    if (signal.aborted) controller.abort();
    else signal.addEventListener("abort", onAbort, { once: true });
    this.calls.set(key, controller);
    return {
      signal: controller.signal,
      release: () => {
        signal.removeEventListener("abort", onAbort);
        if (this.calls.get(key) === controller) this.calls.delete(key);
      },
    };
  }

  /** The caller cancelled the call with this id; true when one was running. */
  cancel(userId: string, requestId: string | number): boolean {
    const controller = this.calls.get(this.key(userId, requestId));
    controller?.abort();
    return !!controller;
  }

  get size(): number {
    return this.calls.size;
  }
}
